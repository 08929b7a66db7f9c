"""The release rule: a candidate ships only if it beats the released model on the decision split with
p < 0.05 and is not worse on Tatoeba test beyond its interval; every missed condition is named."""

from __future__ import annotations

import random

from translate.evaluation.significance import Comparison
from translate.release.rule import Split, decide, judge


def comparison(delta: float, low: float, high: float, p: float) -> Comparison:
    return Comparison(20.0 + delta, 20.0, delta, low, high, p, 1, 1, False, low > 0 or high < 0, None)


def test_a_resolved_gain_that_costs_nothing_beyond_tests_interval_ships() -> None:
    verdict = judge(comparison(1.9, 0.7, 3.1, 0.002), comparison(-0.4, -1.1, 0.3, 0.31))
    assert verdict.ships and verdict.reasons == []


def test_each_missed_condition_is_named() -> None:
    unresolved = judge(comparison(1.0, -0.2, 2.2, 0.12), comparison(0.0, -0.5, 0.5, 1.0))
    assert not unresolved.ships and "p = 0.120 is not below 0.05" in unresolved.reasons[0]
    worse = judge(comparison(-0.3, -1.0, 0.4, 0.4), comparison(-1.2, -1.9, -0.5, 0.001))
    assert not worse.ships and len(worse.reasons) == 2
    assert "not better on the decision split" in worse.reasons[0] and "worse on Tatoeba test" in worse.reasons[1]
    lost_on_test = judge(comparison(2.0, 1.0, 3.0, 0.001), comparison(-0.8, -1.5, -0.1, 0.02))
    expected = "worse on Tatoeba test beyond its interval (-0.80 BLEU, [-1.50, -0.10])"
    assert not lost_on_test.ships and lost_on_test.reasons == [expected]
    # p exactly at alpha does not ship
    assert not judge(comparison(1.0, 0.0, 2.0, 0.05), comparison(0.0, -0.5, 0.5, 1.0)).ships


def test_from_hypotheses_identical_outputs_never_ship_and_a_clear_gain_does() -> None:
    rng = random.Random(0)
    words = ["the", "cat", "dog", "sat", "on", "a", "mat", "ran", "far", "home", "quickly"]
    refs = [" ".join(rng.choice(words) for _ in range(8)) for _ in range(300)]
    decision = test = Split("x", refs, refs)
    released = [" ".join(r.split()[:4]) for r in refs]  # half of each reference
    same = decide([released], [released], [refs], [refs], decision, test, "en", samples=200)
    assert not same.ships and same.decision.p_value == 1.0
    better = [" ".join(r.split()[:7]) for r in refs]
    gain = decide([better], [released], [refs], [refs], decision, test, "en", samples=200)
    assert gain.ships and gain.decision.delta > 10 and gain.test.delta == 0.0
