"""Stop signals during training: Ctrl-C (SIGINT) and SIGTERM (`kill`, a job scheduler, torchrun stopping
its workers) stop a run with a resumable checkpoint.

Inside the training loop a signal is held until the update under way is complete: a checkpoint written
halfway through an update (the dropout draws taken, some optimizer moments written) would resume as
another run. A second signal does not wait: the run then writes no checkpoint and resumes from its
last one. Outside the loop (preparing data, the last validation) a signal interrupts at once, as Python's
Ctrl-C does.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

HANDLED = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """What the loop asks at each step boundary: `received` names a held signal (None: none came)."""

    def __init__(self) -> None:
        self.received: str | None = None
        self._holding = False

    def handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if not self._holding or self.received is not None:
            raise KeyboardInterrupt(f"signal {name}")
        self.received = name

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold signals until the loop asks (`received`), for the duration of the block."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False

    def raise_if_received(self) -> None:
        if self.received is not None:
            raise KeyboardInterrupt(f"signal {self.received}")


@contextlib.contextmanager
def stop_signals() -> Iterator[StopSignals]:
    """Install the handlers for the block (main thread only: elsewhere signals stay Python's)."""
    signals = StopSignals()
    if threading.current_thread() is not threading.main_thread():
        yield signals
        return
    # a signal ignored by whoever started the process (SIGINT for a background job of a script) stays ignored
    previous = {signum: signal.signal(signum, signals.handle) for signum in HANDLED
                if signal.getsignal(signum) is not signal.SIG_IGN}
    try:
        yield signals
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
