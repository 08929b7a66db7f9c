"""Micro-batching: texts that arrive together with the same key (model, beam, n-best, attention)
are searched as one batch in one worker thread, so the event loop stays free and the model is never
used by two threads at once. Beam search is batch-size invariant, so a batched text gets what it
would get alone (tested). A batch that fails is rerun request by request, so a request that breaks
the search fails alone and its neighbours get their answers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from translate.inference.deadline import SearchTimeout, deadline

logger = logging.getLogger(__name__)

RunBatch = Callable[[Any, list[str]], list[Any]]  # (key, texts) -> one result per text


class QueueFull(Exception):
    """More texts are waiting than the queue holds."""


@dataclass
class _Job:
    key: Hashable
    texts: list[str]
    future: asyncio.Future[list[Any]]
    arrived: float = field(default=0.0)


class Batcher:
    def __init__(self, run: RunBatch, wait_s: float, max_batch: int, max_queue: int,
                 timeout_s: float | None = None) -> None:
        """`timeout_s`: how long a request is waited for; its batch's search stops once the last of its
        requests is past that (`inference.deadline`), so an abandoned search frees the worker."""
        self.run, self.wait_s, self.max_batch, self.max_queue = run, wait_s, max_batch, max_queue
        self.timeout_s = timeout_s
        self._jobs: list[_Job] = []
        self._wake = asyncio.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="translate-model")
        self._task: asyncio.Task[None] | None = None
        self.batches = 0  # searches run (for tests and logs)

    @property
    def waiting(self) -> int:
        return sum(len(job.texts) for job in self._jobs)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def submit(self, key: Hashable, texts: list[str]) -> list[Any]:
        """Results for `texts` in order; raises QueueFull at once when the queue cannot take them."""
        if self.waiting + len(texts) > self.max_queue:
            raise QueueFull
        loop = asyncio.get_running_loop()
        job = _Job(key, texts, loop.create_future(), loop.time())
        self._jobs.append(job)
        self._wake.set()
        return await job.future

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._jobs:
                first = self._jobs[0]
                delay = first.arrived + self.wait_s - loop.time()
                if delay > 0 and self._count(first.key) < self.max_batch:
                    await asyncio.sleep(delay)
                await self._run_one_batch(self._take(first.key))

    def _count(self, key: Hashable) -> int:
        return sum(len(job.texts) for job in self._jobs if job.key == key)

    def _take(self, key: Hashable) -> list[_Job]:
        """The oldest jobs with `key`, up to max_batch texts (always at least one job); dropped: cancelled ones."""
        taken: list[_Job] = []
        size = 0
        for job in list(self._jobs):
            if job.key != key or (taken and size + len(job.texts) > self.max_batch):
                continue
            self._jobs.remove(job)
            if not job.future.done():
                taken.append(job)
                size += len(job.texts)
        return taken

    async def _run_one_batch(self, jobs: list[_Job]) -> None:
        if not jobs:
            return
        texts = [text for job in jobs for text in job.texts]
        self.batches += 1
        at = None if self.timeout_s is None else max(job.arrived for job in jobs) + self.timeout_s
        try:
            results = await asyncio.get_running_loop().run_in_executor(self._executor, _run_until, at, self.run,
                                                                       jobs[0].key, texts)
        except SearchTimeout as exc:
            logger.warning("batch of %d texts stopped at its deadline", len(texts))
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(exc)
            return
        except Exception as exc:  # rerun request by request: only the guilty one fails
            if len(jobs) > 1:
                logger.warning("batch of %d texts failed (%s); retrying request by request", len(texts), exc)
                for job in jobs:
                    await self._run_one_batch([job])
                return
            logger.exception("request of %d texts failed", len(texts))
            if not jobs[0].future.done():
                jobs[0].future.set_exception(exc)
            return
        start = 0
        for job in jobs:
            if not job.future.done():
                job.future.set_result(results[start:start + len(job.texts)])
            start += len(job.texts)


def _run_until(at: float | None, run: RunBatch, key: Any, texts: list[str]) -> list[Any]:
    """`run` in the worker thread, its searches stopping at `at` (the event loop's clock: time.monotonic)."""
    with deadline(at):
        return run(key, texts)
