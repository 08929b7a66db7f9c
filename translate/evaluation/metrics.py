"""BLEU and chrF through sacrebleu, with the signature; Chinese targets use tokenize="zh"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

import numpy as np
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF


@dataclass
class EvalReport:
    bleu: float
    chrf: float
    bleu_signature: str
    chrf_signature: str
    length_ratio: float
    sentences: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        return (f"BLEU {self.bleu:.2f} ({self.bleu_signature})  chrF {self.chrf:.2f} ({self.chrf_signature})  "
                f"length ratio {self.length_ratio:.3f}  sentences {self.sentences}")


def bleu_metric(tgt_lang: str) -> BLEU:
    """`zh` tokenization for Chinese (13a would score unsegmented Chinese as single words), 13a otherwise."""
    return BLEU(tokenize="zh" if tgt_lang == "zh" else "13a")


def corpus_bleu(hyps: list[str], refs: list[str], tgt_lang: str) -> float:
    return float(bleu_metric(tgt_lang).corpus_score(hyps, [refs]).score)


def score(hyps: list[str], refs: list[str], tgt_lang: str) -> EvalReport:
    """Corpus BLEU and chrF2 of detokenized hypotheses against raw references (one reference each)."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses for {len(refs)} references")
    bleu, chrf = bleu_metric(tgt_lang), CHRF()
    bleu_score = bleu.corpus_score(hyps, [refs])
    return EvalReport(bleu=float(bleu_score.score), chrf=float(chrf.corpus_score(hyps, [refs]).score),
                      bleu_signature=str(bleu.get_signature()), chrf_signature=str(chrf.get_signature()),
                      length_ratio=float(bleu_score.sys_len / max(bleu_score.ref_len, 1)), sentences=len(hyps))


@dataclass
class PairedResult:
    """One system against the baseline: score, bootstrap mean ± 95 % half-width, p-value (None for the baseline)."""

    name: str
    score: float
    mean: float
    ci: float
    p_value: float | None


def paired_bootstrap(systems: list[tuple[str, list[str]]], refs: list[str], tgt_lang: str,
                     samples: int = 1000) -> tuple[list[PairedResult], str]:
    """sacrebleu's paired bootstrap resampling (Koehn 2004); the first system is the baseline.

    Returns one result per system (in order) and the signature (with seed and sample count).
    """
    from sacrebleu.significance import PairedTest

    metric = bleu_metric(tgt_lang)
    test = PairedTest(cast(list[tuple[str, Sequence[str]]], systems), {"BLEU": metric}, references=[refs], test_type="bs", n_samples=samples)
    signatures, scores = test()
    names = cast(list[str], scores["System"])
    measured = cast(list[Any], scores[next(k for k in scores if k != "System")])  # sacrebleu's Result objects
    results = [PairedResult(name, float(r.score), float(r.mean), float(r.ci),
                            None if i == 0 or r.p_value is None else float(r.p_value))
               for i, (name, r) in enumerate(zip(names, measured))]
    return results, str(next(iter(signatures.values())))


@dataclass
class SeedPairedResult:
    """Mechanism A against B over the seeds both have: mean BLEU of each, the p-value, the seeds paired."""

    mean_a: float
    mean_b: float
    p_value: float
    seeds: int


def seed_paired_bootstrap(runs_a: list[list[str]], runs_b: list[list[str]], refs: list[str], tgt_lang: str,
                          samples: int = 1000, seed: int = 12345) -> SeedPairedResult:
    """Paired bootstrap of two mechanisms over several seeds (runs_a[k] and runs_b[k] share seed k).

    Every resample draws one set of test sentences, scores all runs of both mechanisms on it and
    compares the mean over seeds, so seed variance and test-set variance both enter the test (the
    multi-optimizer-run setting of Clark et al. 2011). The statistic and p-value are computed as in
    sacrebleu's paired bootstrap, which this reproduces exactly for one seed per side.
    """
    if not runs_a or len(runs_a) != len(runs_b):
        raise ValueError(f"need the same number of runs on both sides, got {len(runs_a)} and {len(runs_b)}")
    metric = bleu_metric(tgt_lang)
    rng = np.random.default_rng(seed)
    idxs = rng.choice(len(refs), size=(samples, len(refs)), replace=True)

    def resampled(runs: list[list[str]]) -> tuple[float, np.ndarray]:
        real, sampled = [], []
        for hyps in runs:
            stats = metric._extract_corpus_statistics(hyps, [refs])
            real.append(metric._aggregate_and_compute(stats).score)
            array = np.array(stats, dtype="float32")
            sampled.append([metric._compute_score_from_stats(s.sum(0)).score for s in array[idxs]])
        return float(np.mean(real)), np.mean(np.array(sampled), axis=0)

    (mean_a, sampled_a), (mean_b, sampled_b) = resampled(runs_a), resampled(runs_b)
    sample_diffs = np.abs(sampled_a - sampled_b)
    stats = sample_diffs - sample_diffs.mean()
    p_value = (np.sum(stats > abs(mean_a - mean_b)).item() + 1) / (samples + 1)
    return SeedPairedResult(mean_a, mean_b, float(p_value), len(runs_a))
