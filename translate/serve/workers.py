"""The work a request needs before and after its search (reading its body, reading HTML, choosing each
text's model, protecting spans, counting pieces and attention cells, building the reply) in a pool of
its own, with owners: each client has at most one such job running at a time (its next ones wait in
its own line, on nothing shared), and the seconds each job takes beyond `FREE_S` (what a request's own
token of the rate pays for) are charged to the client's rate, refused requests included, as a debt:
a document that took 10 s to read keeps its client waiting about as long as 10 s of work costs.

So no per-text work runs on the event loop (`/health` and every other route answer while a client's
texts are read), and no client holds more than one of the pool's threads: a burst of documents that
are expensive to parse from one address waits behind itself while another client's request is read
at once. A job past its time limit is answered 503 at that time; its thread finishes its work
and only then lets the client's next job start, so a client still holds one thread at most."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.exceptions import HTTPException

from translate.serve.limits import RateLimiter

T = TypeVar("T")
FREE_S = 0.05  # seconds of a job paid for by its request's token of the rate
MAX_DEBT_S = 600.0  # the longest a client's charged work may keep it waiting (seconds of its rate)


class _Line:
    """One client's jobs: one running, the others waiting on its lock."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class Workers:
    def __init__(self, threads: int, limiter: RateLimiter | None = None, tokens_per_second: float = 0.0) -> None:
        """`threads`: the pool's size; `limiter`: the clients' rate, charged `tokens_per_second` per
        second of a client's work (0: not charged)."""
        self.limiter, self.tokens_per_second = limiter, tokens_per_second
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="translate-prepare")
        self._lines: dict[str, _Line] = {}
        self.seconds: dict[str, float] = {}  # work done per client since start (for tests and logs)

    def running(self, client: str) -> bool:
        """Whether `client` has a job running or waiting."""
        return client in self._lines

    async def run(self, client: str, work: Callable[..., T], *args: Any, timeout_s: float | None = None,
                  refusal: str = "the request could not be handled", charge: bool = True) -> T:
        """`work(*args)` in the pool, after `client`'s earlier jobs; 503 past `timeout_s` seconds of running
        (not of waiting for the client's own earlier jobs). `charge`: False for work done once for every
        client (a study's test-set scores, kept once computed), which no client should pay for alone."""
        line = self._lines.setdefault(client, _Line())
        line.users += 1
        released = False
        try:
            await line.lock.acquire()
            loop = asyncio.get_running_loop()
            started = time.monotonic()
            future = loop.run_in_executor(self._pool, work, *args)

            def done(_: Any) -> None:  # when the thread is done, not when its waiter gave up
                spent = time.monotonic() - started
                self.seconds[client] = self.seconds.get(client, 0.0) + spent
                if charge and self.limiter is not None and self.tokens_per_second and spent > FREE_S:
                    self.limiter.charge(client, (spent - FREE_S) * self.tokens_per_second, MAX_DEBT_S * self.limiter.rate)
                self._release(client, line)

            future.add_done_callback(done)
            released = True
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout_s)
            except TimeoutError:
                raise HTTPException(503, f"{refusal} within {timeout_s:g} s") from None
        finally:
            if not released:  # cancelled while waiting for its turn
                self._leave(client, line)

    def _release(self, client: str, line: _Line) -> None:
        line.lock.release()
        self._leave(client, line)

    def _leave(self, client: str, line: _Line) -> None:
        line.users -= 1
        if line.users == 0 and self._lines.get(client) is line:
            del self._lines[client]

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
