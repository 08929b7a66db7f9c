"""What happens between two search steps: a deadline, so that work nobody waits for any more stops,
and a hook, so that a server can hand the model to another batch there.

The server sets both around a batch (`with deadline(at)`: a `time.monotonic()` instant; `with
between_steps(hook)`); every search (greedy, beam, constrained, the ONNX Runtime one) calls
`check_deadline()` once per step, which raises `SearchTimeout` once the instant has passed and then
calls the hook. Without either the check costs two context variable reads. No PyTorch here: the fast
path uses it too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from translate.errors import TranslateError

_DEADLINE: ContextVar[float | None] = ContextVar("search_deadline", default=None)
_BETWEEN: ContextVar[Callable[[], None] | None] = ContextVar("search_between_steps", default=None)


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


@contextmanager
def between_steps(hook: Callable[[], None] | None) -> Iterator[None]:
    """Searches inside call `hook()` between two steps (it may block: another batch's turn)."""
    token = _BETWEEN.set(hook)
    try:
        yield
    finally:
        _BETWEEN.reset(token)


def check_deadline() -> None:
    """Between two steps: SearchTimeout past the deadline, else the hook, if any."""
    at = _DEADLINE.get()
    if at is not None and time.monotonic() > at:
        raise SearchTimeout(f"search stopped at its deadline ({time.monotonic() - at:.2f} s past it)")
    hook = _BETWEEN.get()
    if hook is not None:
        hook()
