"""The two-level bootstrap on synthetic score sets with known answers: identical mechanisms are
called different no more often than promised, a shift larger than the seeds' spread is found, and a
huge seed spread over thousands of sentences is not mistaken for a difference (the sentence-only
bootstrap mistakes it)."""

from __future__ import annotations

import numpy as np
import pytest

from translate.evaluation.significance import holm, two_level_bootstrap


def score(sums: np.ndarray) -> np.ndarray:
    """A synthetic corpus score: the mean of the per-sentence scores (column 0 sums them, column 1 counts)."""
    return 100 * sums[:, 0] / sums[:, 1]


def runs(rng: np.random.Generator, seeds: int, mean: float, seed_sd: float, difficulty: np.ndarray,
         noise_sd: float) -> list[np.ndarray]:
    """Per-sentence statistics of `seeds` runs: each run's own level (seed_sd apart), the sentences'
    shared difficulty, and per-sentence noise."""
    out = []
    for _ in range(seeds):
        level = rng.normal(mean, seed_sd)
        values = level + difficulty + rng.normal(0, noise_sd, size=len(difficulty))
        out.append(np.stack([values, np.ones_like(values)], axis=1))
    return out


def rejection_rate(studies: int, seeds: int, shift: float, seed_sd: float, sentences: int, noise_sd: float) -> float:
    rng = np.random.default_rng(7)
    rejected = 0
    for study in range(studies):
        difficulty = rng.normal(0, 0.2, size=sentences)
        a = runs(rng, seeds, 0.3 + shift, seed_sd, difficulty, noise_sd)
        b = runs(rng, seeds, 0.3, seed_sd, difficulty, noise_sd)
        rejected += two_level_bootstrap(a, b, score, samples=300, seed=study).p_value < 0.05
    return rejected / studies


def test_identical_mechanisms_are_called_different_no_more_often_than_promised() -> None:
    # 3 seeds a side, seed spread comparable to the sentences' noise: 5 % promised
    assert rejection_rate(200, seeds=3, shift=0.0, seed_sd=0.01, sentences=300, noise_sd=0.1) <= 0.075


def test_a_shift_larger_than_the_seed_spread_is_found() -> None:
    assert rejection_rate(50, seeds=5, shift=0.04, seed_sd=0.01, sentences=300, noise_sd=0.1) >= 0.9


def test_a_huge_seed_spread_over_thousands_of_sentences_is_not_a_difference() -> None:
    """What the sentence-only bootstrap got wrong: seeds that differ by chance look like mechanisms that
    differ when only the sentences are resampled."""
    assert rejection_rate(100, seeds=3, shift=0.0, seed_sd=0.05, sentences=3000, noise_sd=0.05) <= 0.075
    rng = np.random.default_rng(3)
    difficulty = rng.normal(0, 0.2, size=3000)
    a, b = runs(rng, 3, 0.3, 0.05, difficulty, 0.05), runs(rng, 3, 0.3, 0.05, difficulty, 0.05)
    # the sentences alone: each seed's outputs held fixed, as the sentence-only test holds them
    held = two_level_bootstrap([np.concatenate(a)], [np.concatenate(b)], score, samples=300)
    both = two_level_bootstrap(a, b, score, samples=300)
    assert held.resolved and held.p_value < 0.001  # the seeds' chance difference, read as the mechanisms'
    assert both.seed_variance_measured and not both.resolved and both.p_value > 0.05


def test_identical_outputs_are_a_tie_with_p_one() -> None:
    same = [np.stack([np.zeros(50), np.ones(50)], axis=1)] * 3
    result = two_level_bootstrap(same, same, score, samples=100)
    assert result.p_value == 1.0 and result.delta == 0.0 and not result.resolved


def test_one_seed_a_side_says_the_seed_variance_is_not_measured() -> None:
    rng = np.random.default_rng(1)
    difficulty = rng.normal(0, 0.2, size=400)
    result = two_level_bootstrap(runs(rng, 1, 0.5, 0.0, difficulty, 0.1), runs(rng, 1, 0.3, 0.0, difficulty, 0.1),
                                 score, samples=200)
    assert not result.seed_variance_measured and result.resolved and result.seeds_needed is None


def test_the_seeds_needed_to_resolve_an_unresolved_difference() -> None:
    rng = np.random.default_rng(5)
    difficulty = rng.normal(0, 0.2, size=2000)
    a = runs(rng, 3, 0.32, 0.02, difficulty, 0.02)
    b = runs(rng, 3, 0.30, 0.02, difficulty, 0.02)
    result = two_level_bootstrap(a, b, score, samples=300)
    if not result.resolved:
        assert result.seeds_needed is not None and result.seeds_needed > 3


def test_holm_adjusts_in_rank_order_and_keeps_monotone() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5] and holm([]) == []
    assert holm([0.02, 0.9]) == pytest.approx([0.04, 0.9])
