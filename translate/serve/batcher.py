"""Micro-batching with fair shares by cost: texts that wait with the same key (model, beam, n-best,
attention, glossary) are searched as one batch in a worker thread, so the event loop stays free;
which texts go next is decided per client, and batches searching at once take turns on the model
between search steps (`serve.turns`), so the model is used by one thread at a time.

Each request's texts wait as separate items, each with its estimated search cost (the caller's:
source pieces x beam x n-best, see `serve.models.search_cost`). The next batch is led by the client
that has been served least (cost searched, counted from when it started waiting: start-time fair
queueing), among the clients that have no batch searching, and filled with that key's items of
those clients, taking turns in the same order, up to `max_batch` texts and `max_batch_cost`. Up to
`max_active` batches search at once; past that, a client with nothing searching still gets a place,
for a batch of one text, up to `max_extra` such places: the turns serialise the model, so places
bound memory, not fairness, and four clients looping heavy texts cannot make a fifth one's sentence
wait for one of theirs to end. So a client's backlog of heavy texts searches one batch at a time,
and another client's single sentence starts beside it at once and gets the model in turns: it
waits about one search step, not one batch. A client may keep at most `max_client_queue` texts
waiting (QueueFull names it), the server `max_queue`.

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

from translate.inference.deadline import SearchTimeout, between_steps, deadline
from translate.serve.turns import Turns

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
    costs: list[int] = field(default_factory=list)
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
        return max(1, self.job.costs[self.index] if self.job.costs else len(self.text))


class Batcher:
    def __init__(self, run: RunBatch, wait_s: float, max_batch: int, max_queue: int,
                 timeout_s: float | None = None, max_batch_cost: int = 6_000,
                 max_client_queue: int | None = None, max_active: int = 4, quantum_s: float = 0.01,
                 max_extra: int = 16) -> None:
        """`timeout_s`: how long a request is waited for; its batch's search stops once the last of its
        requests is past that (`inference.deadline`), so an abandoned search frees the worker.
        `max_active`: batches searching at once (taking turns on the model every `quantum_s`);
        `max_extra`: one-text batches beyond those, for clients with nothing searching."""
        self.run, self.wait_s, self.max_batch, self.max_queue = run, wait_s, max_batch, max_queue
        self.timeout_s, self.max_batch_cost, self.max_active = timeout_s, max_batch_cost, max_active
        self.max_extra = max_extra
        self.max_client_queue = max_client_queue or max_queue
        self._queues: dict[str, deque[_Item]] = {}  # per client, oldest first; only clients with waiting texts
        self._served: dict[str, float] = {}  # cost searched per waiting client (its virtual time)
        self._virtual = 0.0  # the least served client's count when the last batch was taken
        self._searching: dict[asyncio.Task[None], set[str]] = {}  # batches under way and their clients
        self._wake = asyncio.Event()
        self.turns = Turns(quantum_s)
        self._executor = ThreadPoolExecutor(max_workers=max_active + max_extra, thread_name_prefix="translate-model")
        self._task: asyncio.Task[None] | None = None
        self.batches = 0  # searches run (for tests and logs)
        self.extra_batches = 0  # ... of them in a place beyond max_active

    @property
    def waiting(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        tasks = [t for t in (self._task, *self._searching) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def submit(self, key: Hashable, texts: list[str], client: str = "", costs: list[int] | None = None) -> list[Any]:
        """Results for `texts` in order; raises QueueFull at once when the queue, or this client's
        share of it, cannot take them. `costs`: each text's estimated search cost (default: its
        characters)."""
        if not texts:
            return []
        if self.waiting + len(texts) > self.max_queue:
            raise QueueFull
        queue = self._queues.get(client)
        if len(queue or ()) + len(texts) > self.max_client_queue:
            raise QueueFull(client_share=True)
        loop = asyncio.get_running_loop()
        job = _Job(key, texts, loop.create_future(), client, loop.time(), list(costs or []))
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
        """Start batches while some may: a waiting client with no batch searching (the others wait for
        theirs to end, which wakes this loop again), and a free place among `max_active`, or else one
        of the `max_extra` places for a batch of that client's first text."""
        loop = asyncio.get_running_loop()
        while self._drop_abandoned() and len(self._searching) < self.max_active + self.max_extra:
            order = self._order()
            if not order:
                return
            lead = self._queues[order[0]][0]
            extra = len(self._searching) >= self.max_active
            delay = lead.job.arrived + self.wait_s - loop.time()
            if not extra and delay > 0 and self._count(lead.job.key) < self.max_batch:
                await asyncio.sleep(delay)
                continue
            items = self._take(lead.job.key, order[:1], 1) if extra else self._take(lead.job.key, order)
            self.extra_batches += extra
            task = loop.create_task(self._run_one_batch(items))
            self._searching[task] = {item.job.client for item in items}
            task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._searching.pop(task, None)
        self._wake.set()

    def _order(self) -> list[str]:
        """Waiting clients without a batch searching, least served first (then the longest waiting)."""
        busy = set().union(*self._searching.values())
        return sorted((c for c in self._queues if c not in busy),
                      key=lambda c: (self._served[c], self._queues[c][0].job.arrived))

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

    def _take(self, key: Hashable, order: list[str], most: int | None = None) -> list[_Item]:
        """The next batch: `key`'s texts of the clients in `order`, taking turns least served first,
        within the batch's bounds and `most` texts (always at least one text)."""
        self._virtual = self._served[order[0]]
        turns = [(client, deque(i for i in self._queues[client] if i.job.key == key)) for client in order]
        taken: list[_Item] = []
        cost = 0
        most = self.max_batch if most is None else min(most, self.max_batch)
        while len(taken) < most and any(mine for _, mine in turns):
            for client, mine in turns:
                if not mine or len(taken) >= most:
                    continue
                if taken and cost + mine[0].cost > self.max_batch_cost:
                    return self._taken(taken)
                item = mine.popleft()
                taken.append(item)
                cost += item.cost
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
                self._executor, _run_until, at, self.turns, self.run, jobs[0].key, [item.text for item in items])
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


def _run_until(at: float | None, turns: Turns, run: RunBatch, key: Any, texts: list[str]) -> list[Any]:
    """`run` in a worker thread, on the model in its turns, its searches stopping at `at` (the event
    loop's clock: time.monotonic)."""
    with turns.claim(at) as claim, deadline(at), between_steps(lambda: turns.between_steps(claim)):
        return run(key, texts)
