"""Cleaning: whitespace normalisation, empty/over-long/length-ratio filters, duplicate pairs; all counted."""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from translate.errors import DataError

if TYPE_CHECKING:
    import datasets

logger = logging.getLogger(__name__)

# Zero-width characters and the BOM are dropped; every other Unicode space (incl. U+3000) collapses.
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = re.compile(r"\s+")


def normalize_whitespace(text: str) -> str:
    """Drop zero-width and control characters, collapse all whitespace runs to one space, strip."""
    text = _CONTROL.sub(" ", _ZERO_WIDTH.sub("", text))
    return _SPACES.sub(" ", text).strip()


@dataclass
class CleanReport:
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        parts = ", ".join(f"{n} {reason}" for reason, n in sorted(self.dropped.items()))
        return f"kept {self.kept} pairs" + (f"; dropped {parts}" if parts else "")


ZH_SHARE = 0.3  # text whose letters are at least this share Han is Chinese


def _is_han(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf" or "\uf900" <= c <= "\ufaff"


def han_share(texts: list[str]) -> float:
    """Share of letters (Han or alphabetic; digits, punctuation and spaces do not count) that are
    Han characters (CJK unified ideographs with extension A, and compatibility ideographs)."""
    letters = [c for text in texts for c in text if c.isalpha()]
    return sum(_is_han(c) for c in letters) / max(len(letters), 1)


def detect_language(text: str) -> str:
    """The one language detector: "zh" when at least ZH_SHARE of the letters are Han, else "en".
    Mixed input counts letters, so "我用Python写代码" (5 Han of 11 letters) is Chinese and
    "I love 北京" (2 of 7) English; text without letters ("123") is English.
    The swapped-column check uses the same measure and threshold."""
    return "zh" if han_share([text]) >= ZH_SHARE else "en"


def check_columns(ds: datasets.Dataset, where: str, sample: int = 2000) -> None:
    """Stop when the `en` column looks Chinese and the `zh` column does not: swapped columns would
    silently train the opposite direction."""
    rows = ds.select(range(min(sample, len(ds))))
    en_han, zh_han = han_share(list(rows["en"])), han_share(list(rows["zh"]))
    if en_han >= ZH_SHARE and zh_han < 0.1:
        raise DataError(f"{where}: the columns look swapped: the English column is {en_han:.0%} Han characters, "
                        f"the Chinese column {zh_han:.0%}; put English first (e.g. awk -F'\\t' -v OFS='\\t' "
                        f"'{{print $2, $1}}'), or set data.check_columns=false if this is intended")


def clean(ds: datasets.Dataset, max_chars: int, max_ratio: float, filter_training: bool) -> tuple[datasets.Dataset, CleanReport]:
    """Normalise whitespace; for training data also drop empty, over-long, badly-ratioed and duplicate pairs.

    Dev/test data (`filter_training=False`) keep every row so scores stay comparable. Streams over
    the corpus in chunks; duplicates are found from one 64-bit hash per pair (8 bytes a pair, not
    the strings), keeping the first occurrence.
    """
    import datasets  # only corpus preparation needs these; translating imports this module too
    import numpy as np
    import pyarrow as pa
    from datasets.table import InMemoryTable

    report = CleanReport()
    tables: list[pa.Table] = []
    hashes: list[np.ndarray] = []
    began, seen = time.monotonic(), 0
    for chunk in ds.select_columns(["en", "zh"]).iter(batch_size=100_000):
        seen += len(chunk["en"])
        if seen % 500_000 == 0:
            elapsed = time.monotonic() - began
            logger.info("cleaning: %s of %s pairs, %s pairs/s, ETA %d s", f"{seen:,}", f"{len(ds):,}",
                        f"{seen / elapsed:,.0f}", round(elapsed * (len(ds) - seen) / seen))
        en_out: list[str] = []
        zh_out: list[str] = []
        for en_raw, zh_raw in zip(chunk["en"], chunk["zh"]):
            en, zh = normalize_whitespace(en_raw), normalize_whitespace(zh_raw)
            reason = _reject_reason(en, zh, max_chars, max_ratio) if filter_training else None
            if reason:
                report.dropped[reason] += 1
                continue
            en_out.append(en)
            zh_out.append(zh)
        tables.append(pa.table({"en": pa.array(en_out, pa.string()), "zh": pa.array(zh_out, pa.string())}))
        if filter_training:
            hashes.append(np.fromiter((hash(pair) for pair in zip(en_out, zh_out)), np.int64, len(en_out)))
    table = pa.concat_tables(tables) if tables else pa.table({"en": pa.array([], pa.string()), "zh": pa.array([], pa.string())})
    if hashes:
        all_hashes = np.concatenate(hashes)
        first = np.sort(np.unique(all_hashes, return_index=True)[1])
        if len(first) < len(all_hashes):
            report.dropped["duplicate"] += len(all_hashes) - len(first)
            table = table.take(pa.array(first))
    report.kept = len(table)
    return datasets.Dataset(InMemoryTable(table)), report


def _reject_reason(en: str, zh: str, max_chars: int, max_ratio: float) -> str | None:
    if not en or not zh:
        return "empty"
    if len(en) > max_chars or len(zh) > max_chars:
        return "over-long"
    # English characters vs Chinese characters: ~2-4 en chars per zh char is normal; compare in that unit.
    ratio = (len(en) / 3 + 1) / (len(zh) + 1)
    if ratio > max_ratio or 1 / ratio > max_ratio:
        return "length-ratio"
    return None
