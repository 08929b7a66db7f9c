"""The seed-and-sentence test (`significance.seeds_and_sentences`) on synthetic score sets drawn from
the crossed design (shared sentence effects, seed effects, seed by sentence noise), with a cheap metric
(the mean of per-sentence scores): its size at nominal 5 % over a grid of seeds and seed spreads, its
power against Welch's t on the seeds' scores, equivalence, one-seed sides, and the seeds a power
analysis asks for. The full grid (300 and 2,000 sentences, more studies a cell) is
`python scripts/benchmark.py significance` (docs/results/significance.md)."""

from __future__ import annotations

import numpy as np
import pytest

from translate.evaluation.significance import holm, seeds_and_sentences, seeds_for_power, two_level_bootstrap, welch


def score(sums: np.ndarray) -> np.ndarray:
    """A synthetic corpus score: the mean of the per-sentence scores (column 0 sums them, column 1 counts)."""
    return sums[:, 0] / sums[:, 1]


def runs(rng: np.random.Generator, seeds: int, mean: float, seed_sd: float, shared: np.ndarray,
         noise_sd: float) -> list[np.ndarray]:
    """Per-sentence statistics of `seeds` runs: each run's own level (seed_sd apart), the sentences'
    shared effects, and each run's own per-sentence noise."""
    out = []
    for _ in range(seeds):
        values = rng.normal(mean, seed_sd) + shared + rng.normal(0, noise_sd, size=len(shared))
        out.append(np.stack([values, np.ones_like(values)], axis=1))
    return out


def corpus(side: list[np.ndarray]) -> list[float]:
    return [float(score(s.sum(axis=0)[None])[0]) for s in side]


GRID = [(seeds, spreads, shared) for seeds in (2, 3, 5, 10) for spreads in ((0.3, 0.3), (0.1, 0.8))
        for shared in (0.0, 15.0)]


def rejections(shift: float, studies: int, sentences: int = 300) -> tuple[float, float]:
    """Over the grid: the share of comparisons this test and Welch's call different at 5 %."""
    rng = np.random.default_rng(11)
    ours = theirs = total = 0
    for seeds, (sd_a, sd_b), shared_sd in GRID:
        for study in range(studies):
            shared = rng.normal(0, shared_sd, size=sentences)
            a = runs(rng, seeds, 30 + shift, sd_a, shared, 10.0)
            b = runs(rng, seeds, 30, sd_b, shared, 10.0)
            ours += seeds_and_sentences(a, b, score, samples=100, seed=study).p_value < 0.05
            theirs += welch(corpus(a), corpus(b)) < 0.05
            total += 1
    return ours / total, theirs / total


def test_its_size_is_near_the_nominal_five_percent_and_its_power_at_least_welchs() -> None:
    """1,600 null comparisons over 16 cells of the grid (seeds 2, 3, 5, 10; equal seed spreads and spreads
    8x apart; with and without shared sentence effects): the share called different is 5 % +- 1.5."""
    size, welch_size = rejections(0.0, 100)
    assert 0.035 <= size <= 0.065, (size, welch_size)
    power, welch_power = rejections(1.0, 40)
    assert power >= welch_power and power > 0.3, (power, welch_power)


def test_the_old_two_level_bootstrap_was_too_cautious_where_this_one_is_not() -> None:
    """The record of why the test changed: on the same null and shifted studies the old bootstrap, which
    counted each seed's sentence noise twice, called far fewer differences."""
    rng = np.random.default_rng(5)
    old = new = 0
    for study in range(60):
        shared = rng.normal(0, 15, size=300)
        a, b = runs(rng, 3, 31.0, 0.3, shared, 10.0), runs(rng, 3, 30.0, 0.3, shared, 10.0)
        old += two_level_bootstrap(a, b, score, samples=100, seed=study).p_value < 0.05
        new += seeds_and_sentences(a, b, score, samples=100, seed=study).p_value < 0.05
    assert new > old + 5


def test_a_huge_seed_spread_over_thousands_of_sentences_is_not_a_difference() -> None:
    """Seeds that differ by chance look like mechanisms that differ when only the sentences are resampled;
    with the seeds in the test they do not."""
    rng = np.random.default_rng(3)
    shared = rng.normal(0, 15, size=3000)
    a, b = runs(rng, 3, 30, 1.5, shared, 5.0), runs(rng, 3, 30, 1.5, shared, 5.0)
    held = seeds_and_sentences([np.concatenate(a)], [np.concatenate(b)], score, samples=200)
    both = seeds_and_sentences(a, b, score, samples=200)
    assert held.verdict == "not resolved" and not held.seed_variance_measured  # one "seed" a side: never decided
    assert both.seed_variance_measured and both.verdict in ("not resolved", "equivalent") and both.p_value > 0.05


def test_identical_outputs_are_a_tie_with_p_one_and_equivalent() -> None:
    same = [np.stack([np.zeros(50), np.ones(50)], axis=1)] * 3
    result = seeds_and_sentences(same, same, score, samples=100)
    assert result.p_value == 1.0 and result.delta == 0.0 and result.verdict == "equivalent"


def test_equivalence_needs_both_one_sided_tests_inside_the_margin() -> None:
    rng = np.random.default_rng(8)
    shared = rng.normal(0, 15, size=2000)
    a, b = runs(rng, 10, 30.0, 0.05, shared, 2.0), runs(rng, 10, 30.0, 0.05, shared, 2.0)
    tight = seeds_and_sentences(a, b, score, samples=200, margin=0.5)
    assert tight.verdict == "equivalent" and tight.equivalence_p is not None and tight.equivalence_p < 0.05
    loose = seeds_and_sentences(a[:2], b[:2], score, samples=200, margin=0.01)
    assert loose.verdict == "not resolved"


def test_one_seed_on_a_side_is_never_decided_and_keeps_the_other_sides_spread() -> None:
    """Three seeds spread widely against one: the old test fell back to the sentences alone (p 1e-13 for
    such a pair); here the three seeds' spread stays in the test and the verdict is never 'decided'."""
    rng = np.random.default_rng(1)
    shared = rng.normal(0, 15, size=1000)
    many = [runs(rng, 1, mean, 0.0, shared, 3.0)[0] for mean in (31.65, 30.75, 28.17)]
    one = runs(rng, 1, 30.0, 0.0, shared, 3.0)
    result = seeds_and_sentences(many, one, score, samples=200)
    assert not result.seed_variance_measured and result.verdict == "not resolved"
    assert result.ci_high - result.ci_low > 2 * 1.96 * np.std(corpus(many), ddof=1) / np.sqrt(3) * 0.9
    apart = seeds_and_sentences([runs(rng, 1, 40.0, 0.0, shared, 3.0)[0]], one, score, samples=200)
    assert apart.p_value < 1e-6 and apart.verdict == "not resolved"


def test_seeds_needed_come_from_a_power_analysis_and_cannot_only_when_the_test_set_is_too_small() -> None:
    # a 0.5 difference with seed SD 0.4 a side: 80 % power needs about 2 * (2.8 * 0.4 / 0.5)^2 = 10 seeds
    needed = seeds_for_power(0.5, [30.0, 30.4, 29.6], [30.1, 29.7, 30.5], test_set=0.0)
    assert needed is not None and 9 <= needed <= 13
    assert seeds_for_power(0.5, [30.0, 30.4, 29.6], [30.1, 29.7, 30.5], test_set=0.04) == 0  # 2.8 * 0.2 > 0.5
    assert seeds_for_power(0.5, [30.0], [30.1, 29.7], test_set=0.0) is None


def test_holm_adjusts_in_rank_order_and_keeps_monotone() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5] and holm([]) == []
    assert holm([0.02, 0.9]) == pytest.approx([0.04, 0.9])
