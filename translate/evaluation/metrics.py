"""BLEU and chrF through sacrebleu, with the signature; Chinese targets use tokenize="zh"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

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


def sentence_chrf(hyps: list[str], refs: list[str]) -> list[float]:
    """Each hypothesis's chrF against its reference (sacrebleu's defaults, as `score`'s corpus chrF)."""
    metric = CHRF()
    return [metric.sentence_score(hyp, [ref]).score for hyp, ref in zip(hyps, refs)]


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
