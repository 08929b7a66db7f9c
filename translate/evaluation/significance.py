"""Is mechanism A better than B when both seeds and test sentences vary? An effect size with its 95 %
interval and a p-value, a verdict (decided, equivalent within a margin, or not resolved), Almost
Stochastic Order over the seeds, a Holm correction across the questions a report asks, and how many
seeds a side would give 80 % power for a difference of the size observed.

The test (`seeds_and_sentences`) is Welch's t on the seeds' corpus scores with the test set's own
component added, estimated without counting any noise twice. A seed's corpus score varies with its
training (the seed) and with how that seed's outputs happen to fare on these sentences (seed by
sentence noise): the seeds' sample variance s^2 holds both, so s_a^2 / n_a + s_b^2 / n_b is the
variance of the difference over training runs on this test set (Welch, with Welch-Satterthwaite's
degrees of freedom). What the test set adds when it is itself a sample of sentences is the spread of
the seed-averaged difference over resampled sentences, less the seed by sentence noise already in s^2:
a sentence bootstrap (the same draw for every run) gives the variance V of the difference of the two
sides' seed means and, per side, the variance W of each seed's deviation from its side's mean; the
test-set component is V - W_a / (n_a - 1) - W_b / (n_b - 1) (W * n / (n - 1) estimates one seed's
noise, of which its side's mean carries 1 / n), floored at zero. It does not shrink with more seeds.

With one seed on a side that side's seed variance is not measured: the test still runs (the other
side's spread stays in it, the one seed's sentence noise counts in V) but its verdict is never
"decided" nor "equivalent". "Equivalent" is two one-sided tests against a margin declared beforehand
(both at 5 %, the 90 % interval inside +-margin). The simulation grid that checks the size and power of
this test against Welch's is `tests/unit/test_seed_significance.py` (fast) and
`benchmarks/significance.py` (the full table, docs/results/significance.md).

Scores come as per-sentence sufficient statistics and a function from their column sums to the
corpus score, so BLEU (sacrebleu's statistics) and synthetic metrics use the same test. The earlier
two-level bootstrap (`two_level_bootstrap`) is kept for the record: it counted each seed's sentence
noise twice (its size at nominal 5 % was about 0.2 %, its power well below Welch's).
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
ALPHA = 0.05
POWER = 0.8  # the power `seeds_needed` plans for
MARGIN = 0.5  # BLEU: the default equivalence margin


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
    verdict: str = ""  # "decided", "equivalent" or "not resolved" (seeds_and_sentences)
    df: float = math.inf  # Welch-Satterthwaite degrees of freedom
    test_set_variance: float = 0.0  # the component more seeds do not shrink
    equivalence_p: float | None = None  # TOST at `margin`
    margin: float = MARGIN

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


def seeds_and_sentences(stats_a: Sequence[np.ndarray], stats_b: Sequence[np.ndarray], scorer: Scorer,
                        samples: int = 1000, seed: int = 12345, aso: bool = False, margin: float = MARGIN,
                        alpha: float = ALPHA) -> Comparison:
    """Compare A and B from each seed's per-sentence statistics (`stats_a[k]`: (N, K) for seed k of A;
    every array has the same N sentences in the same order): Welch on the seeds plus the test set's
    component (see the module's docstring); the verdict at `alpha`, equivalence against `margin`."""
    if not stats_a or not stats_b:
        raise ValueError("need at least one seed on each side")
    sentences = {len(s) for s in (*stats_a, *stats_b)}
    if len(sentences) != 1:
        raise ValueError(f"every run must score the same sentences, got {sorted(sentences)} of them")
    n = sentences.pop()
    rows = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    boot_a = np.stack([scorer(np.asarray(s, dtype=np.float64)[rows].sum(axis=1)) for s in stats_a])  # (na, R)
    boot_b = np.stack([scorer(np.asarray(s, dtype=np.float64)[rows].sum(axis=1)) for s in stats_b])  # (nb, R)
    scores_a = [float(scorer(np.asarray(s, dtype=np.float64).sum(axis=0)[None])[0]) for s in stats_a]
    scores_b = [float(scorer(np.asarray(s, dtype=np.float64).sum(axis=0)[None])[0]) for s in stats_b]
    na, nb = len(scores_a), len(scores_b)
    delta = float(np.mean(scores_a) - np.mean(scores_b))
    between = float(np.var(boot_a.mean(axis=0) - boot_b.mean(axis=0), ddof=1))  # V
    seed_parts, own_noise = [], 0.0
    for scores, boot, k in ((scores_a, boot_a, na), (scores_b, boot_b, nb)):
        if k > 1:
            seed_parts.append((float(np.var(scores, ddof=1)) / k, k - 1))
            own_noise += float(np.var(boot - boot.mean(axis=0), axis=1, ddof=1).mean()) / (k - 1)  # W / (k - 1)
    test_set = max(0.0, between - own_noise)
    variance = sum(v for v, _ in seed_parts) + test_set
    denominator = sum(v * v / dof for v, dof in seed_parts)
    df = variance * variance / denominator if denominator > 0 else math.inf
    measured = na > 1 and nb > 1
    if variance == 0.0:
        p_value, low, high = (1.0, delta, delta) if delta == 0.0 else (0.0, delta, delta)
        tost = 0.0 if abs(delta) < margin else 1.0
    else:
        se = math.sqrt(variance)
        p_value = float(2 * scipy_stats.t.sf(abs(delta) / se, df))
        half = float(scipy_stats.t.ppf(1 - alpha / 2, df)) * se
        low, high = delta - half, delta + half
        tost = float(max(scipy_stats.t.sf((delta + margin) / se, df), scipy_stats.t.cdf((delta - margin) / se, df)))
    resolved = p_value < alpha
    verdict = ("decided" if measured and resolved else "equivalent" if measured and tost < alpha else "not resolved")
    needed = None if verdict != "not resolved" else seeds_for_power(delta, scores_a, scores_b, test_set, alpha)
    eps = aso_eps_min(scores_a, scores_b, seed=seed) if aso and measured else None
    return Comparison(float(np.mean(scores_a)), float(np.mean(scores_b)), delta, low, high, min(1.0, p_value),
                      na, nb, measured, resolved, needed, eps, verdict, df, test_set, tost, margin)


def seeds_for_power(delta: float, scores_a: list[float], scores_b: list[float], test_set: float,
                    alpha: float = ALPHA, power: float = POWER) -> int | None:
    """The seeds a side that give `power` (80 %) to find a true difference of |delta| by this test at
    `alpha`, with the seed variances observed (pooled) and the test-set component, which more seeds do
    not shrink: 0 ("cannot") where that component alone keeps the power below `power`; MAX_SEEDS_NEEDED + 1
    where more than MAX_SEEDS_NEEDED are needed; None where a side's seed variance is not measured or delta is 0."""
    if len(scores_a) < 2 or len(scores_b) < 2 or delta == 0.0:
        return None
    pooled = ((len(scores_a) - 1) * np.var(scores_a, ddof=1) + (len(scores_b) - 1) * np.var(scores_b, ddof=1)) / (
        len(scores_a) + len(scores_b) - 2)
    z = float(scipy_stats.norm.ppf(1 - alpha / 2) + scipy_stats.norm.ppf(power))
    if z * math.sqrt(test_set) >= abs(delta):
        return 0
    for seeds in range(2, MAX_SEEDS_NEEDED + 1):
        variance = 2 * pooled / seeds + test_set
        df = (variance ** 2 / (2 * (pooled / seeds) ** 2 / (seeds - 1))) if pooled > 0 else math.inf
        quantiles = float(scipy_stats.t.ppf(1 - alpha / 2, df) + scipy_stats.t.ppf(power, df))
        if quantiles * math.sqrt(variance) <= abs(delta):
            return seeds
    return MAX_SEEDS_NEEDED + 1  # more than the most a report names


def welch(scores_a: Sequence[float], scores_b: Sequence[float]) -> float:
    """Welch's t-test's two-sided p on the seeds' corpus scores alone (the yardstick of the simulation)."""
    return float(scipy_stats.ttest_ind(scores_a, scores_b, equal_var=False).pvalue)


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
                 samples: int = 1000, seed: int = 12345, aso: bool = True, margin: float = MARGIN) -> Comparison:
    """Test BLEU of mechanism A's runs (one hypothesis list per seed) against B's: `seeds_and_sentences`
    on sacrebleu's statistics (`tok:zh` for Chinese targets), with ASO over the seeds' BLEU."""
    from translate.evaluation.metrics import bleu_metric

    metric = bleu_metric(tgt_lang)
    return seeds_and_sentences([bleu_statistics(h, refs, metric) for h in runs_a],
                               [bleu_statistics(h, refs, metric) for h in runs_b], bleu_scorer(metric),
                               samples, seed, aso, margin)
