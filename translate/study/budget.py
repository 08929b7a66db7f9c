"""What a search's trials say beyond their best: the expected best dev score after n trials (Dodge et
al. 2019, "Show Your Work": the expected maximum of n trials drawn from those run), and the choices that
lie at an edge of the searched range, where the best may lie outside it. Pure functions of the scores."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

EDGE = 0.1  # a choice within this share of the range from a bound is at an edge
GEOMETRIC = 4.0  # positive values spanning at least this ratio are read on a log scale (learning rates)


def expected_best(scores: Sequence[float], trials: int) -> float:
    """The expected maximum of `trials` draws (with replacement) from `scores`: with v(1) <= ... <= v(N)
    sorted, sum over i of v(i) * ((i/N)^n - ((i-1)/N)^n). One trial: the mean; many: the maximum."""
    if not scores or trials < 1:
        raise ValueError("expected_best needs scores and at least one trial")
    ordered, total = sorted(scores), len(scores)
    return sum(v * ((i / total) ** trials - ((i - 1) / total) ** trials) for i, v in enumerate(ordered, start=1))


def expected_best_curve(scores: Sequence[float]) -> list[float]:
    """`expected_best` for 1, 2, ..., len(scores) trials (non-decreasing)."""
    return [expected_best(scores, n) for n in range(1, len(scores) + 1)]


def edge(chosen: float, searched: Sequence[float], log: bool | None = None) -> str | None:
    """"lower" or "upper" where `chosen` lies within EDGE of the range's width from that bound of
    `searched`, else None; None too where one value alone was searched (no range). The width is read on
    a log scale where `log` says so (a tuner's log-uniform range) or, where `log` is None (a grid's list
    of values), where the values are positive and span GEOMETRIC or more."""
    low, high = min(searched), max(searched)
    if low == high:
        return None
    geometric = low > 0 and (high / low >= GEOMETRIC if log is None else log)

    def scale(x: float) -> float:
        return math.log(x) if geometric else x

    width = scale(high) - scale(low)
    if scale(chosen) - scale(low) <= EDGE * width:
        return "lower"
    if scale(high) - scale(chosen) <= EDGE * width:
        return "upper"
    return None


def numeric(value: str) -> float | None:
    """A searched value as a number (None for a word: a scorer, a mode)."""
    try:
        return float(value)
    except ValueError:
        return None


def edges(chosen: dict[str, str], searched: dict[str, list[str]],
          log: Mapping[str, bool] | None = None) -> dict[str, str]:
    """The keys of a choice that lie at an edge of their searched values: {key: "lower" | "upper"}
    (numeric keys only); `log` gives a key's scale where it is known (see `edge`)."""
    found = {}
    for key, value in chosen.items():
        values = [numeric(v) for v in searched.get(key, [])]
        number = numeric(value)
        if number is None or not values or any(v is None for v in values):
            continue
        side = edge(number, [v for v in values if v is not None], (log or {}).get(key))
        if side:
            found[key] = side
    return found
