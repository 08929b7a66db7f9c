"""Fair shares: one client's backlog delays another client's single sentence by about one batch,
in the batcher alone (scripted searches) and through the API (two client addresses)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from translate.serve.app import create_app
from translate.serve.batcher import Batcher, QueueFull
from translate.serve.models import Models
from translate.serve.settings import ServeSettings


class Recorder:
    """A scripted search: each batch's texts recorded, `per_char_s` seconds a character."""

    def __init__(self, per_char_s: float = 0.0) -> None:
        self.batches: list[list[str]] = []
        self.per_char_s = per_char_s

    def __call__(self, key: Any, texts: list[str]) -> list[str]:
        self.batches.append(list(texts))
        time.sleep(self.per_char_s * sum(map(len, texts)))
        return [f"<{t}>" for t in texts]


def test_a_backlog_delays_another_clients_sentence_by_one_batch_at_most() -> None:
    run = Recorder(per_char_s=2e-5)
    heavy = [f"a{j}-{i}-" + "x" * 100 for j in range(20) for i in range(32)]

    async def scenario() -> tuple[list[str], list[list[str]]]:
        batcher = Batcher(run, wait_s=0.0, max_batch=64, max_queue=10_000, max_batch_chars=2_000)
        batcher.start()
        flood = [asyncio.create_task(batcher.submit("k", heavy[j * 32:(j + 1) * 32], "A")) for j in range(20)]
        await asyncio.sleep(0.01)  # the flood is queued and its first batch is searching
        single = await batcher.submit("k", ["b sentence"], "B")
        answers = await asyncio.gather(*flood)
        await batcher.stop()
        return single, answers

    single, answers = asyncio.run(scenario())
    assert single == ["<b sentence>"]
    assert answers == [[f"<{t}>" for t in heavy[j * 32:(j + 1) * 32]] for j in range(20)]  # all, in order
    b_batch = next(i for i, batch in enumerate(run.batches) if "b sentence" in batch)
    assert b_batch <= 2, f"B searched in batch {b_batch} of {len(run.batches)}"
    assert all(sum(map(len, batch)) <= 2_000 for batch in run.batches)  # each batch within its characters


def test_clients_take_turns_within_a_batch_and_a_client_share_is_bounded() -> None:
    run = Recorder()

    async def scenario() -> None:
        batcher = Batcher(run, wait_s=0.05, max_batch=4, max_queue=100, max_client_queue=6)
        a = asyncio.create_task(batcher.submit("k", ["a1", "a2", "a3", "a4", "a5"], "A"))
        b = asyncio.create_task(batcher.submit("k", ["b1", "b2"], "B"))
        await asyncio.sleep(0)  # both queued; the batcher not started yet, so nothing is taken
        with pytest.raises(QueueFull) as full:
            await batcher.submit("k", ["a6", "a7"], "A")  # 7 texts: over A's share of 6
        assert full.value.client_share
        c = asyncio.create_task(batcher.submit("k", ["c1"], "C"))  # another client still gets in
        await asyncio.sleep(0)
        batcher.start()
        assert await b == ["<b1>", "<b2>"] and len(await a) == 5 and await c == ["<c1>"]
        await batcher.stop()

    asyncio.run(scenario())
    assert run.batches[0] == ["a1", "b1", "c1", "a2"]  # turns, not first come first served


@pytest.mark.slow  # 5-9 s
def test_a_flood_from_one_address_leaves_another_address_its_sentence_in_time(both_directions: Models,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    real = both_directions.run
    batches: list[list[str]] = []

    def heavy(key: Any, texts: list[str]) -> list[Any]:  # a search that costs what long texts cost
        batches.append(list(texts))
        time.sleep(2e-4 * sum(map(len, texts)))
        return real(key, texts)

    monkeypatch.setattr(both_directions, "run", heavy)
    settings = ServeSettings(burst=100, max_queue=5_000, max_client_queue=2_000)
    app = create_app(both_directions, settings)
    long_text = " ".join(["the dog runs"] * 8)  # 103 characters

    async def scenario() -> tuple[int, float, float, list[int]]:
        async with app.router.lifespan_context(app):
            flooder = httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("10.0.0.1", 1)),
                                        base_url="http://localhost")
            other = httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("10.0.0.2", 1)),
                                      base_url="http://localhost")
            async with flooder, other:
                began = time.perf_counter()
                flood = [asyncio.create_task(flooder.post("/translate", json={"q": [long_text] * 8, "source": "en"}))
                         for _ in range(20)]
                await asyncio.sleep(0.3)
                started = len(batches)  # the flood's batches searched or searching when the sentence arrives
                asked = time.perf_counter()
                single = await other.post("/translate", json={"q": "a cat", "source": "en"})
                waited = time.perf_counter() - asked
                assert single.status_code == 200
                codes = [r.status_code for r in await asyncio.gather(*flood)]
                flood_s = time.perf_counter() - began
                return started, waited, flood_s, codes

    started, waited, flood_s, codes = asyncio.run(scenario())
    assert codes == [200] * 20  # 20 x 8 texts x 103 characters: over 3 s of searching
    searched_in = next(i for i, batch in enumerate(batches) if "a cat" in batch)
    # the batch in flight when it arrived finishes, and the next one takes it: counted, not timed,
    # so a slow or loaded machine cannot fail it; the wall-clock share is a loose second check
    assert searched_in <= started, f"the sentence waited {searched_in - started + 1} flood batches"
    assert waited < flood_s / 3, f"the other client waited {waited:.2f} s of the flood's {flood_s:.2f} s"
