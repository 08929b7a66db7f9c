"""The server against a hostile client, each attack bounded in time and memory: header and multipart
bombs that once froze the event loop, numbers that once crashed the form reader, guessed keys, bodies
that never finish, huge echoes, 500s without their security headers, and study folders built to
escape, hang or crash the server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.serve.conftest import live_server
from translate.cli.serve import uvicorn_options
from translate.errors import ConfigError
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings
from translate.serve.study import Study

SECURITY = ("x-content-type-options", "x-frame-options", "referrer-policy", "content-security-policy")


@contextlib.contextmanager
def bounded(seconds: float, megabytes: float) -> Iterator[None]:
    """The block must finish within `seconds` and allocate at most `megabytes` at its peak (Python's
    allocations in every thread: the server's too)."""
    tracemalloc.start()
    began = time.monotonic()
    try:
        yield
    finally:
        took = time.monotonic() - began
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    assert took < seconds, f"took {took:.2f} s (bound {seconds} s)"
    assert peak < megabytes, f"peaked at {peak:.1f} MB (bound {megabytes} MB)"


@pytest.fixture(scope="module")
def url(both_directions: Models) -> Iterator[str]:
    settings = ServeSettings(burst=1000, rate=1000)
    with live_server(create_app(both_directions, settings), http=uvicorn_options(settings)["http"],
                     h11_max_incomplete_event_size=256 * 1024) as address:
        yield address


@pytest.fixture
def client(both_directions: Models) -> Iterator[TestClient]:
    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost",
                    raise_server_exceptions=False) as c:
        yield c


def _while_attacked(url: str, attack: Any) -> tuple[httpx.Response, float]:
    """Run `attack(client)` in a thread and time /health meanwhile: (the attack's reply, the slowest
    /health answer while it ran)."""
    reply: list[httpx.Response] = []
    with httpx.Client(base_url=url, timeout=20) as http:
        thread = threading.Thread(target=lambda: reply.append(attack(http)))
        thread.start()
        slowest = 0.0
        while thread.is_alive():
            began = time.monotonic()
            assert http.get("/health").status_code == 200
            slowest = max(slowest, time.monotonic() - began)
        thread.join()
    return reply[0], slowest


def test_a_60_kb_content_type_of_quotes_is_refused_and_never_holds_the_loop(url: str) -> None:
    bomb = "multipart/form-data; boundary=x; " + '"' * 60_000
    with bounded(5, 50):
        reply, slowest = _while_attacked(url, lambda http: http.post("/translate", content=b"--x--",
                                                                     headers={"Content-Type": bomb}))
    assert reply.status_code == 431 and "request headers too large" in reply.json()["error"]
    assert slowest < 1.0
    assert all(name in reply.headers for name in SECURITY)


def test_a_content_type_over_its_bound_but_within_the_header_limit_is_a_400(client: TestClient) -> None:
    out = client.post("/translate", content=b"--x--", headers={"Content-Type": "multipart/form-data; boundary=x; "
                                                                + '"' * 4_000})
    assert out.status_code == 400 and "Content-Type header has" in out.json()["error"]


def test_quotes_in_a_parts_header_are_refused_at_once(url: str) -> None:
    part_header = b'Content-Disposition: form-data; name="q"; x="' + b'";"' * 7_000 + b'"'
    body = b"--xx\r\n" + part_header + b"\r\n\r\nhello\r\n--xx--\r\n"
    with bounded(5, 50):
        reply, slowest = _while_attacked(url, lambda http: http.post(
            "/translate", content=body, headers={"Content-Type": "multipart/form-data; boundary=xx"}))
    assert reply.status_code == 400 and "the form could not be read" in reply.json()["error"], reply.text
    assert slowest < 1.0


def test_utf8_forms_urlencoded_raw_and_multipart_are_read(client: TestClient) -> None:
    raw = client.post("/translate", content="q=我喜欢茶。&source=zh&target=en".encode(),
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert raw.status_code == 200, raw.text
    multipart = client.post("/translate", data={"q": "我喜欢茶。", "source": "zh", "target": "en"},
                            files={"format": (None, "text")})
    assert multipart.status_code == 200, multipart.text
    assert raw.json()["translatedText"] == multipart.json()["translatedText"]
    latin1 = client.post("/translate", content="q=caf\xe9".encode("latin-1"),
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert latin1.status_code == 400 and "UnicodeDecodeError" in latin1.json()["error"]
    file = client.post("/translate", data={"source": "en"}, files={"q": ("a.txt", b"hello")})
    assert file.status_code == 400 and "is a file" in file.json()["error"]


@pytest.mark.parametrize("value", ["²", "①", "٣", "9" * 5_000, "-" + "1" * 20])
def test_form_numbers_int_would_refuse_are_a_400_not_a_crash(client: TestClient, value: str,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    with bounded(5, 50):
        out = client.post("/translate", data={"q": "a cat", "beam": value})
    assert out.status_code == 400 and "beam" in out.json()["error"], out.text
    assert len(out.content) < 2_000
    assert "Traceback" not in caplog.text and "internal error" not in caplog.text


def test_guessed_keys_run_into_the_rate_limit(both_directions: Models) -> None:
    # a refill too slow to matter however long the 100 requests take (at 5/s, a machine busy elsewhere
    # refilled enough tokens for a few more guesses)
    settings = ServeSettings(api_key="the-key", rate=0.1, burst=20)
    with TestClient(create_app(both_directions, settings), base_url="http://localhost") as c, bounded(10, 50):
        statuses = [c.post("/translate", json={"q": "x", "api_key": f"guess{i}"}).status_code for i in range(100)]
    assert statuses[0] == 403 and statuses.count(429) >= 90, statuses  # about 20 / (1 + FAILED_KEY_COST) get through
    assert statuses.index(429) <= 6


def test_a_client_that_leaves_mid_body_is_logged_as_gone_not_as_an_error(both_directions: Models,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(both_directions, ServeSettings())
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": b'{"q": "a', "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/translate", "raw_path": b"/translate", "query_string": b"",
             "headers": [(b"host", b"localhost"), (b"content-type", b"application/json")], "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80), "scheme": "http", "http_version": "1.1", "root_path": "", "app": app,
             "state": {}}
    with caplog.at_level(logging.INFO, logger="translate.serve.guards"):
        asyncio.run(app(scope, receive, send))
    assert "left before its request body was whole" in caplog.text
    assert "internal error" not in caplog.text and "Traceback" not in caplog.text
    assert sent == []


@pytest.mark.parametrize("body", [
    {("x" * 60_000): "field"},
    {"q": "a cat", "source": "x" * 60_000},
    {"q": "a cat", "model": "m" * 60_000},
])
def test_errors_never_echo_more_than_a_little_of_the_input(client: TestClient, body: dict[str, str]) -> None:
    out = client.post("/translate", content=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    assert out.status_code in (400, 404, 413, 422) and len(out.content) < 3_000, (out.status_code, len(out.content))


def test_a_form_field_name_is_echoed_cut(client: TestClient) -> None:
    name = "n" * 30_000  # two of them fill most of max_body_bytes
    out = client.post("/translate", content=f"q=a&{name}=1&{name}=2".encode(),
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert out.status_code == 400 and "given twice" in out.json()["error"] and len(out.content) < 2_000


# Study folders built by an attacker ------------------------------------------------------------

@pytest.fixture
def study_copy(tiny_study: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "study"
    shutil.copytree(tiny_study, copy)
    return copy


def test_a_figure_linked_outside_the_study_is_refused_at_start(study_copy: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\nroot:x:0:0")
    (study_copy / "evil.png").symlink_to(secret)
    with pytest.raises(ConfigError, match=r"evil\.png: cannot be read: a symlink"):
        Study(study_copy)
    (study_copy / "evil.png").unlink()
    (study_copy / "evil.png").symlink_to("/etc/passwd")
    with pytest.raises(ConfigError, match=r"evil\.png"):
        Study(study_copy)


@pytest.mark.parametrize("name,content,fault", [
    ("runs/dot-seed1/compare.json", b"[1, 2]", "expected a JSON object, got list"),
    ("runs/dot-seed1/compare.json", b'{"seed": "one", "mechanism": "dot"}', "seed must be an integer"),
    ("runs/dot-seed1/compare.json", b'{"seed": 1, "mechanism": "\xff"}', "not UTF-8"),
    ("runs/dot-seed1/compare.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("results.json", b'{"rows": ', "not JSON"),
    ("results.json", b'{"rows": {"a": 1}}', "rows must be a list of objects"),
    ("bleu.png", b"GIF89a", "not a PNG"),
])
def test_a_malformed_study_is_refused_with_one_line_naming_the_file(study_copy: Path, name: str, content: bytes,
                                                                    fault: str) -> None:
    (study_copy / name).write_bytes(content)
    with bounded(10, 200), pytest.raises(ConfigError) as refused:
        Study(study_copy)
    message = str(refused.value)
    assert name.split("/")[-1] in message and fault in message and "\n" not in message


def test_a_fifo_or_a_huge_file_in_the_study_is_refused_without_hanging(study_copy: Path) -> None:
    (study_copy / "results.json").unlink()
    os.mkfifo(study_copy / "results.json")
    with bounded(5, 50), pytest.raises(ConfigError, match="results.json: not a regular file"):
        Study(study_copy)
    (study_copy / "results.json").unlink()
    with open(study_copy / "results.json", "wb") as big:
        big.truncate(200 * 2**20)  # sparse: 200 MB on paper
    with bounded(5, 50), pytest.raises(ConfigError, match="results.json: 209,715,200 bytes"):
        Study(study_copy)


@pytest.mark.parametrize("fault", ["fifo", "symlink", "not safetensors"])
def test_a_fifo_a_link_or_a_broken_file_among_a_runs_weights_fails_at_start_with_one_line(
        study_copy: Path, tmp_path: Path, fault: str) -> None:
    best = study_copy / "runs" / "dot-seed1" / "best"
    target = best / ("config.json" if fault != "not safetensors" else "model.safetensors")
    target.unlink()
    if fault == "fifo":
        os.mkfifo(target)
    elif fault == "symlink":
        (tmp_path / "elsewhere.json").write_text("{}")
        target.symlink_to(tmp_path / "elsewhere.json")
    else:
        target.write_bytes(b"\xff" * 64)
    with bounded(5, 50), pytest.raises(ConfigError) as refused:
        Study(study_copy)
    message = str(refused.value)
    assert target.name in message and "\n" not in message
    assert {"fifo": "not a regular file", "symlink": "a symlink", "not safetensors": "not a safetensors"}[fault] in message


def test_the_study_files_are_bounded_in_all_not_only_one_by_one(study_copy: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from translate.serve import study as study_module

    size = sum(p.stat().st_size for p in study_copy.rglob("*.json") if "best" not in p.parts)
    monkeypatch.setattr(study_module, "MAX_STUDY_BYTES", size - 1)
    with pytest.raises(ConfigError, match="the study's files hold over"):
        Study(study_copy)
    monkeypatch.setattr(study_module, "MAX_STUDY_BYTES", size)
    Study(study_copy)


def test_a_symlinked_runs_folder_is_refused(study_copy: Path, tmp_path: Path) -> None:
    shutil.move(study_copy / "runs", tmp_path / "real-runs")
    (study_copy / "runs").symlink_to(tmp_path / "real-runs")
    with pytest.raises(ConfigError, match="runs/ is a symlink"):
        Study(study_copy)


def test_weights_that_fail_to_load_answer_409_with_one_line_every_time(both_directions: Models,
                                                                      study_copy: Path) -> None:
    """The header reads at start, the tensors do not fit the model: each request is a 409 naming the run."""
    import safetensors.torch
    import torch

    weights = study_copy / "runs" / "dot-seed1" / "best" / "model.safetensors"
    safetensors.torch.save_file({"nothing": torch.zeros(2)}, str(weights))
    models = Models(list(both_directions.by_name.values()), Study(study_copy))
    with TestClient(create_app(models, ServeSettings(burst=1000)), base_url="http://localhost",
                    raise_server_exceptions=False) as c:
        answers = [c.post("/study/translate", json={"q": "a cat", "runs": ["dot-seed1"]}) for _ in range(2)]
        fine = c.post("/study/translate", json={"q": "a cat", "runs": ["additive-seed1"]})
    for answer in answers:
        assert answer.status_code == 409, answer.text
        assert answer.json()["error"].startswith("run dot-seed1: its weights did not load")
        assert "\n" not in answer.json()["error"]
    assert fine.status_code == 200


def test_the_study_is_read_once_and_every_route_needs_the_key(both_directions: Models, study_copy: Path) -> None:
    models = Models(list(both_directions.by_name.values()), Study(study_copy, max_loaded=1))
    (study_copy / "results.json").write_text("broken after start")
    (study_copy / "bleu.png").unlink()
    with TestClient(create_app(models, ServeSettings(api_key="k", burst=1000)), base_url="http://localhost") as c:
        for path in ("/study", "/study/figures/bleu.png"):
            assert c.get(path).status_code == 401, path
        assert c.post("/study/translate", json={"q": "a", "runs": ["dot-seed1"]}).status_code == 401
        study = c.get("/study", headers={"X-API-Key": "k"})
        assert study.status_code == 200 and study.json()["table"][0]["mechanism"] == "additive"
        figure = c.get("/study/figures/bleu.png", headers={"X-API-Key": "k"})
        assert figure.status_code == 200 and figure.content.startswith(b"\x89PNG")



# HTML that a browser reads otherwise than Python's parser -------------------------------------

@pytest.mark.parametrize("document", [
    "<p>Good morning</p><!--<b>hidden note</b><img src=x onerror=alert(1)>",
    "<script>var a = 1;</ script>Good morning</script><p>Hello there</p>",
    "<p>Hello -- > there</p><!-- a -- > b --><b>Bold words</b>",
    "<a\0 href=x>Hello</a><b>Good day</b>",
    "<title>Hi</title><style>p { }</ style><p>the dog runs</p>",
    "<p>Hello <code>\ue0009\ue001</code> there.</p>",  # a forged run marker: refused, never a 500
    "<p>Hello \ue0000\ue001 there.</p><p>Good day</p>",
])
def test_format_html_never_returns_markup_the_document_kept_inert(client: TestClient, document: str) -> None:
    from translate.inference.markup import parse_like_a_browser, skeleton

    with bounded(10, 100):
        out = client.post("/translate", json={"q": document, "source": "en", "target": "zh", "format": "html"})
    assert out.status_code in (200, 400), out.text  # 400: refused whole (LibreTranslate's status for a 422)
    if out.status_code == 200:
        reply = out.json()["translatedText"]
        assert skeleton(parse_like_a_browser(reply)) == skeleton(parse_like_a_browser(document))


@pytest.mark.parametrize(("document", "element"), [
    (("<p>Good morning</p><select><template><textarea></textarea><img src=x onerror=alert(1)></template></select>"
      "<!-- hidden note"), "select"),
    ("<p>Good morning</p><template><select></select><img src=x onerror=alert(1)></template><!--", "select"),
    ("<p>Good morning</p><noscript><p title='</noscript><img src=x onerror=alert(1)>'></p></noscript><!--", "noscript"),
])
def test_html_that_html5lib_reads_by_an_older_standard_is_refused_not_rewritten(client: TestClient, document: str,
                                                                                element: str) -> None:
    """Written back from html5lib's tree, the first came back with a live <img onerror> (html5lib 1.1
    ignores <template> inside <select>, where a browser keeps its content inert). Each is refused, or,
    where the two readings agree, written back as the document itself with only its text replaced."""
    with bounded(10, 100):
        out = client.post("/translate", json={"q": document, "source": "en", "format": "html"})
    if out.status_code == 200:
        reply = out.json()
        assert reply["translatedText"].replace(reply["translations"][0]["translation"], "Good morning") == document
    else:
        assert out.status_code in (400, 422), out.text  # 400: LibreTranslate's status for a 422
        assert f"<{element}>" in out.json()["error"] and "html5lib" in out.json()["error"]


def test_a_wrong_key_in_the_headers_is_refused_before_the_body_is_parsed(both_directions: Models,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from translate.serve import body

    parsed: list[bytes] = []
    real = body.parse_fields
    monkeypatch.setattr(body, "parse_fields", lambda raw, *a: parsed.append(raw) or real(raw, *a))
    with TestClient(create_app(both_directions, ServeSettings(api_key="k", burst=100)), base_url="http://localhost") as c:
        assert c.post("/translate", json={"q": "a cat"}, headers={"X-API-Key": "wrong"}).status_code == 401
        assert parsed == []
        assert c.post("/translate", json={"q": "a cat", "api_key": "k"}).status_code == 200  # LibreTranslate's way
        assert c.post("/translate", json={"q": "a cat"}, headers={"X-API-Key": "k"}).status_code == 200
    assert len(parsed) == 2
