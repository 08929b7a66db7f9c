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
    from collections.abc import Iterator
    from pathlib import Path

    import datasets
    import numpy as np
    import pyarrow as pa

logger = logging.getLogger(__name__)

# Zero-width characters and the BOM are dropped; every other Unicode space (incl. U+3000) collapses.
# zero-width characters, but not the joiner inside an emoji sequence (👨‍👩‍👧: three people as one family)
_ZERO_WIDTH = re.compile("[\u200b\u200c\u2060\ufeff]|(?<![\ufe0f\u2600-\u27bf\U0001F000-\U0001FAFF])\u200d"
                         "|\u200d(?![\u2600-\u27bf\U0001F000-\U0001FAFF])")
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


def language_confidence(texts: list[str]) -> dict[str, float]:
    """How sure the one detector is, per language, in percent (the two sum to 100): the Han share of
    the letters mapped piecewise-linearly so that ZH_SHARE (the decision point) is 50 and all-Han is
    100 for "zh"; text without letters is 0 for both (nothing to go on)."""
    if not any(c.isalpha() for text in texts for c in text):
        return {"en": 0.0, "zh": 0.0}
    share = han_share(texts)
    zh = 50 * share / ZH_SHARE if share < ZH_SHARE else 50 + 50 * (share - ZH_SHARE) / (1 - ZH_SHARE)
    return {"zh": round(zh, 1), "en": round(100 - zh, 1)}


def check_columns(ds: datasets.Dataset, where: str, sample: int = 2000) -> None:
    """Stop when the `en` column looks Chinese and the `zh` column does not: swapped columns would
    silently train the opposite direction."""
    rows = ds.select(range(min(sample, len(ds))))
    en_han, zh_han = han_share(list(rows["en"])), han_share(list(rows["zh"]))
    if en_han >= ZH_SHARE and zh_han < 0.1:
        raise DataError(f"{where}: the columns look swapped: the English column is {en_han:.0%} Han characters, "
                        f"the Chinese column {zh_han:.0%}; put English first (e.g. awk -F'\\t' -v OFS='\\t' "
                        f"'{{print $2, $1}}'), or set data.check_columns=false if this is intended")


CHUNK_ROWS = 100_000  # rows normalised and written at a time


def _clean_chunks(ds: datasets.Dataset, max_chars: int, max_ratio: float, filter_training: bool,
                  report: CleanReport) -> Iterator[tuple[pa.Table, np.ndarray | None]]:
    """Normalised, filtered chunks of CHUNK_ROWS rows with a 64-bit hash per kept pair (training only)."""
    import numpy as np
    import pyarrow as pa

    began, seen = time.monotonic(), 0
    for chunk in ds.select_columns(["en", "zh"]).iter(batch_size=CHUNK_ROWS):
        seen += len(chunk["en"])
        if seen % (5 * CHUNK_ROWS) == 0:
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
        hashes = np.fromiter((hash(p) for p in zip(en_out, zh_out)), np.int64, len(en_out)) if filter_training else None
        yield pa.table({"en": pa.array(en_out, pa.string()), "zh": pa.array(zh_out, pa.string())}), hashes


def _first_occurrences(hashes: list[np.ndarray], report: CleanReport) -> np.ndarray | None:
    """Sorted row numbers of the first occurrence of each pair; None when no pair repeats."""
    import numpy as np

    if not hashes:
        return None
    every = np.concatenate(hashes)
    first = np.sort(np.unique(every, return_index=True)[1])
    if len(first) == len(every):
        return None
    report.dropped["duplicate"] += len(every) - len(first)
    return first


def clean(ds: datasets.Dataset, max_chars: int, max_ratio: float, filter_training: bool) -> tuple[datasets.Dataset, CleanReport]:
    """Normalise whitespace; for training data also drop empty, over-long, badly-ratioed and duplicate pairs.

    Dev/test data (`filter_training=False`) keep every row so scores stay comparable. Streams over
    the corpus in chunks; duplicates are found from one 64-bit hash per pair (8 bytes a pair, not
    the strings), keeping the first occurrence. In memory; `clean_to_file` for large corpora.
    """
    import pyarrow as pa  # only corpus preparation needs it; translating imports this module too

    report = CleanReport()
    tables, hashes = [], []
    for table, chunk_hashes in _clean_chunks(ds, max_chars, max_ratio, filter_training, report):
        tables.append(table)
        if chunk_hashes is not None:
            hashes.append(chunk_hashes)
    table = pa.concat_tables(tables) if tables else text_schema().empty_table()
    first = _first_occurrences(hashes, report)
    if first is not None:
        table = table.take(pa.array(first))
    report.kept = len(table)
    return arrow_dataset(table), report


def arrow_dataset(table: pa.Table) -> datasets.Dataset:
    """A `datasets.Dataset` over an in-memory Arrow table, with a fresh random fingerprint: without
    one, `datasets` pickles the whole table to hash it (+390 MB of peak memory for a million pairs)."""
    import uuid

    import datasets
    from datasets.table import InMemoryTable

    return datasets.Dataset(InMemoryTable(table), fingerprint=uuid.uuid4().hex)


def clean_to_file(ds: datasets.Dataset, path: Path, max_chars: int, max_ratio: float,
                  filter_training: bool) -> CleanReport:
    """`clean`, written chunk by chunk to the Arrow stream file `path` (never the whole cleaned
    corpus in memory); duplicates are then dropped in a second streamed pass over that file."""
    import numpy as np
    import pyarrow as pa

    report = CleanReport()
    hashes: list[np.ndarray] = []
    draft = path.with_name(path.name + ".draft")
    with pa.OSFile(str(draft), "wb") as sink, pa.ipc.new_stream(sink, text_schema()) as writer:
        for table, chunk_hashes in _clean_chunks(ds, max_chars, max_ratio, filter_training, report):
            writer.write_table(table)
            if chunk_hashes is not None:
                hashes.append(chunk_hashes)
    first = _first_occurrences(hashes, report)
    if first is None:
        report.kept = sum(len(h) for h in hashes) if hashes else _rows(draft)
        draft.replace(path)
        return report
    keep = np.zeros(sum(len(h) for h in hashes), dtype=bool)
    keep[first] = True
    # read back with plain reads, not a memory map: mapped pages would stay resident (and counted)
    with pa.OSFile(str(draft), "rb") as source, pa.ipc.open_stream(source) as reader, \
            pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, text_schema()) as writer:
        offset = 0
        for batch in reader:
            writer.write_batch(batch.filter(pa.array(keep[offset:offset + len(batch)])))
            offset += len(batch)
    draft.unlink()
    report.kept = len(first)
    return report


def _rows(path: Path) -> int:
    import pyarrow as pa

    with pa.OSFile(str(path), "rb") as source, pa.ipc.open_stream(source) as reader:
        return sum(len(batch) for batch in reader)


def text_schema() -> pa.Schema:
    """The cleaned text's columns (a function: pyarrow is imported only when preparing data)."""
    import pyarrow as pa

    return pa.schema([("en", pa.string()), ("zh", pa.string())])


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
