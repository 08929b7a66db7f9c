"""Micro-batching with fair shares: texts that wait with the same key (model, beam, n-best,
attention, glossary) are searched as one batch in one worker thread, so the event loop stays free
and the model is never used by two threads at once; which texts go next is decided per client.

Each request's texts wait as separate items. The next batch is led by the client that has been
served least (characters of text searched, counted from when it started waiting: start-time fair
queueing), and filled with that key's items, clients taking turns in the same order, up to
`max_batch` texts and `max_batch_chars` characters. So a client's backlog of long texts delays
another client's single sentence by about one batch, not by the whole backlog; a client may keep
at most `max_client_queue` texts waiting (QueueFull names it), the server `max_queue`.

Beam search is batch-size invariant, so a batched text gets what it would get alone (tested). A
batch that fails is rerun request by request, so a request that breaks the search fails alone and
its neighbours get their answers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from translate.inference.deadline import SearchTimeout, deadline

logger = logging.getLogger(__name__)

RunBatch = Callable[[Any, list[str]], list[Any]]  # (key, texts) -> one result per text


class QueueFull(Exception):
    """More texts are waiting than the queue (or this client's share of it) holds."""

    def __init__(self, client_share: bool = False) -> None:
        super().__init__("client share" if client_share else "queue")
        self.client_share = client_share


@dataclass(eq=False)  # one request's job is itself: compared and hashed by identity
class _Job:
    """One request's texts for one key; done when every text has its result."""

    key: Hashable
    texts: list[str]
    future: asyncio.Future[list[Any]]
    client: str
    arrived: float = 0.0
    results: list[Any] = field(default_factory=list)
    left: int = 0

    def __post_init__(self) -> None:
        self.results, self.left = [None] * len(self.texts), len(self.texts)


@dataclass(frozen=True)
class _Item:
    job: _Job
    index: int

    @property
    def text(self) -> str:
        return self.job.texts[self.index]

    @property
    def cost(self) -> int:
        return max(1, len(self.text))


class Batcher:
    def __init__(self, run: RunBatch, wait_s: float, max_batch: int, max_queue: int,
                 timeout_s: float | None = None, max_batch_chars: int = 2_000,
                 max_client_queue: int | None = None) -> None:
        """`timeout_s`: how long a request is waited for; its batch's search stops once the last of its
        requests is past that (`inference.deadline`), so an abandoned search frees the worker."""
        self.run, self.wait_s, self.max_batch, self.max_queue = run, wait_s, max_batch, max_queue
        self.timeout_s, self.max_batch_chars = timeout_s, max_batch_chars
        self.max_client_queue = max_client_queue or max_queue
        self._queues: dict[str, deque[_Item]] = {}  # per client, oldest first; only clients with waiting texts
        self._served: dict[str, float] = {}  # characters searched per waiting client (its virtual time)
        self._virtual = 0.0  # the least served client's count when the last batch was taken
        self._wake = asyncio.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="translate-model")
        self._task: asyncio.Task[None] | None = None
        self.batches = 0  # searches run (for tests and logs)

    @property
    def waiting(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def submit(self, key: Hashable, texts: list[str], client: str = "") -> list[Any]:
        """Results for `texts` in order; raises QueueFull at once when the queue, or this client's
        share of it, cannot take them."""
        if not texts:
            return []
        if self.waiting + len(texts) > self.max_queue:
            raise QueueFull
        queue = self._queues.get(client)
        if len(queue or ()) + len(texts) > self.max_client_queue:
            raise QueueFull(client_share=True)
        loop = asyncio.get_running_loop()
        job = _Job(key, texts, loop.create_future(), client, loop.time())
        if queue is None:  # a client starts waiting where the batch now searching started (fair queueing's
            queue = self._queues[client] = deque()  # virtual time): ahead of those it has served since
            self._served[client] = self._virtual if self._queues.keys() - {client} else 0.0
        queue.extend(_Item(job, i) for i in range(len(texts)))
        self._wake.set()
        return await job.future

    async def _loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._drain()
            except Exception as exc:  # a bug here must fail the waiting requests (500), not hang them all
                logger.exception("the batcher failed; failing the %d texts waiting", self.waiting)
                for queue in self._queues.values():
                    for item in queue:
                        if not item.job.future.done():
                            item.job.future.set_exception(exc)
                self._queues.clear()
                self._served.clear()

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._drop_abandoned():
            lead = self._lead()
            delay = lead.job.arrived + self.wait_s - loop.time()
            if delay > 0 and self._count(lead.job.key) < self.max_batch:
                await asyncio.sleep(delay)
                if not self._drop_abandoned():
                    return
                lead = self._lead()
            await self._run_one_batch(self._take(lead.job.key))

    def _order(self) -> list[str]:
        """Waiting clients, least served first (then the longest waiting)."""
        return sorted(self._queues, key=lambda c: (self._served[c], self._queues[c][0].job.arrived))

    def _lead(self) -> _Item:
        return self._queues[self._order()[0]][0]

    def _count(self, key: Hashable) -> int:
        return sum(item.job.key == key for queue in self._queues.values() for item in queue)

    def _drop_abandoned(self) -> bool:
        """Forget texts whose request is no longer waited for; whether any text is left."""
        for client in list(self._queues):
            queue = deque(item for item in self._queues[client] if not item.job.future.done())
            if queue:
                self._queues[client] = queue
            else:
                self._forget(client)
        return bool(self._queues)

    def _forget(self, client: str) -> None:
        self._queues.pop(client, None)
        self._served.pop(client, None)

    def _take(self, key: Hashable) -> list[_Item]:
        """The next batch: `key`'s texts, clients taking turns least served first, within the batch's
        bounds (always at least one text)."""
        order = self._order()
        self._virtual = self._served[order[0]]
        turns = [(client, deque(i for i in self._queues[client] if i.job.key == key)) for client in order]
        taken: list[_Item] = []
        chars = 0
        while len(taken) < self.max_batch and any(mine for _, mine in turns):
            for client, mine in turns:
                if not mine or len(taken) >= self.max_batch:
                    continue
                if taken and chars + mine[0].cost > self.max_batch_chars:
                    return self._taken(taken)
                item = mine.popleft()
                taken.append(item)
                chars += item.cost
                self._queues[client].remove(item)
                self._served[client] += item.cost
        return self._taken(taken)

    def _taken(self, taken: list[_Item]) -> list[_Item]:
        for client in [c for c, queue in self._queues.items() if not queue]:
            self._forget(client)
        return taken

    async def _run_one_batch(self, items: list[_Item]) -> None:
        if not items:
            return
        jobs = list(dict.fromkeys(item.job for item in items))
        self.batches += 1
        at = None if self.timeout_s is None else max(job.arrived for job in jobs) + self.timeout_s
        try:
            results = await asyncio.get_running_loop().run_in_executor(
                self._executor, _run_until, at, self.run, jobs[0].key, [item.text for item in items])
        except SearchTimeout as exc:
            logger.warning("batch of %d texts stopped at its deadline", len(items))
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(exc)
            return
        except Exception as exc:  # rerun request by request: only the guilty one fails
            if len(jobs) > 1:
                logger.warning("batch of %d texts failed (%s); retrying request by request", len(items), exc)
                for job in jobs:
                    await self._run_one_batch([item for item in items if item.job is job])
                return
            logger.exception("request of %d texts failed", len(items))
            if not jobs[0].future.done():
                jobs[0].future.set_exception(exc)
            return
        for item, result in zip(items, results):
            job = item.job
            job.results[item.index], job.left = result, job.left - 1
            if job.left == 0 and not job.future.done():
                job.future.set_result(job.results)


def _run_until(at: float | None, run: RunBatch, key: Any, texts: list[str]) -> list[Any]:
    """`run` in the worker thread, its searches stopping at `at` (the event loop's clock: time.monotonic)."""
    with deadline(at):
        return run(key, texts)
