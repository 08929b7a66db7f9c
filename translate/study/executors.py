"""Where a study's runs execute: one after another in this process (`Sequential`), in N local worker
processes (`LocalWorkers`, `translate compare --jobs N`), or as tasks of a Ray cluster (`RayCluster`,
`--executor ray`). All take the same picklable run function and report the same events to the driver,
which alone writes the study's files (status, tables, and the runs' results a Ray node sends back).

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
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from translate.errors import ConfigError

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
    ships_files: bool  # runs send their result files back (no disk shared with the driver)
    slots: int  # runs that execute at once (for the driver's estimate of the time left)

    def run(self, fn: Callable[[Any], Any], waves: Sequence[Sequence[Any]], events: Callable[[Event[Any]], None]) -> None:
        """Run fn on every task, wave after wave (a wave starts when the previous one has ended)."""


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


class Sequential:
    """Every run in this process, one after another."""

    name = "sequential"
    ships_files = False
    slots = 1

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


def _worker_init(threads: int, started: Any = None) -> None:
    """A worker's start: its threads, SIGINT left to the driver, death with the driver; its pid sent on
    `started` (the pool's queue), since the executor keeps no public list of its processes. Between runs
    the SIGTERM a stopping driver sends is let pass (`_idle_stop`): a worker that died of it, waiting for
    work, would leave the pool broken, and the pool then sends the running worker a second SIGTERM, which
    loses its run's checkpoint, and can die holding the lock of the queue of work, which the running worker
    then waits on for ever. Training installs its own handler for the run (`training.signals`)."""
    import torch

    if started is not None:
        started.put(os.getpid())

    torch.set_num_threads(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides; training stops on the SIGTERM it sends
    signal.signal(signal.SIGTERM, _idle_stop)
    _die_with_parent()


def _idle_stop(signum: int, frame: Any) -> None:
    """SIGTERM to a worker between runs: nothing to stop (the pool's shutdown ends it), unless the driver is
    gone (`_die_with_parent`'s signal), when the worker ends at once."""
    if os.getppid() == 1:
        os._exit(1)


def _die_with_parent() -> None:
    """Linux: a SIGTERM when the driver dies, however it died, so that no worker trains on as an orphan."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the driver was already gone
        os.kill(os.getpid(), signal.SIGTERM)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """In the driver: SIGTERM (kill, a job scheduler) stops the study as Ctrl-C does, so that the workers are
    stopped with it (main thread only; a SIGTERM ignored by whoever started the driver stays ignored)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("SIGTERM")
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class LocalWorkers:
    """N worker processes on this machine (spawned: no PyTorch state is forked), each with `threads` threads;
    at most N runs at a time, so a run is running from the moment it is given to the pool."""

    name = "local"
    ships_files = False

    def __init__(self, jobs: int, threads: int) -> None:
        self.jobs, self.threads = jobs, threads
        self.slots = jobs
        self._started: Any = None  # the current pool's queue of its workers' pids
        self._pids: list[int] = []  # ... as read from it

    def _pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        self._started, self._pids = context.SimpleQueue(), []
        return ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_worker_init,
                                   initargs=(self.threads, self._started))

    def _stop(self, pool: Any, broken: bool) -> None:
        """Ask the pool's workers to stop between two updates (SIGTERM: each saves a resumable checkpoint),
        then wait. A broken pool has sent its workers that SIGTERM itself: a second one would stop them
        mid-update, so it gets none."""
        while self._started is not None and not self._started.empty():
            self._pids.append(self._started.get())
        for pid in [] if broken else self._pids:
            try:
                os.kill(pid, signal.SIGTERM)  # not yet reaped by the pool, so the pid is still the worker's
            except ProcessLookupError:
                pass
        pool.shutdown(wait=True, cancel_futures=True)  # the runs under way end at their next update boundary

    def run(self, fn: Callable[[Any], Any], waves: Sequence[Sequence[Any]], events: Callable[[Event[Any]], None]) -> None:
        where = f"{socket.gethostname()}, local worker ({self.jobs} jobs × {self.threads} threads)"
        pool = self._pool()
        try:
            for wave in waves:
                pool = self._wave(pool, fn, list(wave), events, where)
        except BaseException as exc:
            self._stop(pool, broken=isinstance(exc, BrokenProcessPool))
            raise
        pool.shutdown(wait=True)

    def _wave(self, pool: ProcessPoolExecutor, fn: Callable[[Any], Any], todo: list[Any],
              events: Callable[[Event[Any]], None], where: str) -> ProcessPoolExecutor:
        running: dict[Future[Any], Any] = {}
        deaths: dict[Any, int] = {}
        while todo or running:
            broken = False
            while todo and len(running) < self.jobs:
                task = todo.pop(0)
                try:
                    future = pool.submit(fn, task)
                except BrokenProcessPool:  # a worker died since the last wait, while another run finished
                    todo.insert(0, task)
                    broken = True
                    break
                events(Event("started", task, where))
                running[future] = task
            if not broken:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                broken = any(not f.cancelled() and isinstance(f.exception(), BrokenProcessPool) for f in done)
            if broken:
                self._stop(pool, broken=True)  # a worker died and took its pool down: every run of the pool starts again
                pool, done = self._pool(), set(running)
            for future in [f for f in running if f in done]:  # in the order given: events do not hang on hashes
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


def _on_node(fn: Callable[[Any], Any], task: Any, threads: int) -> tuple[str, Any]:
    """A Ray task: the run with `threads` PyTorch threads; returns where it ran (host, Ray node) and its result."""
    import ray
    import torch

    torch.set_num_threads(threads)
    return f"{socket.gethostname()} {ray.get_runtime_context().get_node_id()[:8]}", fn(task)


class RayCluster:
    """Each run a task of a Ray cluster (`address`, or a Ray started here on this machine's cores when
    None), asking for `cpus` CPUs (its PyTorch threads) and a `gpus` fraction of a GPU: 0.25 packs four
    runs on one GPU. Runs send their small result files back with their result, so nodes need no disk
    shared with the driver (their weights stay on the node, under the same --work path). A task whose
    worker or node dies is retried by Ray (RETRIES times): on the same node it resumes from the run's
    last checkpoint, elsewhere it starts again. Ctrl-C cancels the tasks (their last checkpoints stay)."""

    name = "ray"
    ships_files = True

    def __init__(self, address: str | None = None, cpus: int = 1, gpus: float = 0.0) -> None:
        self.address, self.cpus, self.gpus = address, cpus, gpus
        self.slots = 1  # known once the cluster is joined: its CPUs (or GPUs) over one run's share

    def run(self, fn: Callable[[Any], Any], waves: Sequence[Sequence[Any]], events: Callable[[Event[Any]], None]) -> None:
        ray = import_ray(loopback=self.address is None or self.address.rsplit(":", 1)[0] in LOOPBACK)
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=self.address, include_dashboard=False, logging_level=logging.WARNING,
                     **({} if self.address else {"num_cpus": os.cpu_count()}))
        resources = ray.cluster_resources()
        self.slots = max(1, int(resources.get("GPU", 0) / self.gpus) if self.gpus else int(resources.get("CPU", 1) // self.cpus))
        remote = ray.remote(_on_node).options(num_cpus=self.cpus, num_gpus=self.gpus, max_retries=RETRIES)
        where = f"ray {self.address or 'on this machine'}"
        pending: dict[Any, Any] = {}
        try:
            for wave in waves:
                for task in wave:
                    events(Event("started", task, f"{where} (queued or running)"))
                    pending[remote.remote(fn, task, self.cpus)] = task
                while pending:
                    [ready], _ = ray.wait(list(pending), num_returns=1)
                    task = pending.pop(ready)
                    try:
                        host, result = ray.get(ready)
                    except ray.exceptions.RayTaskError as error:  # the run itself raised
                        events(Event("failed", task, where, reason=one_line(error.cause or error)))
                    except ray.exceptions.RayError as error:  # its worker or node died more often than retried
                        events(Event("failed", task, where, reason=one_line(error)))
                    else:
                        events(Event("finished", task, f"{where}, node {host}", result))
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)  # as a crash: each run keeps its last (atomically saved) checkpoint
            raise
        finally:
            if started_here:
                ray.shutdown()


LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def import_ray(loopback: bool = False) -> Any:
    """Ray, told to keep every address on 127.0.0.1 for a cluster on this machine (a Ray started here, or
    one at a loopback address): otherwise it swaps 127.0.0.1 for the machine's outward address. The switch
    (Ray's own, named for the platforms where it is the default) is read when Ray is first imported."""
    if loopback and "ray" not in sys.modules:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError:
        raise ConfigError("--executor ray needs Ray: pip install 'translate[ray]' (or pip install ray)") from None
    return ray
