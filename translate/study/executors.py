"""Where a study's runs execute: one after another in this process (`Sequential`), or in N local worker
processes (`LocalWorkers`, `translate compare --jobs N`). Both take the same picklable run function and
report the same events to the driver, which alone writes the study's files (status, tables).

A worker that dies (killed, out of memory) breaks its pool: the runs it held are given to a fresh pool,
where training resumes from the run's last checkpoint; a run is recorded only by the run function's
own last step, so never twice. Ctrl-C stops the workers between two updates (each saves a resumable
checkpoint) and leaves the study to be resumed by the same command.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")
RETRIES = 2  # a run whose worker died is given to a fresh pool this many times, then reported failed


@dataclass(frozen=True)
class Event(Generic[T]):
    """What the driver hears: a run "started" (where), "finished" (its result), "failed" (a one-line reason)
    or "retried" (its worker died; it starts again elsewhere)."""

    kind: str
    task: T
    where: str = ""
    result: Any = None
    reason: str = ""


class Executor(Protocol):
    name: str

    def run(self, fn: Callable[[Any], Any], waves: Sequence[Sequence[Any]], events: Callable[[Event[Any]], None]) -> None:
        """Run fn on every task, wave after wave (a wave starts when the previous one has ended)."""


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


class Sequential:
    """Every run in this process, one after another."""

    name = "sequential"

    def run(self, fn: Callable[[Any], Any], waves: Sequence[Sequence[Any]], events: Callable[[Event[Any]], None]) -> None:
        where = f"{socket.gethostname()} pid {os.getpid()}"
        for wave in waves:
            for task in wave:
                events(Event("started", task, where))
                try:
                    result = fn(task)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except Exception as error:  # noqa: BLE001 - a failed run is reported; the study goes on
                    events(Event("failed", task, where, reason=one_line(error)))
                    continue
                events(Event("finished", task, where, result))


def _worker_init(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides; training stops on the SIGTERM it sends


class LocalWorkers:
    """N worker processes on this machine (spawned: no PyTorch state is forked), each with `threads` threads;
    at most N runs at a time, so a run is running from the moment it is given to the pool."""

    name = "local"

    def __init__(self, jobs: int, threads: int) -> None:
        self.jobs, self.threads = jobs, threads

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_init, initargs=(self.threads,))

    def run(self, fn: Callable[[Any], Any], waves: Sequence[Sequence[Any]], events: Callable[[Event[Any]], None]) -> None:
        where = f"{socket.gethostname()}, local worker ({self.jobs} jobs × {self.threads} threads)"
        pool = self._pool()
        try:
            for wave in waves:
                pool = self._wave(pool, fn, list(wave), events, where)
        except BaseException:
            _stop(pool)
            raise
        pool.shutdown(wait=True)

    def _wave(self, pool: ProcessPoolExecutor, fn: Callable[[Any], Any], todo: list[Any],
              events: Callable[[Event[Any]], None], where: str) -> ProcessPoolExecutor:
        running: dict[Future[Any], Any] = {}
        deaths: dict[Any, int] = {}
        while todo or running:
            while todo and len(running) < self.jobs:
                task = todo.pop(0)
                events(Event("started", task, where))
                running[pool.submit(fn, task)] = task
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            if any(not f.cancelled() and isinstance(f.exception(), BrokenProcessPool) for f in done):
                _stop(pool)  # a worker died and took its pool down: every run of the pool starts again
                pool, done = self._pool(), set(running)
            for future in done:
                task = running.pop(future)
                error = None if future.cancelled() else future.exception()
                if future.cancelled() or isinstance(error, BrokenProcessPool):
                    deaths[task] = deaths.get(task, 0) + 1
                    if deaths[task] > RETRIES:
                        events(Event("failed", task, where, reason=f"its worker died {deaths[task]} times"))
                    else:
                        events(Event("retried", task, where, reason="a worker of its pool died"))
                        todo.insert(0, task)
                elif error is not None:
                    events(Event("failed", task, where, reason=one_line(error)))
                else:
                    events(Event("finished", task, where, future.result()))
        return pool


def _stop(pool: ProcessPoolExecutor) -> None:
    """Ask the workers to stop between two updates (SIGTERM: each saves a resumable checkpoint), then wait."""
    processes = list(getattr(pool, "_processes", {}).values())  # the executor keeps no public list of them
    for process in processes:
        if process.is_alive():
            try:
                os.kill(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    pool.shutdown(wait=True, cancel_futures=True)  # the runs under way end at their next update boundary
