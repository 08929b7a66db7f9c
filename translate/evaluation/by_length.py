"""BLEU by source length: does a mechanism keep its quality on the longer sentences?

Bahdanau et al. 2015 (fig. 2) and Luong et al. 2015 (fig. 6) show attention's gain growing with
sentence length. The test split is cut at the quantiles of source length into groups of about equal
size (a length is never split between two groups), and each group is scored as its own corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

from translate.evaluation.metrics import corpus_bleu


def source_length(text: str, lang: str) -> int:
    """Words for space-separated languages; characters (spaces excluded) for Chinese."""
    return sum(1 for ch in text if not ch.isspace()) if lang == "zh" else len(text.split())


@dataclass
class Bucket:
    low: int  # shortest and longest source length in the group
    high: int
    indices: list[int]  # sentence numbers in the split

    @property
    def label(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}–{self.high}"


def length_buckets(sources: list[str], lang: str, count: int = 4) -> list[Bucket]:
    """At most `count` groups of sentences by source length, cut at the length quantiles."""
    lengths = [source_length(s, lang) for s in sources]
    ordered = sorted(lengths)
    cuts = sorted({ordered[len(ordered) * k // count - 1] for k in range(1, count)} | {ordered[-1]}) if ordered else []
    buckets, low = [], 0
    for high in cuts:
        members = [i for i, n in enumerate(lengths) if low < n <= high]
        if members:
            buckets.append(Bucket(min(lengths[i] for i in members), high, members))
        low = high
    return buckets


def bleu_by_length(hypotheses: list[list[str]], refs: list[str], buckets: list[Bucket], tgt_lang: str) -> list[float]:
    """BLEU of each group, the mean over runs (seeds) of one mechanism; hypotheses: one list per run."""
    return [sum(corpus_bleu([hyps[i] for i in b.indices], [refs[i] for i in b.indices], tgt_lang) for hyps in hypotheses)
            / len(hypotheses) for b in buckets]


def by_length_markdown(buckets: list[Bucket], bleu: dict[str, list[float]], unit: str) -> str:
    """The table of results.md: one row per mechanism, one column per group."""
    if not buckets:
        return ""
    head = " | ".join(f"{b.label} {unit} ({len(b.indices)})" for b in buckets)
    lines = ["", f"Test BLEU by source length (groups of about equal size; mean over seeds; {unit}, sentences):", "",
             f"| mechanism | {head} |", "|" + "---|" * (len(buckets) + 1)]
    lines += [f"| {name} | " + " | ".join(f"{value:.2f}" for value in values) + " |" for name, values in bleu.items()]
    return "\n".join(lines) + "\n"
