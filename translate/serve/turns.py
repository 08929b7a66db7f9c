"""Turns on the model: batches searched in several worker threads, one at a time, handed over
between search steps to the batch that has had the least of the model's time.

A batch claims a turn before it touches the model and gives it back when done. Between two steps
(`inference.deadline.between_steps`) the holder reckons the time it held the model; once it has held
it for `quantum_s` and a waiting batch has used less, the holder waits and that batch goes on. A
batch starts with the least time of those searching (start-time fair queueing), so a new client's
single sentence goes ahead of a long search already under way, without starving it: each gets the
model in turn, in slices of about one step. The model is still used by one thread at a time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from translate.inference.deadline import SearchTimeout


@dataclass(eq=False)
class Claim:
    """One batch's place: the model time it has used (seconds, plus where it started) and since when
    it holds the model."""

    used: float
    at: float | None  # its deadline (time.monotonic()), None: none
    since: float = 0.0


class Turns:
    def __init__(self, quantum_s: float = 0.01, clock: Callable[[], float] = time.monotonic) -> None:
        self.quantum_s, self.clock = quantum_s, clock
        self._cond = threading.Condition()
        self._holder: Claim | None = None
        self._waiting: list[Claim] = []  # in order of arrival
        self.handovers = 0  # turns handed over between steps (for tests and logs)

    @contextmanager
    def claim(self, at: float | None = None) -> Iterator[Claim]:
        """Hold the model inside the block (waiting for a turn first); SearchTimeout if `at` passes
        while waiting."""
        with self._cond:
            claimed = [c for c in (self._holder, *self._waiting) if c is not None]
            claim = Claim(min((c.used for c in claimed), default=0.0), at)
            self._waiting.append(claim)
            if self._holder is None:
                self._hand_over()
            self._wait_for_turn(claim)
        try:
            yield claim
        finally:
            with self._cond:
                if self._holder is claim:
                    self._holder = None
                    self._hand_over()
                elif claim in self._waiting:
                    self._waiting.remove(claim)

    def between_steps(self, claim: Claim) -> None:
        """The holder's step boundary: hand the model over when its slice is used up and a batch
        that has used less is waiting; back here when it is this batch's turn again."""
        now = self.clock()
        if now - claim.since < self.quantum_s:
            return
        with self._cond:
            claim.used += now - claim.since
            claim.since = now
            if not self._waiting or min(c.used for c in self._waiting) >= claim.used:
                return
            self._waiting.append(claim)
            self._holder = None
            self._hand_over()
            self.handovers += 1
            self._wait_for_turn(claim)

    @property
    def searching(self) -> int:
        """Batches holding or waiting for the model."""
        with self._cond:
            return len(self._waiting) + (self._holder is not None)

    def _hand_over(self) -> None:
        """To the waiting batch that has used least (the first to arrive of equals); under the lock."""
        if self._waiting:
            chosen = min(self._waiting, key=lambda c: c.used)
            self._waiting.remove(chosen)
            self._holder = chosen
            self._cond.notify_all()

    def _wait_for_turn(self, claim: Claim) -> None:
        """Under the lock: until `claim` holds the model, or its deadline passes (SearchTimeout)."""
        while self._holder is not claim:
            left = None if claim.at is None else claim.at - self.clock()
            if left is not None and left <= 0:
                self._waiting.remove(claim)
                raise SearchTimeout("search stopped at its deadline while waiting for the model")
            self._cond.wait(left)
        claim.since = self.clock()
