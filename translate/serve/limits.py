"""Per-client rate limiting (a token bucket per address) and the API key check; pure, clock injected."""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """`rate` tokens per second up to `burst`, one bucket per key; a request takes one token."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 10_000) -> None:
        self.rate, self.burst, self.clock, self.max_clients = rate, burst, clock, max_clients
        self._buckets: dict[str, _Bucket] = {}

    def acquire(self, key: str, cost: float = 1.0) -> float:
        """0 when allowed (`cost` tokens are taken), else the seconds until they are available (a cost
        above the burst is taken from a full bucket)."""
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_clients:  # forget full buckets: they behave as new ones
                self._buckets = {k: b for k, b in self._buckets.items() if self._level(b, now) < self.burst}
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens, bucket.updated = self._level(bucket, now), now
        cost = min(cost, float(self.burst))
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return 0.0
        return (cost - bucket.tokens) / self.rate

    def spend(self, key: str, cost: float) -> None:
        """Take `cost` tokens whether or not they are there (down to an empty bucket): the price of a
        refused API key, so that guessing keys runs into the limit."""
        self.acquire(key, 0.0)
        bucket = self._buckets[key]
        bucket.tokens = max(0.0, bucket.tokens - cost)

    def charge(self, key: str, cost: float, most: float) -> None:
        """Take `cost` tokens as a debt: the bucket may go below empty, down to `-most`, so work that took
        long (seconds of a worker's time, charged after it was done) keeps the client waiting in proportion."""
        self.acquire(key, 0.0)
        bucket = self._buckets[key]
        bucket.tokens = max(-most, bucket.tokens - cost)

    def _level(self, bucket: _Bucket, now: float) -> float:
        return min(float(self.burst), bucket.tokens + (now - bucket.updated) * self.rate)


def retry_after(seconds: float) -> str:
    """The Retry-After header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))


def key_given(headers: dict[str, str]) -> bool:
    """Whether the headers carry a key at all (`X-API-Key` or `Authorization: Bearer`)."""
    return bool(headers.get("x-api-key") or headers.get("authorization", "").lower().startswith("bearer "))


def key_matches(expected: str, headers: dict[str, str], body_key: str | None = None) -> bool:
    """True when no key is configured, or `X-API-Key` / `Authorization: Bearer` / the body's `api_key`
    (LibreTranslate's clients send it there) carries it; the headers win when both are sent."""
    if not expected:
        return True
    given = headers.get("x-api-key", "")
    auth = headers.get("authorization", "")
    if not given and auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    if not given:
        given = body_key or ""
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode())
