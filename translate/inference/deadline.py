"""A deadline for searches: work that nobody waits for any more stops between two search steps.

The server sets it around a batch (`with deadline(at)`: a `time.monotonic()` instant); every search
(greedy, beam, constrained, the ONNX Runtime one) calls `check_deadline()` once per step, which
raises `SearchTimeout` once the instant has passed. Without a deadline the check costs one context
variable read. No PyTorch here: the fast path uses it too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from translate.errors import TranslateError

_DEADLINE: ContextVar[float | None] = ContextVar("search_deadline", default=None)


class SearchTimeout(TranslateError):
    """The search passed its deadline and stopped."""


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Searches inside stop at `at` (time.monotonic(); None: never)."""
    token = _DEADLINE.set(at)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_deadline() -> None:
    at = _DEADLINE.get()
    if at is not None and time.monotonic() > at:
        raise SearchTimeout(f"search stopped at its deadline ({time.monotonic() - at:.2f} s past it)")
