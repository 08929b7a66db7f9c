"""The work before and after a search has owners (`serve.workers`): no per-text work on the event loop,
one job per client at a time in a pool of its own, each job's time charged to its client; and bursts
that once froze every route (texts whose spans were quadratic to find, HTML documents of many blocks)
leave `/health` and another client's sentence their answer within a bound."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from starlette.exceptions import HTTPException

from translate.serve.app import create_app
from translate.serve.limits import RateLimiter
from translate.serve.models import Models
from translate.serve.settings import ServeSettings
from translate.serve.workers import FREE_S, Workers


def test_one_job_per_client_at_a_time_and_another_client_goes_at_once() -> None:
    async def scenario() -> tuple[list[str], float]:
        workers = Workers(threads=4)
        gate, log = threading.Event(), []

        def slow(name: str) -> str:
            log.append(f"start {name}")
            gate.wait(5)
            log.append(f"end {name}")
            return name

        first = [asyncio.create_task(workers.run("a", slow, f"a{i}")) for i in range(3)]
        await asyncio.sleep(0.2)
        began = time.monotonic()
        assert await workers.run("b", lambda: "b") == "b"  # a's line holds one thread, not the pool
        other = time.monotonic() - began
        gate.set()
        assert [await task for task in first] == ["a0", "a1", "a2"]
        workers.shutdown()
        assert not workers.running("a")
        return log, other

    log, other = asyncio.run(scenario())
    assert log[:2] == ["start a0", "end a0"] and log == ["start a0", "end a0", "start a1", "end a1", "start a2", "end a2"]
    assert other < 1.0


def test_a_job_past_its_limit_is_a_503_but_its_client_waits_until_the_thread_is_done() -> None:
    async def scenario() -> tuple[int, list[str]]:
        workers = Workers(threads=2)
        log: list[str] = []

        def stuck() -> None:
            time.sleep(0.6)
            log.append("stuck done")

        with pytest.raises(HTTPException) as refused:
            await workers.run("a", stuck, timeout_s=0.1, refusal="the body could not be parsed")
        assert "the body could not be parsed within 0.1 s" in str(refused.value.detail)
        await workers.run("a", lambda: log.append("next"))  # only after the stuck thread let go
        workers.shutdown()
        return refused.value.status_code, log

    status, log = asyncio.run(scenario())
    assert status == 503 and log == ["stuck done", "next"]


def test_work_beyond_what_a_request_pays_for_is_charged_to_the_clients_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=1.0, burst=20, clock=lambda: now[0])

    async def scenario() -> None:
        workers = Workers(threads=1, limiter=limiter, tokens_per_second=20.0)
        await workers.run("a", time.sleep, FREE_S + 0.3)
        await workers.run("b", lambda: None)
        workers.shutdown()

    asyncio.run(scenario())
    assert limiter.acquire("a", 15.0) > 0  # 0.3 s x 20 tokens taken: 14 or fewer left
    assert limiter.acquire("b", 20.0) == 0  # a quick job costs nothing beyond its request


def test_long_work_is_a_debt_that_keeps_the_client_waiting_in_proportion() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=5.0, burst=20, clock=lambda: now[0])
    limiter.charge("a", 10.0 * 20, most=600 * 5.0)  # ten seconds of work at 20 tokens a second
    wait = limiter.acquire("a")
    assert wait == pytest.approx((200 - 20 + 1) / 5.0)  # the debt, then one token, at 5 a second
    now[0] = wait
    assert limiter.acquire("a") == 0
    limiter.charge("b", 10**9, most=100.0)
    assert limiter.acquire("b") == pytest.approx(101 / 5.0)  # a debt is bounded


async def _flood_and_probe(app: Any, flood: dict[str, Any], count: int) -> tuple[list[int], float, float, int]:
    """`count` requests of `flood` from one address at once; meanwhile `/health` and another address's
    sentence, asked every 50 ms: (the flood's statuses, the slowest /health, the slowest sentence, the
    other client's non-200 answers)."""
    async with app.router.lifespan_context(app):
        flooder = httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("10.0.0.1", 1)),
                                    base_url="http://localhost", timeout=120)
        other = httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("10.0.0.2", 1)),
                                  base_url="http://localhost", timeout=120)
        async with flooder, other:
            tasks = [asyncio.create_task(flooder.post("/translate", json=flood)) for _ in range(count)]
            slowest_health = slowest_sentence = 0.0
            failed = probes = 0
            await asyncio.sleep(0.05)
            while not all(task.done() for task in tasks):
                began = time.monotonic()
                health = await other.get("/health")
                slowest_health = max(slowest_health, time.monotonic() - began)
                assert health.status_code == 200
                began = time.monotonic()
                sentence = await other.post("/translate", json={"q": "a cat", "source": "en"})
                slowest_sentence = max(slowest_sentence, time.monotonic() - began)
                failed += sentence.status_code != 200
                probes += 1
                await asyncio.sleep(0.05)
            codes = [(await task).status_code for task in tasks]
    assert probes > 0, "the flood was over before the other client asked"
    return codes, slowest_health, slowest_sentence, failed


@pytest.mark.slow  # a few seconds
def test_twenty_requests_of_costly_spans_leave_health_and_another_sentence_within_a_second(
        both_directions: Models) -> None:
    """`{"q": ["a-"*500]*65, "attention": true}` x 20 from one address once held the loop 0.72 s each
    (quadratic span patterns, counted on the loop): every route froze for 12 s."""
    app = create_app(both_directions, ServeSettings(burst=1000, rate=1000, max_queue=5_000, max_client_queue=2_000))
    codes, health, sentence, failed = asyncio.run(
        _flood_and_probe(app, {"q": ["a-" * 500] * 65, "source": "en", "attention": True}, 20))
    assert set(codes) <= {413, 429, 503}, codes
    assert failed == 0
    assert health < 1.0 and sentence < 1.0, f"/health {health:.2f} s, a sentence {sentence:.2f} s"


@pytest.mark.slow  # a few seconds
def test_bursts_of_many_block_documents_never_503_another_client(both_directions: Models) -> None:
    """125-block HTML documents x 65 from one address, 20 at once: refused by a count of their tags
    before html5lib reads them; another client's plain request is never refused and waits < 2 s."""
    app = create_app(both_directions, ServeSettings(burst=1000, rate=1000))
    codes, health, sentence, failed = asyncio.run(
        _flood_and_probe(app, {"q": ["<p>x</p>" * 125] * 65, "format": "html", "source": "en"}, 20))
    assert set(codes) == {413}, codes
    assert failed == 0
    assert health < 2.0 and sentence < 2.0, f"/health {health:.2f} s, a sentence {sentence:.2f} s"


def test_an_html_request_over_its_tag_count_is_refused_naming_the_limit(both_directions: Models) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(both_directions, ServeSettings(burst=1000, max_html_tags=10)),
                    base_url="http://localhost") as client:
        refused = client.post("/translate", json={"q": "<p>a</p>" * 11, "format": "html", "source": "en"})
        kept = client.post("/translate", json={"q": "<p>a</p>" * 10, "format": "html", "source": "en"})
    assert refused.status_code == 413 and "11 tags" in refused.json()["error"] and "max_html_tags=10" in refused.json()["error"]
    assert kept.status_code == 200
