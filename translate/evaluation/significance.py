"""Is mechanism A better than B when both seeds and test sentences vary? An effect size with its 95 %
interval and a p-value, Almost Stochastic Order over the seeds, a Holm correction across the
questions a report asks, and how many seeds would resolve a difference of the size observed.

The test is a two-level bootstrap (Clark et al. 2011's concern; the design of Koehn 2004's paired
bootstrap one level up): each resample draws the test sentences with replacement (the same draw for
both sides: sentences stay paired), then each side's seeds with replacement, and takes the
difference of the two sides' mean corpus scores. The interval and p-value come from that
difference's spread with a Student t of n_a + n_b - 2 degrees of freedom (the seeds are few: with 3 a
side, a normal interval would call identical mechanisms different about twice as often as it
promises); the spread puts back what resampling n seeds takes from their variance ((n - 1) / n of it). With one seed on a side, the seeds' variance is not measured: the test is then the
sentence bootstrap alone and says so (`seed_variance_measured`). A difference of exactly zero in
every resample (two identical sets of outputs) has p = 1.

Scores come as per-sentence sufficient statistics and a function from their column sums to the
corpus score, so BLEU (sacrebleu's statistics) and synthetic metrics use the same test.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

Scorer = Callable[[np.ndarray], np.ndarray]  # (R, K) summed statistics -> (R,) corpus scores
MAX_SEEDS_NEEDED = 100


@dataclass(frozen=True)
class Comparison:
    """A against B: `delta` = mean over A's seeds - mean over B's seeds of the corpus score, its 95 %
    interval, the two-sided p-value (before any correction), whether the interval excludes zero, ASO's
    eps_min over the seeds' scores (< 0.5: A tends to score above B; None when not computed), and the
    seeds per side that would resolve a difference of this size at the spread observed (None when it is
    resolved, 0 when more seeds cannot resolve it: the test sentences' own spread is larger)."""

    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    seeds_a: int
    seeds_b: int
    seed_variance_measured: bool
    resolved: bool
    seeds_needed: int | None
    aso_eps_min: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def two_level_bootstrap(stats_a: Sequence[np.ndarray], stats_b: Sequence[np.ndarray], scorer: Scorer,
                        samples: int = 1000, seed: int = 12345, aso: bool = False) -> Comparison:
    """Compare two mechanisms from each seed's per-sentence statistics (`stats_a[k]`: (N, K) for seed k
    of A; every array has the same N sentences in the same order). See the module's docstring."""
    if not stats_a or not stats_b:
        raise ValueError("need at least one seed on each side")
    sentences = {len(s) for s in (*stats_a, *stats_b)}
    if len(sentences) != 1:
        raise ValueError(f"every run must score the same sentences, got {sorted(sentences)} of them")
    rng = np.random.default_rng(seed)
    n = sentences.pop()
    rows = rng.integers(0, n, size=(samples, n))
    per_seed_a = np.stack([scorer(np.asarray(s, dtype=np.float64)[rows].sum(axis=1)) for s in stats_a])  # (Sa, R)
    per_seed_b = np.stack([scorer(np.asarray(s, dtype=np.float64)[rows].sum(axis=1)) for s in stats_b])  # (Sb, R)
    seeds_a, seeds_b = len(stats_a), len(stats_b)
    pick_a = rng.integers(0, seeds_a, size=(samples, seeds_a))
    pick_b = rng.integers(0, seeds_b, size=(samples, seeds_b))
    columns = np.arange(samples)[:, None]
    deltas = per_seed_a.T[columns, pick_a].mean(axis=1) - per_seed_b.T[columns, pick_b].mean(axis=1)  # (R,)
    sentence_only = per_seed_a.mean(axis=0) - per_seed_b.mean(axis=0)  # (R,): the seeds held as they are

    scores_a = [float(scorer(np.asarray(s, dtype=np.float64).sum(axis=0)[None])[0]) for s in stats_a]
    scores_b = [float(scorer(np.asarray(s, dtype=np.float64).sum(axis=0)[None])[0]) for s in stats_b]
    delta = float(np.mean(scores_a) - np.mean(scores_b))
    measured = seeds_a > 1 and seeds_b > 1
    df = float(seeds_a + seeds_b - 2) if measured else math.inf
    if measured:  # resampling n seeds shrinks their variance by (n - 1) / n: put the missing s^2 / n^2 back
        spread = math.sqrt(float(np.var(deltas, ddof=1)) + np.var(scores_a, ddof=1) / seeds_a ** 2
                           + np.var(scores_b, ddof=1) / seeds_b ** 2)
    else:
        spread = float(np.std(sentence_only, ddof=1))
    if spread == 0.0:
        p_value, low, high = (1.0, delta, delta) if delta == 0.0 else (0.0, delta, delta)
    else:
        t = _t(df)
        p_value = float(2 * scipy_stats.t.sf(abs(delta) / spread, df)) if measured else float(
            2 * scipy_stats.norm.sf(abs(delta) / spread))
        low, high = delta - t * spread, delta + t * spread
    resolved = low > 0 or high < 0
    needed = None if resolved else _seeds_needed(delta, scores_a, scores_b, float(np.var(sentence_only, ddof=1)))
    eps = aso_eps_min(scores_a, scores_b, seed=seed) if aso and measured else None
    return Comparison(float(np.mean(scores_a)), float(np.mean(scores_b)), delta, low, high, min(1.0, p_value),
                      seeds_a, seeds_b, measured, resolved, needed, eps)


def _t(df: float) -> float:
    return float(scipy_stats.norm.ppf(0.975)) if math.isinf(df) else float(scipy_stats.t.ppf(0.975, df))


def _seeds_needed(delta: float, scores_a: list[float], scores_b: list[float], sentence_var: float) -> int | None:
    """The fewest seeds per side whose interval would exclude zero for this `delta`, at the seeds'
    pooled variance and the sentences' own variance observed; 0 when no number of seeds would (the
    sentences' spread alone is too large); None when the seeds' variance is not measured."""
    if len(scores_a) < 2 or len(scores_b) < 2 or delta == 0.0:
        return None
    pooled = ((len(scores_a) - 1) * np.var(scores_a, ddof=1) + (len(scores_b) - 1) * np.var(scores_b, ddof=1)) / (
        len(scores_a) + len(scores_b) - 2)
    if abs(delta) <= _t(math.inf) * math.sqrt(sentence_var):
        return 0
    for seeds in range(2, MAX_SEEDS_NEEDED + 1):
        if _t(2 * seeds - 2) * math.sqrt(2 * pooled / seeds + sentence_var) < abs(delta):
            return seeds
    return 0


def aso_eps_min(scores_a: list[float], scores_b: list[float], seed: int = 12345, num_comparisons: int = 1) -> float:
    """Almost Stochastic Order (Dror et al. 2019; del Barrio et al. 2018) of A over B from the seeds'
    scores, by the `deepsig` package: eps_min < 0.5 says A tends to score higher, 0 that it
    stochastically dominates; the authors read < 0.2 as a clear win."""
    from deepsig import aso

    return float(aso(scores_a, scores_b, confidence_level=0.95, num_comparisons=num_comparisons, seed=seed,
                     show_progress=False, num_jobs=1))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (in the given order): the family-wise error rate of the whole
    set of questions stays at the level each is compared with."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def bleu_statistics(hyps: list[str], refs: list[str], metric: Any) -> np.ndarray:
    """sacrebleu's per-sentence BLEU sufficient statistics (N, K) for one run's hypotheses."""
    return np.array(metric._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)


def bleu_scorer(metric: Any) -> Scorer:
    """Corpus BLEU of each row of summed statistics, computed by sacrebleu itself."""
    def score(sums: np.ndarray) -> np.ndarray:
        return np.array([metric._compute_score_from_stats(list(row)).score for row in sums])
    return score


def compare_runs(runs_a: list[list[str]], runs_b: list[list[str]], refs: list[str], tgt_lang: str,
                 samples: int = 1000, seed: int = 12345, aso: bool = True) -> Comparison:
    """Test BLEU of mechanism A's runs (one hypothesis list per seed) against B's: `two_level_bootstrap`
    on sacrebleu's statistics (`tok:zh` for Chinese targets), with ASO over the seeds' BLEU."""
    from translate.evaluation.metrics import bleu_metric

    metric = bleu_metric(tgt_lang)
    return two_level_bootstrap([bleu_statistics(h, refs, metric) for h in runs_a],
                               [bleu_statistics(h, refs, metric) for h in runs_b], bleu_scorer(metric),
                               samples, seed, aso)
