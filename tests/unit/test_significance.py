"""Significance over seeds: the seed-paired bootstrap against sacrebleu and on systems of known quality."""

import random

import pytest

from translate.evaluation.metrics import corpus_bleu, paired_bootstrap, seed_paired_bootstrap

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


def test_one_seed_reproduces_sacrebleu() -> None:
    a, b = _corrupt(REFS, 0.5, 1), _corrupt(REFS, 0.6, 2)
    paired, _ = paired_bootstrap([("b", b), ("a", a)], REFS, "en")
    result = seed_paired_bootstrap([a], [b], REFS, "en")
    assert result.p_value == pytest.approx(paired[1].p_value)
    assert result.mean_a == pytest.approx(corpus_bleu(a, REFS, "en"))
    assert result.seeds == 1


def test_clearly_better_mechanism_is_significant_over_seeds() -> None:
    better = [_corrupt(REFS, 0.3, seed) for seed in (1, 2, 3)]
    worse = [_corrupt(REFS, 0.6, seed + 10) for seed in (1, 2, 3)]
    result = seed_paired_bootstrap(better, worse, REFS, "en")
    assert result.mean_a > result.mean_b + 10
    assert result.p_value < 0.01


def test_equally_good_mechanisms_are_not_significant() -> None:
    first = [_corrupt(REFS, 0.5, seed) for seed in (1, 2, 3)]
    second = [_corrupt(REFS, 0.5, seed + 10) for seed in (1, 2, 3)]
    assert seed_paired_bootstrap(first, second, REFS, "en").p_value > 0.05


def test_needs_the_same_seeds_on_both_sides() -> None:
    with pytest.raises(ValueError, match="same number of runs"):
        seed_paired_bootstrap([REFS], [REFS, REFS], REFS, "en")
