"""LibreTranslate's API: its own client library against a live server, forms and JSON alike, HTML
kept, its error shapes, and every new route as hardened as the project's own."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.serve.conftest import live_server, served
from tests.unit.test_markup import MASTODON_POST, tags
from translate.data.tokenizer import Tokenizer
from translate.inference import projection
from translate.inference.markup import read_html
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings

EN, ZH = "the dog runs", "我喜欢茶"


@pytest.fixture
def client(both_directions: Models) -> Iterator[TestClient]:
    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost") as c:
        yield c


def own(client: Any, q: Any, **body: Any) -> list[str]:
    """The project's own API: the translations it gives for `q`."""
    out = client.post("/translate", json={"q": q, **body})
    assert out.status_code == 200, out.text
    return [t["translation"] for t in out.json()["translations"]]


def test_libretranslatepy_against_a_live_server(both_directions: Models) -> None:
    libretranslatepy = pytest.importorskip("libretranslatepy", reason="a test extra: pip install -e '.[test]'")
    with live_server(create_app(both_directions, ServeSettings())) as url:
        lt = libretranslatepy.LibreTranslateAPI(url)
        with httpx.Client(base_url=url) as http:
            assert lt.translate(EN, "en", "zh") == own(http, EN, source="en", target="zh")[0]
            assert lt.translate(ZH, "zh", "en") == own(http, ZH, source="zh", target="en")[0]
            assert lt.translate(ZH, "auto", "en") == own(http, ZH)[0]
            assert lt.translate(ZH, "zh-Hans", "en") == own(http, ZH)[0]
        assert lt.languages() == [{"code": "en", "name": "English", "targets": ["zh"]},
                                  {"code": "zh", "name": "Chinese", "targets": ["en"]}]
        assert [d["language"] for d in lt.detect("你好")] == ["zh", "en"]
        assert lt.detect("Hello there")[0] == {"language": "en", "confidence": 100.0}


def test_the_api_key_from_libretranslatepy_and_its_error_statuses(both_directions: Models) -> None:
    libretranslatepy = pytest.importorskip("libretranslatepy", reason="a test extra: pip install -e '.[test]'")
    with live_server(create_app(both_directions, ServeSettings(api_key="k"))) as url:
        assert libretranslatepy.LibreTranslateAPI(url, api_key="k").translate(EN, "en", "zh")
        assert libretranslatepy.LibreTranslateAPI(url).languages()  # asked before a client has a key
        for key, status, message in (("nope", 403, "Invalid API key"), (None, 400, "an API key is required")):
            with pytest.raises(urllib.error.HTTPError) as refused:
                libretranslatepy.LibreTranslateAPI(url, api_key=key).translate(EN, "en", "zh")
            assert refused.value.code == status and message in json.loads(refused.value.read())["error"]
        assert httpx.post(url + "/translate", json={"q": EN}).status_code == 401  # the project's own dialect
        assert httpx.post(url + "/translate", data={"q": EN, "target": "zh"}, headers={"X-API-Key": "k"}).status_code == 200


def test_a_form_urlencoded_a_multipart_and_a_json_request_give_the_same_answer(client: TestClient) -> None:
    fields = {"q": EN, "source": "en", "target": "zh", "alternatives": "2"}
    urlencoded = client.post("/translate", data=fields).json()
    multipart = client.post("/translate", files={k: (None, v) for k, v in fields.items()}).json()
    as_json = client.post("/translate", json={**fields, "alternatives": 2}).json()
    assert urlencoded == multipart == as_json
    assert as_json["translatedText"] == own(client, EN, source="en", n_best=3)[0]
    assert "detectedLanguage" not in as_json and len(as_json["alternatives"]) <= 2
    assert as_json["translatedText"] not in as_json["alternatives"]
    assert len(set(as_json["alternatives"])) == len(as_json["alternatives"])


def test_replies_are_shaped_as_q_and_say_what_was_detected_only_for_auto(client: TestClient) -> None:
    one = client.post("/translate", json={"q": ZH, "source": "auto", "target": "en"}).json()
    assert one["translatedText"] == own(client, ZH)[0] and one["detectedLanguage"] == {"language": "zh", "confidence": 100.0}
    many = client.post("/translate", json={"q": [EN, ZH], "source": "auto", "format": "text"}).json()
    assert many["translatedText"] == own(client, [EN, ZH])
    assert [d["language"] for d in many["detectedLanguage"]] == ["en", "zh"] and "alternatives" not in many
    forced = client.post("/translate", json={"q": ZH, "source": "auto", "target": "zh"}).json()
    assert forced["detectedLanguage"] == {"language": "zh", "confidence": 100.0}  # already Chinese: kept as it is
    assert forced["translatedText"] == ZH
    listed = client.post("/translate", json={"q": [EN], "target": "zh", "alternatives": 1}).json()
    assert isinstance(listed["alternatives"], list) and isinstance(listed["alternatives"][0], list)


def test_format_html_keeps_every_tag_and_attribute_of_a_mastodon_post(client: TestClient) -> None:
    out = client.post("/translate", json={"q": [MASTODON_POST], "source": "en", "target": "zh", "format": "html"})
    assert out.status_code == 200, out.text
    html = out.json()["translatedText"][0]
    assert tags(html) == tags(MASTODON_POST)
    runs = read_html(MASTODON_POST)
    # each block translated as the API translates its text, cut among its runs through that translation's attention
    results = client.post("/translate", json={"q": runs.texts, "source": "en", "attention": True}).json()["translations"]
    cuts = [None if block.count == 1 else
            projection.cuts(block.text, r["source_pieces"], r["translation"], r["target_pieces"],
                            [projection.Aligned(a["source_start"], a["source_end"], a["target_start"], a["target_end"],
                                                a["weights"]) for a in r["attention"]], block.boundaries, block.required)
            for block, r in zip(runs.blocks, results)]
    assert html == runs.render([r["translation"] for r in results], cuts)
    assert "@<span>bob</span>" in html and "#<span>tea</span>" in html and "example.org/a?b=1&amp;c=2" in html
    assert [t["text"] for t in out.json()["translations"]] == runs.texts
    same = client.post("/translate", data={"q": MASTODON_POST, "source": "auto", "target": "zh", "format": "html"}).json()
    assert same["translatedText"] == html and same["detectedLanguage"]["language"] == "en"


@pytest.mark.parametrize("code,expected", [("zh-Hans", "zh"), ("zh_CN", "zh"), ("zt", "zh"), ("zh-Hant", "zh"),
                                           ("ZH-TW", "zh"), ("en-US", "en"), ("en", "en")])
def test_the_language_codes_clients_send(client: TestClient, code: str, expected: str) -> None:
    text = {"zh": "火車站", "en": EN}[expected]
    out = client.post("/translate", data={"q": text, "source": code, "target": "zh" if expected == "en" else "en"})
    assert out.status_code == 200, out.text
    assert out.json()["translations"][0]["source"] == expected
    if code in ("zt", "zh-Hant", "ZH-TW"):  # Traditional input reads as its Simplified form
        assert out.json()["translatedText"] == own(client, "火车站", source="zh")[0]


@pytest.mark.parametrize("fields,as_json,status,message", [
    ({"q": EN, "source": "fr", "target": "zh"}, False, 400, "'fr' is not a language this server translates"),
    ({"q": EN, "source": "fr", "target": "zh"}, True, 422, "'fr' is not a language"),  # the project's dialect
    ({"q": EN, "source": "fr", "format": "text"}, True, 400, "'fr'"),  # LibreTranslate's fields: its dialect
    ({"q": EN, "source": "en", "target": "zt"}, False, 400, "this server writes Simplified Chinese"),
    ({"source": "en", "target": "zh"}, False, 400, "body.q: Field required"),
    ({"q": EN, "alternatives": "many"}, False, 400, "body.alternatives: Input should be a valid integer"),
    ({"q": EN, "alternatives": 9}, True, 400, "less than or equal to 4"),
    ({"q": EN, "alternatives": 1, "n_best": 2}, True, 400, "give n_best or alternatives"),
    ({"q": EN, "format": "html", "attention": True}, True, 400, "plain text only"),
    ({"q": EN, "format": "pdf"}, False, 400, "body.format"),
    ({"q": EN, "model": "nope", "api_key": ""}, True, 400, "unknown model 'nope'"),
    ({"q": EN, "glossary": "Beijing"}, False, 400, "send a glossary in a JSON body"),
    ({"q": EN, "beam": "3", "n_best": "2", "attention": "true"}, False, 200, ""),  # typed from the form
])
def test_errors_in_each_dialect(client: TestClient, fields: dict[str, Any], as_json: bool, status: int,
                                message: str) -> None:
    out = client.post("/translate", json=fields) if as_json else client.post("/translate", data=fields)
    assert out.status_code == status, out.text
    assert message in out.json().get("error", "")


ROUTES = [
    ("POST", "/translate", "form"), ("POST", "/translate", "multipart"), ("POST", "/translate", "json"),
    ("POST", "/detect", "form"), ("POST", "/detect", "multipart"), ("POST", "/detect", "json"),
    ("GET", "/languages", "form"), ("GET", "/frontend/settings", "form"),
]


def send(client: TestClient, method: str, path: str, kind: str, fields: dict[str, str], **kwargs: Any) -> httpx.Response:
    if kind == "json":
        return client.request(method, path, json=fields, **kwargs)
    if kind == "multipart":
        return client.request(method, path, files={k: (None, v) for k, v in fields.items()}, **kwargs)
    return client.request(method, path, data=fields, **kwargs)


@pytest.mark.parametrize("method,path,kind", ROUTES)
def test_every_route_refuses_oversized_bodies_and_foreign_hosts(both_directions: Models, method: str, path: str,
                                                                kind: str) -> None:
    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost") as c:
        big = send(c, method, path, kind, {"q": "x" * 70_000})
        assert big.status_code == 413 and "max_body_bytes=65536" in big.json()["error"]
        if method == "POST":  # a GET route never reads a body, so one sent without a length is never held
            streamed = c.request(method, path, content=iter([b"q=" + b"x" * 40_000, b"x" * 40_000]),
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})  # no Content-Length
            assert streamed.status_code == 413 and "max_body_bytes=65536" in streamed.json()["error"]
    with TestClient(create_app(both_directions, ServeSettings()), base_url="http://evil.example") as c:
        foreign = send(c, method, path, kind, {"q": EN})
        assert foreign.status_code == 400 and "not served here" in foreign.json()["error"]
        assert foreign.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("path", ["/translate", "/detect"])
def test_bad_unicode_in_every_body_type_is_refused(client: TestClient, path: str) -> None:
    form = client.post(path, content=b"q=%FF%FE&target=zh", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 400 and "UnicodeDecodeError" in form.json()["error"]
    boundary = "b0undary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n").encode() + b"\xff\xfe" + \
        f"\r\n--{boundary}--\r\n".encode()
    multipart = client.post(path, content=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert multipart.status_code == 400, multipart.text
    surrogate = client.post(path, content=b'{"q": "Hello \\ud800", "api_key": ""}', headers={"Content-Type": "application/json"})
    assert surrogate.status_code == 400 and "unpaired UTF-16 surrogate" in surrogate.json()["error"]
    not_utf8 = client.post(path, content=b'{"q": "\xff"}', headers={"Content-Type": "application/json"})
    assert not_utf8.status_code == 400 and "send UTF-8 text" in not_utf8.json()["error"]
    a_file = client.post(path, files={"q": ("post.txt", b"Hello")})
    assert a_file.status_code == 400 and "no files" in a_file.json()["error"]


def test_detect_languages_and_settings(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    app = create_app(Models([served("en-zh", tiny_tokenizers)]), ServeSettings(max_chars=300, api_key="k", rate=0.01, burst=4))
    with TestClient(app, base_url="http://localhost") as c:
        assert c.get("/languages").json() == [{"code": "en", "name": "English", "targets": ["zh"]}]
        settings = c.get("/frontend/settings").json()
        assert settings["charLimit"] == 300 and settings["keyRequired"] is True
        assert settings["language"]["target"] == {"code": "zh", "name": "Chinese"}
        mixed = c.post("/detect", json={"q": "我用Python写代码", "api_key": "k"}).json()
        assert mixed[0]["language"] == "zh" and 50 < mixed[0]["confidence"] < 100
        assert mixed[0]["confidence"] + mixed[1]["confidence"] == pytest.approx(100)
        assert c.post("/detect", data={"q": "x" * 301, "api_key": "k"}).status_code == 413
        limited = c.get("/languages")
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    with TestClient(create_app(Models([served("en-zh", tiny_tokenizers)]), ServeSettings()), base_url="http://localhost") as c:
        assert c.post("/detect", data={"q": "123"}).json() == [{"language": "en", "confidence": 0.0},
                                                              {"language": "zh", "confidence": 0.0}]
        assert c.post("/detect", data={"q": ["你好", "Hello world, friends"]}).json()[0]["language"] == "en"
        # hashtags, URLs and emoji are no language: a Chinese post with an English hashtag is Chinese, wholly
        assert c.post("/detect", json={"q": "今天好冷 ❄️ #winter https://example.org/weather"}).json()[0] == {
            "language": "zh", "confidence": 100.0}


def test_the_schema_names_the_bodies_the_routes_read_themselves(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path, model in (("/translate", "TranslateRequest"), ("/detect", "DetectRequest")):
        content = spec["paths"][path]["post"]["requestBody"]["content"]
        assert set(content) == {"application/json", "application/x-www-form-urlencoded", "multipart/form-data"}
        assert content["application/json"]["schema"] == {"$ref": f"#/components/schemas/{model}"}
    assert {"format", "alternatives", "api_key", "glossary"} <= set(spec["components"]["schemas"]["TranslateRequest"]["properties"])
    assert "/languages" in spec["paths"] and "/frontend/settings" in spec["paths"]


def test_html_with_more_blocks_than_the_queue_holds_is_a_413_not_a_busy_server(both_directions: Models) -> None:
    document = "<p><b>tea</b> and milk</p>" * 30  # 30 blocks of text (an inline tag does not make another)
    for limits, named in (({"max_queue": 50}, "max_queue=50"), ({"max_client_queue": 40}, "max_client_queue=40")):
        with TestClient(create_app(both_directions, ServeSettings(**limits)), base_url="http://localhost") as c:
            out = c.post("/translate", json={"q": [document, document], "target": "zh", "format": "html"})
            assert out.status_code == 413 and "holds 60 blocks of text" in out.json()["error"] and named in out.json()["error"]
            assert c.post("/translate", json={"q": document, "target": "zh", "format": "html"}).status_code == 200


def test_a_form_may_hold_as_many_texts_as_json_and_no_more(client: TestClient) -> None:
    most = client.post("/translate", data={"q": ["a cat"] * 100, "target": "zh", "alternatives": "1"})
    assert most.status_code == 200 and len(most.json()["translatedText"]) == 100
    over = client.post("/translate", files=[("q", (None, "a cat")) for _ in range(101)])
    assert over.status_code == 413 and "max_texts=100" in over.json()["error"]
    flood = client.post("/translate", content=b"&".join([b"x=1"] * 200), headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert flood.status_code == 400 and "at most 116" in flood.json()["error"]


def test_what_mastodon_sends(client: TestClient) -> None:
    """Mastodon's LibreTranslate service: GET /languages with a JSON content type and no body, then
    the status's texts as one JSON list, format html, its regional codes and a null api_key."""
    languages = client.get("/languages", headers={"Content-Type": "application/json"})
    assert languages.status_code == 200 and {lang["code"] for lang in languages.json()} == {"en", "zh"}
    texts = [MASTODON_POST, "<p>I like tea.</p>"]
    out = client.post("/translate", json={"q": texts, "source": "en", "target": "zh-CN", "format": "html", "api_key": None})
    assert out.status_code == 200, out.text
    translated = out.json()["translatedText"]
    assert len(translated) == 2 and [tags(t) for t in translated] == [tags(t) for t in texts]
    auto = client.post("/translate", json={"q": texts, "source": "auto", "target": "zh-CN", "format": "html", "api_key": None})
    assert [d["language"] for d in auto.json()["detectedLanguage"]] == ["en", "en"]


def test_a_text_already_in_the_target_language_comes_back_unchanged(client: TestClient) -> None:
    english = "Hello world, how are you?"
    out = client.post("/translate", data={"q": english, "source": "auto", "target": "en"})
    assert out.status_code == 200, out.text
    assert out.json()["translatedText"] == english
    assert out.json()["detectedLanguage"]["language"] == "en"
    both = client.post("/translate", json={"q": [english, ZH], "source": "auto", "target": "en"}).json()
    assert both["translatedText"][0] == english and both["translatedText"][1] == own(client, ZH)[0]
    assert [d["language"] for d in both["detectedLanguage"]] == ["en", "zh"]
    first, second = both["translations"]
    assert first["model"] == "" and first["notices"] == ["already in en: returned unchanged"]
    assert second["model"] and second["target"] == "en"
    page = '<p>I like <b>tea</b>.</p>'
    html = client.post("/translate", json={"q": page, "source": "auto", "target": "en", "format": "html"}).json()
    assert html["translatedText"] == page  # byte for byte
    named = client.post("/translate", json={"q": english, "source": "en", "target": "en"})
    assert named.status_code == 422 and "source and target are both en" in named.text  # said outright: a mistake


def _file_reply(client: TestClient, name: str, content: bytes, **fields: str) -> Any:
    return client.post("/translate_file", data={"source": "auto", "target": "zh", **fields},
                       files={"file": (name, content, "text/plain")})


def test_translate_file_gives_a_url_to_the_translated_text_and_html(client: TestClient) -> None:
    text = f"{EN}\n\n{EN} 🎉\r\nhello there\n"
    reply = _file_reply(client, "post.txt", text.encode())
    assert reply.status_code == 200, reply.text
    url = reply.json()["translatedFileUrl"]
    assert url.startswith("http://localhost/download_file/") and url.endswith(".post.txt")
    got = client.get(url)
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/plain")
    lines = got.text.split("\n")
    expected = own(client, [EN, f"{EN} 🎉", "hello there"], source="en", target="zh")
    assert lines == [expected[0], "", expected[1] + "\r", expected[2], ""]  # empty lines and line ends kept
    page = f"<p>{EN} <b>{EN}</b></p>".encode()
    html = client.get(_file_reply(client, "page.html", page).json()["translatedFileUrl"])
    assert html.headers["content-type"].startswith("text/html")
    assert html.text == client.post("/translate", json={"q": page.decode(), "source": "auto", "target": "zh",
                                                         "format": "html"}).json()["translatedText"]
    assert client.get("/download_file/nope.post.txt").status_code == 404


@pytest.mark.parametrize(("name", "content", "status", "message"), [
    ("notes.pdf", b"%PDF", 400, "files ending in .txt, .html, .htm"),
    ("post.txt", "我喜欢茶".encode("gb18030"), 400, "could not be read"),
    ("post.txt", ("a\n" * 101).encode(), 413, "101 texts in one request"),
    ("post.txt", ("x" * 1001).encode(), 413, "1001 characters"),
])
def test_translate_file_refuses_what_translate_refuses(client: TestClient, name: str, content: bytes, status: int,
                                                       message: str) -> None:
    reply = _file_reply(client, name, content)
    assert reply.status_code == status and message in reply.json()["error"], reply.text


def test_a_file_part_is_refused_everywhere_else(client: TestClient) -> None:
    reply = client.post("/translate", data={"target": "zh"}, files={"q": ("post.txt", b"hello", "text/plain")})
    assert reply.status_code == 400 and "is a file" in reply.json()["error"]
