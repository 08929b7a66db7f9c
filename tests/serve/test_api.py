"""The HTTP API in-process: shapes, direction choice, every limit's JSON error, micro-batching."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import torch
from fastapi.testclient import TestClient

from tests.serve.conftest import served
from translate.data.tokenizer import Tokenizer
from translate.serve.app import create_app
from translate.serve.models import BatchKey, Models
from translate.serve.settings import ServeSettings

EN = ["a cat", "the dog runs", "I like tea", "hello"]


@pytest.fixture
def client(both_directions: Models) -> Iterator[TestClient]:
    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost") as c:
        yield c


def post(client: TestClient, **body: Any) -> httpx.Response:
    return client.post("/translate", json=body)


def test_translation_shapes_n_best_and_attention_rows(client: TestClient) -> None:
    out = post(client, q=EN[:2], source="en", n_best=3, beam=4, attention=True)
    assert out.status_code == 200, out.text
    items = out.json()["translations"]
    assert [t["text"] for t in items] == EN[:2]
    for t in items:
        assert (t["source"], t["target"], t["model"]) == ("en", "zh", "en-zh")
        assert len(t["alternatives"]) == 3
        assert t["translation"] == t["alternatives"][0]["translation"] and t["score"] == t["alternatives"][0]["score"]
        assert [a["score"] for a in t["alternatives"]] == sorted((a["score"] for a in t["alternatives"]), reverse=True)
        assert t["source_pieces"][-1] == "</s>"
        for alt in t["alternatives"]:
            [block] = alt["attention"]  # one sentence: one matrix over all the pieces
            assert (block["source_start"], block["source_end"]) == (0, len(t["source_pieces"]))
            assert (block["target_start"], block["target_end"]) == (0, len(alt["target_pieces"]))
            weights = block["weights"]
            assert len(weights) == len(alt["target_pieces"]) and alt["target_pieces"][-1] == "</s>"
            assert all(len(row) == len(t["source_pieces"]) for row in weights)
            assert all(abs(sum(row) - 1) < 2e-3 for row in weights)
            assert block["heads"] is None
            received = [sum(row[s] for row in weights) for s in range(len(t["source_pieces"]))]
            # what each source piece received (the sums of the rounded weights: within their rounding)
            assert block["coverage"] == pytest.approx(received, abs=len(weights) * 5e-5 + 1e-4)
            assert block["unattended"] == [r < 0.2 and s < len(received) - 1 for s, r in enumerate(block["coverage"])]


def test_a_single_string_and_no_attention_unless_asked(client: TestClient) -> None:
    t = post(client, q="a cat").json()["translations"]
    assert len(t) == 1 and t[0]["attention"] is None and t[0]["alternatives"][0]["attention"] is None
    assert t[0]["target_pieces"][-1] == "</s>"


def test_multi_head_models_return_every_head_and_their_mean(client: TestClient) -> None:
    t = post(client, q="the dog runs", model="multi", attention=True).json()["translations"][0]
    [att] = t["attention"]
    heads = att["heads"]
    assert len(heads) == 2 and len(heads[0]) == len(att["weights"]) == len(t["target_pieces"])
    for r, row in enumerate(att["weights"]):
        for s, w in enumerate(row):
            assert w == pytest.approx(sum(h[r][s] for h in heads) / 2, abs=2e-4)


def test_direction_from_the_script_per_text_or_from_source_and_target(client: TestClient) -> None:
    items = post(client, q=["a cat", "我喜欢茶", "我用Python写代码"]).json()["translations"]
    assert [(t["source"], t["model"]) for t in items] == [("en", "en-zh"), ("zh", "zh-en"), ("zh", "zh-en")]
    assert post(client, q="a cat", target="zh").json()["translations"][0]["model"] == "en-zh"
    kept = post(client, q="我喜欢茶", target="zh").json()["translations"][0]  # already Chinese: unchanged
    assert (kept["model"], kept["translation"]) == ("", "我喜欢茶")
    assert post(client, q="a cat", source="zh").json()["translations"][0]["model"] == "zh-en"


def test_models_and_health(client: TestClient) -> None:
    models = {m["name"]: m for m in client.get("/models").json()}
    assert models["en-zh"]["direction"] == "en-zh" and models["en-zh"]["mechanism"] == "soft additive"
    assert models["multi"]["heads"] == 2 and models["en-zh"]["scores"] == {"test": 1.5}
    assert client.get("/health").json()["models"] == ["en-zh", "zh-en", "multi"]
    assert "/translate" in client.get("/openapi.json").json()["paths"]
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/page.js">' in page.text
    assert client.get("/static/page.js").status_code == 200


def test_the_page_works_offline_no_external_assets() -> None:
    from translate.serve.app import STATIC

    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, path.name


@pytest.mark.parametrize("body,status,message", [
    ({"q": "x", "colour": "red"}, 422, "body.colour: Extra inputs are not permitted"),
    ({"q": "x", "beam": 11}, 422, "body.beam: Input should be less than or equal to 10"),
    ({"q": "x", "n_best": 3, "beam": 2}, 422, "n_best (3) must not exceed beam (2)"),
    ({"q": "x", "source": "en", "target": "en"}, 422, "source and target are both en"),
    ({"q": "x", "source": "fr"}, 422, "body.source"),
    ({"q": "x", "model": "nope"}, 404, "unknown model 'nope'; loaded: en-zh, zh-en, multi"),
    ({"q": "x", "model": "en-zh", "source": "zh"}, 422, "model en-zh translates en-zh, not from zh"),
    ({"q": "x" * 1001}, 413, "text 0 has 1001 characters; the limit is max_chars=1000"),
    ({"q": ["x"] * 101}, 413, "101 texts in one request; the limit is max_texts=100"),
])
def test_bad_requests_get_one_json_error_naming_the_fault(client: TestClient, body: dict[str, Any], status: int,
                                                        message: str) -> None:
    out = client.post("/translate", json=body)
    assert out.status_code == status
    assert message in out.json()["error"]


def test_malformed_json_and_oversized_bodies(client: TestClient) -> None:
    bad = client.post("/translate", content=b"{bad", headers={"Content-Type": "application/json"})
    assert bad.status_code == 422 and "JSON decode error" in bad.json()["error"]
    big = client.post("/translate", content=b"x" * 70_000, headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and "the limit is max_body_bytes=65536" in big.json()["error"]
    streamed = client.post("/translate", content=iter([b"{" + b" " * 40_000, b" " * 40_000 + b"}"]),
                           headers={"Content-Type": "application/json"})  # chunked: no Content-Length
    assert streamed.status_code == 413 and "max_body_bytes=65536" in streamed.json()["error"]


def test_no_model_for_a_direction(tiny_tokenizers) -> None:  # type: ignore[no-untyped-def]
    from tests.serve.conftest import served

    with TestClient(create_app(Models([served("only", tiny_tokenizers)]), ServeSettings()), base_url="http://localhost") as c:
        out = c.post("/translate", json={"q": "我喜欢茶"})
    assert out.status_code == 404 and out.json()["error"] == "no model for zh-en; loaded: only"


def test_api_key_rate_limit_queue_and_timeout(both_directions: Models) -> None:
    with TestClient(create_app(both_directions, ServeSettings(api_key="k", rate=0.01, burst=2)), base_url="http://localhost") as c:
        assert c.get("/health").status_code == 200  # health needs no key
        ok = [c.post("/translate", json={"q": "x"}, headers={"X-API-Key": "k"}).status_code for _ in range(2)]
        limited = c.post("/translate", json={"q": "x"}, headers={"Authorization": "Bearer k"})
    assert ok == [200, 200] and limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1 and "rate=0.01/s, burst=2" in limited.json()["error"]
    with TestClient(create_app(both_directions, ServeSettings(api_key="k", rate=0.01, burst=2)), base_url="http://localhost") as c:
        assert c.post("/translate", json={"q": "x"}).status_code == 401
        # a refused key costs more than its request: the right key now waits too
        assert c.post("/translate", json={"q": "x"}, headers={"X-API-Key": "k"}).status_code == 429
    with TestClient(create_app(both_directions, ServeSettings(max_queue=2)), base_url="http://localhost") as c:
        full = c.post("/translate", json={"q": ["a", "b", "c"]})
    assert full.status_code == 503 and full.headers["Retry-After"] == "1" and "max_queue=2" in full.json()["error"]
    # the batch waits 0.5 s for company, far past the deadline; reading the request (well under 0.05 s,
    # also on a busy machine) is not what times out
    with TestClient(create_app(both_directions, ServeSettings(timeout_s=0.05, batch_wait_ms=500)), base_url="http://localhost") as c:
        slow = c.post("/translate", json={"q": "a cat"})
        assert slow.status_code == 504 and "timeout_s=0.05" in slow.json()["error"]
        assert c.get("/health").json()["status"] == "ok"  # and it still answers


def test_a_crash_inside_the_model_is_a_json_500_without_a_trace(both_directions: Models, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def broken(key: Any, texts: list[str]) -> list[Any]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(both_directions, "run", broken)
    with TestClient(create_app(both_directions, ServeSettings()), base_url="http://localhost",
                    raise_server_exceptions=False) as c:
        out = c.post("/translate", json={"q": "a cat"})
    assert out.status_code == 500 and out.json() == {"error": "internal error (logged on the server)"}
    assert all(name in out.headers for name in ("x-content-type-options", "x-frame-options", "referrer-policy",
                                                  "content-security-policy"))  # answered inside the host guard


async def _concurrently(app: Any, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            replies = await asyncio.gather(*(c.post("/translate", json=b) for b in bodies))
            batches = app.state.batcher.batches
            alone = [await c.post("/translate", json=b) for b in bodies]
            assert app.state.batcher.batches == batches + len(bodies)
    assert batches < len(bodies), "concurrent requests were not batched"
    assert all(r.status_code == 200 for r in replies + alone)
    return [{"together": r.json(), "alone": a.json()} for r, a in zip(replies, alone)]


def test_concurrent_requests_are_batched_and_equal_one_by_one(both_directions: Models) -> None:
    app = create_app(both_directions, ServeSettings(batch_wait_ms=200, burst=100))
    bodies = [{"q": text, "beam": 3, "n_best": 2, "attention": True} for text in EN]
    bodies.append({"q": "我喜欢茶", "beam": 3, "n_best": 2, "attention": True})  # another model: its own batch
    for pair in asyncio.run(_concurrently(app, bodies)):
        together, alone = pair["together"]["translations"][0], pair["alone"]["translations"][0]
        assert together["alternatives"] == alone["alternatives"]


def test_the_event_loop_stays_free_while_the_model_works(both_directions: Models, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import time

    real = both_directions.run

    def slow(key: Any, texts: list[str]) -> list[Any]:
        time.sleep(1.0)  # a long search, in the worker thread
        return real(key, texts)

    monkeypatch.setattr(both_directions, "run", slow)
    app = create_app(both_directions, ServeSettings())

    async def scenario() -> tuple[float, int]:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
                translating = asyncio.create_task(c.post("/translate", json={"q": "a cat"}))
                await asyncio.sleep(0.2)
                began = time.perf_counter()
                health = await c.get("/health")
                answered = time.perf_counter() - began
                assert health.json()["waiting"] == 0  # the text is with the model, not queued
                return answered, (await translating).status_code

    answered, status = asyncio.run(scenario())
    assert status == 200 and answered < 0.5


def test_the_api_takes_a_glossary_per_request(both_directions: Models) -> None:
    sources, terms = ["I like tea.", "You are a teacher."], [("tea", "咖啡"), ("teacher", "医生")]
    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost") as client:
        body = {"q": sources, "source": "en", "glossary": [list(pair) for pair in terms]}
        out = client.post("/translate", json=body)
        assert out.status_code == 200, out.text
        first, second = (t["translation"] for t in out.json()["translations"])
        assert "咖啡" in first and "医生" in second
        plain = client.post("/translate", json={"q": sources[:1], "source": "en"}).json()["translations"][0]
        assert "咖啡" not in plain["translation"]
        bad = client.post("/translate", json={"q": "tea", "glossary": [["tea", "茶"], ["Tea", "咖啡"]]})
        assert bad.status_code == 422 and "glossary, term 2: 'Tea' is given twice" in bad.json()["error"]
        many = client.post("/translate", json={"q": "tea", "glossary": [["a", "b"]] * 101})
        assert many.status_code == 422


def test_an_unpaired_surrogate_is_a_422_naming_the_text() -> None:
    from translate.serve.schemas import TranslateRequest

    with pytest.raises(ValueError, match=r"text 1 holds an unpaired UTF-16 surrogate \(U\+D800\) at character 6"):
        TranslateRequest(q=["fine", "Hello \ud800 world"])


def test_the_api_answers_422_for_a_lone_surrogate(client: TestClient) -> None:
    out = client.post("/translate", content=b'{"q": "Hello \\ud800 world"}', headers={"Content-Type": "application/json"})
    assert out.status_code == 422 and "unpaired UTF-16 surrogate" in out.json()["error"]


def test_a_request_that_breaks_the_search_fails_alone_and_its_batch_neighbours_are_answered(
        both_directions: Models, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    real = both_directions.run

    def fragile(key: Any, texts: list[str]) -> list[Any]:
        if "poison" in texts:
            raise RuntimeError("cannot encode")
        return real(key, texts)

    monkeypatch.setattr(both_directions, "run", fragile)
    app = create_app(both_directions, ServeSettings(batch_wait_ms=300, burst=100))

    async def together() -> list[httpx.Response]:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
                bodies = [{"q": "a cat", "source": "en"}, {"q": "poison", "source": "en"}, {"q": "hello", "source": "en"}]
                replies = await asyncio.gather(*(c.post("/translate", json=b) for b in bodies))
                assert app.state.batcher.batches >= 4  # one failed batch of three, then each request alone
                return list(replies)

    ok, poisoned, also_ok = asyncio.run(together())
    assert (ok.status_code, poisoned.status_code, also_ok.status_code) == (200, 500, 200)
    assert ok.json()["translations"][0]["text"] == "a cat"


def test_a_body_neither_json_nor_a_form_is_a_415_and_numbers_as_strings_are_a_422(client: TestClient) -> None:
    plain = client.post("/translate", content=b'{"q": "a cat"}', headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and "Content-Type: application/json" in plain.json()["error"]
    assert "'text/plain'" in plain.json()["error"]
    assert client.post("/translate", content=b'{"q": "a cat"}').status_code == 415  # no Content-Type at all
    for field, value in (("beam", "5"), ("n_best", "1"), ("attention", "true")):
        out = post(client, q="a cat", **{field: value})
        assert out.status_code == 422 and field in out.json()["error"], (field, out.text)
    assert post(client, q="a cat", beam=5, n_best=1, attention=False).status_code == 200


def test_a_foreign_host_is_refused_and_replies_carry_security_headers(both_directions: Models) -> None:
    app = create_app(both_directions, ServeSettings())
    with TestClient(app, base_url="http://evil.example") as c:
        refused = c.get("/health")
        assert refused.status_code == 400 and "host 'evil.example' is not served here" in refused.json()["error"]
    for base in ("http://localhost:8000", "http://127.0.0.1", "http://[::1]:8000"):
        with TestClient(app, base_url=base) as c:
            assert c.get("/health").status_code == 200, base
    with TestClient(create_app(both_directions, ServeSettings(allowed_hosts="*")), base_url="http://evil.example") as c:
        page = c.get("/")
        assert page.status_code == 200
        assert page.headers["x-content-type-options"] == "nosniff" and page.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        docs = c.get("/docs")  # the API reference: drawn from /openapi.json by a local script, no CDN
        assert docs.status_code == 200 and "/static/docs.js" in docs.text and "cdn" not in docs.text.lower()
        assert "default-src 'self'" in docs.headers["content-security-policy"]
        assert c.get("/static/docs.js").status_code == 200 and c.get("/redoc").status_code == 404


def test_x_forwarded_for_does_not_change_the_client_by_default(both_directions: Models) -> None:
    with TestClient(create_app(both_directions, ServeSettings(rate=0.01, burst=2)), base_url="http://localhost") as c:
        codes = [c.post("/translate", json={"q": "a cat"}, headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code
                 for i in range(4)]
    assert codes == [200, 200, 429, 429]


def test_uvicorn_believes_proxy_headers_only_from_named_proxies() -> None:
    from translate.cli.serve import uvicorn_options

    default = uvicorn_options(ServeSettings())
    assert default["proxy_headers"] is False and default["forwarded_allow_ips"] is None
    behind = uvicorn_options(ServeSettings(trusted_proxies="10.0.0.5"))
    assert behind["proxy_headers"] is True and behind["forwarded_allow_ips"] == "10.0.0.5"


@pytest.mark.slow  # 5-9 s
def test_attention_for_the_largest_request_is_refused_before_any_work(both_directions: Models) -> None:
    long = " ".join(["the dog runs"] * 80)[:1000]  # within max_chars
    body = {"q": [long] * 32, "source": "en", "beam": 10, "n_best": 5, "attention": True}
    with TestClient(create_app(both_directions, ServeSettings(burst=100)), base_url="http://localhost") as c:
        batches = c.app.state.batcher.batches  # type: ignore[attr-defined]
        out = c.post("/translate", json=body)
        assert out.status_code == 413 and "max_attention_cells=400,000" in out.json()["error"]
        assert c.app.state.batcher.batches == batches  # refused before any search  # type: ignore[attr-defined]
        assert c.post("/translate", json={**body, "attention": False}).status_code == 200
        assert c.post("/translate", json={**body, "q": [long], "n_best": 1}).status_code == 200


def test_a_timed_out_search_frees_the_worker_within_a_second(both_directions: Models, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import time

    from translate.model.seq2seq import Seq2Seq

    real_step = Seq2Seq.step

    def slow_step(self: Seq2Seq, prev: Any, ctx: Any) -> Any:  # 50 ms a step: this request would search for seconds
        time.sleep(0.05)
        return real_step(self, prev, ctx)

    monkeypatch.setattr(Seq2Seq, "step", slow_step)
    app = create_app(both_directions, ServeSettings(timeout_s=0.5, burst=100))

    async def abandoned() -> float:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
                began = time.monotonic()
                out = await c.post("/translate", json={"q": " ".join(["the dog runs"] * 30), "source": "en", "beam": 4})
                assert out.status_code == 504
                await asyncio.get_running_loop().run_in_executor(app.state.batcher._executor, lambda: None)
                return time.monotonic() - began

    assert asyncio.run(abandoned()) < 0.5 + 1.0  # the worker is free again about when the 504 goes out


def test_a_text_over_200_pieces_is_flagged_as_truncated(client: TestClient) -> None:
    long = " ".join(["the dog runs"] * 75)  # 974 characters (max_chars 1,000), over 200 pieces
    out = post(client, q=[long, "a cat"], source="en", beam=1)
    assert out.status_code == 200, out.text
    assert [t["truncated"] for t in out.json()["translations"]] == [True, False]


def test_notices_say_what_the_model_cannot_read(client: TestClient) -> None:
    out = post(client, q=["a cat", "a cat Ω 你好"], source="en", beam=1)
    assert out.status_code == 200, out.text
    plain, mixed = (t["notices"] for t in out.json()["translations"])
    assert plain == []
    assert any("never saw in training (Ω" in n for n in mixed) and any("Chinese characters in English text (你好)" in n
                                                                          for n in mixed)


def test_attention_and_notices_are_of_the_text_the_search_read(client: TestClient) -> None:
    """An emoji or a URL passes through: the model never reads it, so no notice names it, and the heatmap's
    source pieces are those of the sentence without it, attended exactly as the sentence alone."""
    alone, spanned = (post(client, q=q, source="en", beam=2, attention=True).json()["translations"][0]
                      for q in ("a cat and a dog", "a cat 🍵 and a dog https://example.org/x"))
    assert spanned["notices"] == []
    assert spanned["source_pieces"] == alone["source_pieces"]
    assert spanned["alternatives"][0]["attention"] == alone["alternatives"][0]["attention"]


def test_a_paragraph_is_translated_sentence_by_sentence_with_one_matrix_per_sentence(client: TestClient) -> None:
    first, second = "I like tea.", "Where is the school?"
    alone = [post(client, q=s, source="en", beam=3, n_best=2, attention=True).json()["translations"][0]
             for s in (first, second)]
    whole = post(client, q=f"{first} {second}", source="en", beam=3, n_best=2, attention=True).json()["translations"][0]
    assert whole["translation"] == "".join(t["translation"] for t in alone)  # Chinese output: joined without a space
    assert whole["source_pieces"] == alone[0]["source_pieces"] + alone[1]["source_pieces"]
    blocks = whole["attention"]
    n_src, n_tgt = len(alone[0]["source_pieces"]), len(alone[0]["target_pieces"])
    assert [(b["source_start"], b["source_end"], b["target_start"], b["target_end"]) for b in blocks] == [
        (0, n_src, 0, n_tgt),
        (n_src, len(whole["source_pieces"]), n_tgt, n_tgt + len(alone[1]["target_pieces"]))]
    for block, sentence in zip(blocks, alone):
        # each sentence's own matrix, as alone: the same shape, the same values up to the last rounded digit
        # (the paragraph's sentences are aligned in one padded batch, whose float sums may round otherwise)
        own = sentence["attention"][0]["weights"]
        assert [len(row) for row in block["weights"]] == [len(row) for row in own]
        assert all(abs(x - y) <= 1.5e-4 for r, o in zip(block["weights"], own) for x, y in zip(r, o))
    assert len(whole["alternatives"]) == 2
    cells = sum(len(row) for alt in whole["alternatives"] for b in alt["attention"] for row in b["weights"])
    assert cells == sum(len(row) for t in alone for alt in t["alternatives"] for row in alt["attention"][0]["weights"])


def test_attention_cells_are_counted_per_sentence_before_any_search(both_directions: Models) -> None:
    from translate.serve.models import attention_cells

    translator = both_directions.by_name["en-zh"].translator
    paragraph = " ".join(["The dog runs."] * 40)  # 40 short sentences: one matrix each, not one for the whole
    one = attention_cells(translator, "The dog runs.", 1)
    assert attention_cells(translator, paragraph, 5) == 5 * 40 * one
    limit = 5 * 40 * one
    with TestClient(create_app(both_directions, ServeSettings(max_attention_cells=limit, burst=100)),
                    base_url="http://localhost") as c:
        assert c.post("/translate", json={"q": paragraph, "beam": 5, "n_best": 5, "attention": True}).status_code == 200
        over = c.post("/translate", json={"q": [paragraph, "The dog runs."], "beam": 5, "n_best": 5, "attention": True})
        assert over.status_code == 413 and f"could hold {limit + 5 * one:,} cells" in over.json()["error"]


def test_an_ensemble_is_served_under_one_name(tmp_path: Any, tiny_tokenizers: Any) -> None:
    from translate.checkpoint.store import load_checkpoint, save_checkpoint
    from translate.errors import ConfigError
    from translate.inference.translator import Ensemble, Translator

    for seed, name in ((0, "a"), (1, "b")):
        model = served(name, tiny_tokenizers)
        torch.manual_seed(seed)
        model.translator.model.apply(lambda m: m.reset_parameters() if hasattr(m, "reset_parameters") else None)
        save_checkpoint(tmp_path / name, model.artifact, model.translator.model, *tiny_tokenizers, {"step": 1})
    models = Models.load([f"ens={tmp_path / 'a'}+{tmp_path / 'b'}"])
    assert isinstance(models.by_name["ens"].translator.model, Ensemble)
    expected = Translator.from_ensemble([load_checkpoint(tmp_path / "a"), load_checkpoint(tmp_path / "b")]).translate(EN[:2])
    with TestClient(create_app(models, ServeSettings(burst=100)), base_url="http://localhost") as c:
        out = post(c, q=EN[:2], source="en", attention=True, beam=3)  # the checkpoints' own beam
    assert out.status_code == 200 and [t["translation"] for t in out.json()["translations"]] == expected
    with pytest.raises(ConfigError, match="an ensemble needs a name"):
        Models.load([f"{tmp_path / 'a'}+{tmp_path / 'b'}"])
    save_checkpoint(tmp_path / "a" / "members" / "1", models.by_name["ens"].artifact,
                    load_checkpoint(tmp_path / "b").model, *tiny_tokenizers, {"step": 1})  # b shipped in a
    shipped = Models.load([str(tmp_path / "a")], ensemble=True)
    assert isinstance(shipped.by_name["a"].translator.model, Ensemble)
    with TestClient(create_app(shipped, ServeSettings(burst=100)), base_url="http://localhost") as c:
        out = post(c, q=EN[:2], source="en", beam=3)
    assert out.status_code == 200 and [t["translation"] for t in out.json()["translations"]] == expected


def test_a_body_that_is_not_utf8_gets_a_clear_400(client: TestClient) -> None:
    out = client.post("/translate", content=b'{"q": "\xff\xfe"}', headers={"Content-Type": "application/json"})
    assert out.status_code == 400 and "could not be read as JSON: send UTF-8 text" in out.json()["error"]


def test_a_model_and_a_target_that_contradict_each_other_are_a_422(client: TestClient) -> None:
    out = post(client, q="a cat", model="en-zh", target="en")
    assert out.status_code == 422 and out.json()["error"] == "model en-zh translates en-zh, not into en"
    assert post(client, q="a cat", model="en-zh", target="zh").status_code == 200


def test_the_names_lexicon_follows_the_model_unless_a_request_says(tiny_tokenizers: tuple[Tokenizer, Tokenizer],
                                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from translate.inference import glossary

    (tmp_path / "names.tsv").write_text("I\t咖啡\n", encoding="utf-8")
    monkeypatch.setattr(glossary, "names_file", lambda: tmp_path / "names.tsv")
    glossary.names_lexicon.cache_clear()
    models = Models([served("on", tiny_tokenizers, **{"decode.lexicon": True}), served("off", tiny_tokenizers)])
    try:
        with TestClient(create_app(models, ServeSettings(burst=1000)), base_url="http://localhost") as client:
            assert {m["name"]: m["lexicon"] for m in client.get("/models").json()} == {"on": True, "off": False}

            def translation(**body: object) -> str:
                out = client.post("/translate", json={"q": "I like tea.", "source": "en", **body})
                assert out.status_code == 200, out.text
                return str(out.json()["translations"][0]["translation"])

            assert "咖啡" in translation(model="on") and "咖啡" in translation(model="off", lexicon=True)
            assert "咖啡" not in translation(model="off") and translation(model="on", lexicon=False) == translation(model="off")
            assert client.post("/translate", json={"q": "tea", "lexicon": "yes"}).status_code == 422
    finally:
        glossary.names_lexicon.cache_clear()


def test_head_wherever_get_is_and_static_assets_cached_inside_the_rate_limit(both_directions: Models) -> None:
    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost") as c:
        for path in ("/", "/docs", "/health", "/models", "/languages", "/frontend/settings", "/static/page.js"):
            got, head = c.get(path), c.head(path)
            assert head.status_code == got.status_code == 200, path
            assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"], path
            assert head.headers["x-frame-options"] == "DENY", path
        script = c.get("/static/page.js")
        assert script.headers["cache-control"] == "no-cache" and script.headers["etag"]
        assert c.get("/static/page.js", headers={"If-None-Match": script.headers["etag"]}).status_code == 304
    with TestClient(create_app(both_directions, ServeSettings(rate=0.01, burst=6)), base_url="http://localhost") as c:
        assert c.get("/static/page.css").status_code == 200
        assert c.head("/fonts/cjk.otf").status_code in (200, 404)  # 5 tokens: what a 16 MB download costs
        limited = c.get("/static/page.js")
        assert limited.status_code == 429 and limited.headers["retry-after"] and "rate=0.01/s" in limited.json()["error"]
        assert c.get("/").status_code == 429 and c.get("/health").status_code == 200  # health stays outside


def test_a_surrogate_in_a_glossary_term_and_json_past_the_parser_are_422s(client: TestClient) -> None:
    glossary = client.post("/translate", content=b'{"q": "a cat", "glossary": [["cat", "\\udc00"]]}',
                           headers={"Content-Type": "application/json"})
    assert glossary.status_code == 422 and "glossary term 1 holds an unpaired UTF-16 surrogate" in glossary.json()["error"]
    deep = client.post("/translate", content=b'{"q": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
                       headers={"Content-Type": "application/json"})
    huge = client.post("/translate", content=b'{"q": "x", "beam": ' + b"9" * 5_000 + b"}",
                       headers={"Content-Type": "application/json"})
    for out in (deep, huge):
        assert out.status_code == 422 and "JSON decode error" in out.json()["error"], out.text


def test_a_paragraph_gets_one_notice_per_kind_not_one_per_sentence(client: TestClient) -> None:
    text = "I like Ω. You like ж. We like 你好. They like 世界."
    notices = post(client, q=text, source="en", beam=1).json()["translations"][0]["notices"]
    never_saw = [n for n in notices if "never saw in training" in n]
    chinese = [n for n in notices if "Chinese characters in English text" in n]
    assert len(notices) == 2 and len(never_saw) == len(chinese) == 1, notices
    assert "(Ω ж" in never_saw[0] and "你好" in chinese[0] and "世界" in chinese[0]


def test_four_texts_of_hesitation_get_a_bounded_reply_or_a_413_before_any_search(both_directions: Models) -> None:
    """Four texts of "嗯…" x 500 with attention once made a 240 MB reply: each counted as one text,
    answered as 500 sentences. Counted per sentence as sent, the reply stays within the limit."""
    from translate.serve.models import attention_cells

    texts = ["嗯…" * 500] * 4
    translator = both_directions.by_name["zh-en"].translator
    counted = sum(attention_cells(translator, text, 3) for text in texts)
    for limit in (counted, counted - 1):
        app = create_app(both_directions, ServeSettings(max_attention_cells=limit, burst=100, timeout_s=120))
        with TestClient(app, base_url="http://localhost") as c:
            batches = c.app.state.batcher.batches  # type: ignore[attr-defined]
            out = c.post("/translate", json={"q": texts, "source": "zh", "beam": 3, "n_best": 3, "attention": True})
            if limit < counted:
                assert out.status_code == 413 and f"could hold {counted:,} cells" in out.json()["error"]
                assert c.app.state.batcher.batches == batches  # refused before any search  # type: ignore[attr-defined]
                continue
            assert out.status_code == 200, out.text
            sent = sum(len(row) for t in out.json()["translations"] for alt in t["alternatives"]
                       for block in alt["attention"] for row in block["weights"])
            assert sent <= counted <= limit
            assert len(out.content) < 40 * counted  # bytes: bounded by the cells counted before the search


def test_a_released_model_is_served_by_onnx_runtime_unless_attention_is_asked() -> None:
    from translate.inference.fast import FastTranslator

    models = Models.load(["en-zh"])
    served = models.by_name["en-zh"]
    assert isinstance(served.searcher, FastTranslator)
    texts = ["Where is the station?", "I like tea. Do you?"]
    plain, viewed = BatchKey("en-zh", 5, 2, False), BatchKey("en-zh", 5, 2, True)
    assert models.searcher(plain) is served.searcher and models.searcher(viewed) is served.translator
    fast, torch_engine = models.run(plain, texts), models.run(viewed, texts)
    for a, b in zip(fast, torch_engine):  # the same n-best lists, whichever engine searched
        assert [x["translation"] for x in a["alternatives"]] == [x["translation"] for x in b["alternatives"]]
        assert [x["score"] for x in a["alternatives"]] == pytest.approx([x["score"] for x in b["alternatives"]], abs=1e-3)


def test_a_text_over_the_source_bound_logs_its_truncation_once(both_directions: Models,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """Counted for its cost, its attention cells and its pieces, searched and aligned: one warning."""
    import logging

    with TestClient(create_app(both_directions, ServeSettings(burst=1000)), base_url="http://localhost") as c, \
            caplog.at_level(logging.WARNING, logger="translate.inference.text_translator"):
        reply = c.post("/translate", json={"q": "the dog runs " * 70, "source": "en", "attention": True, "beam": 2})
    assert reply.status_code == 200, reply.text
    assert reply.json()["translations"][0]["truncated"]
    assert sum("truncated to" in r.getMessage() for r in caplog.records) == 1
