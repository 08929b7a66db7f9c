"""Significance over seeds on BLEU: the two-level bootstrap on real sacrebleu statistics, on systems of known quality."""

import random

import pytest

from translate.evaluation.metrics import corpus_bleu
from translate.evaluation.significance import compare_runs

WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "sat",
    "on",
    "mat",
    "ran",
    "far",
    "away",
    "home",
    "today",
    "we",
    "they",
    "saw",
    "big",
    "small",
    "red",
    "house",
    "tree",
]


def _sentences(count: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12))) for _ in range(count)]


def _corrupt(refs: list[str], share: float, seed: int) -> list[str]:
    """Each sentence replaced by a random one with probability `share` (deterministic per seed)."""
    rng = random.Random(seed)
    return [_sentences(1, rng)[0] if rng.random() < share else ref for ref in refs]


REFS = _sentences(200, random.Random(0))


def test_one_seed_a_side_gives_the_sentence_bootstrap_and_the_corpus_scores() -> None:
    a, b = _corrupt(REFS, 0.3, 1), _corrupt(REFS, 0.6, 2)
    result = compare_runs([a], [b], REFS, "en", samples=300, aso=False)
    assert result.mean_a == pytest.approx(corpus_bleu(a, REFS, "en"))
    assert result.mean_b == pytest.approx(corpus_bleu(b, REFS, "en"))
    assert not result.seed_variance_measured and result.ci_low < result.delta < result.ci_high


def test_clearly_better_mechanism_is_found_over_seeds() -> None:
    better = [_corrupt(REFS, 0.3, seed) for seed in (1, 2, 3)]
    worse = [_corrupt(REFS, 0.6, seed + 10) for seed in (1, 2, 3)]
    result = compare_runs(better, worse, REFS, "en", samples=300)
    assert result.mean_a > result.mean_b + 10
    assert result.p_value < 0.01 and result.resolved and result.ci_low > 0
    assert result.aso_eps_min is not None and result.aso_eps_min < 0.2


def test_equally_good_mechanisms_are_not_found_different() -> None:
    first = [_corrupt(REFS, 0.5, seed) for seed in (1, 2, 3)]
    second = [_corrupt(REFS, 0.5, seed + 10) for seed in (1, 2, 3)]
    result = compare_runs(first, second, REFS, "en", samples=300, aso=False)
    assert result.p_value > 0.05 and not result.resolved


def test_every_run_scores_the_same_sentences() -> None:
    with pytest.raises(ValueError, match="same sentences"):
        compare_runs([REFS], [REFS[:-1]], REFS, "en")
