"""Corpus readers: TSV, a pair of plain-text files, JSONL, a Hugging Face dataset by name.

Every reader returns a `datasets.Dataset` with string columns `en` and `zh`. Errors name the
file and the line; rows that can only be skipped are counted in a `ReadReport`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

import datasets
import pyarrow as pa

from translate.config.paths import data_dir as resolve_data_dir
from translate.config.schema import LANGS, DataConfig
from translate.data.cleaning import arrow_dataset, text_schema
from translate.data.text import iter_text_lines
from translate.errors import DataError


@dataclass
class ReadReport:
    """What a reader saw: rows kept, and rows skipped with the reason and first line number."""

    path: str
    rows: int = 0
    skipped: dict[str, list[int]] = field(default_factory=dict)

    def skip(self, reason: str, line: int) -> None:
        self.skipped.setdefault(reason, []).append(line)

    def summary(self) -> str:
        parts = [f"{len(lines)} {reason} (first at line {lines[0]})" for reason, lines in self.skipped.items()]
        return f"{self.path}: {self.rows} rows" + (f"; skipped {', '.join(parts)}" if parts else "")


CHUNK_ROWS = 100_000  # rows gathered as Python strings before they become one Arrow table


class _Columns:
    """en/zh strings gathered in Arrow tables of CHUNK_ROWS rows: a large corpus is held once, compactly."""

    def __init__(self) -> None:
        self.tables: list[pa.Table] = []
        self.en: list[str] = []
        self.zh: list[str] = []
        self.rows = 0

    def add(self, en: str, zh: str) -> None:
        self.en.append(en)
        self.zh.append(zh)
        self.rows += 1
        if len(self.en) >= CHUNK_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self.en:
            self.tables.append(pa.table({"en": pa.array(self.en, pa.string()), "zh": pa.array(self.zh, pa.string())}))
            self.en, self.zh = [], []

    def dataset(self) -> datasets.Dataset:
        self._flush()
        table = pa.concat_tables(self.tables) if self.tables else text_schema().empty_table()
        self.tables = []
        return arrow_dataset(table)


def _pairs_to_dataset(columns: _Columns, path: Path) -> datasets.Dataset:
    if not columns.rows:
        raise DataError(f"{path}: no sentence pairs found (empty file?)")
    return columns.dataset()


def read_tsv(path: Path) -> tuple[datasets.Dataset, ReadReport]:
    """Read `en<TAB>zh[<TAB>ignored...]` with no CSV quoting; blank lines are skipped and counted."""
    report = ReadReport(str(path))
    columns = _Columns()
    for number, line in enumerate(iter_text_lines(path), start=1):
        if "\x00" in line:
            raise DataError(f"{path}:{number}: NUL byte in line (binary file?)")
        if not line.strip():
            report.skip("blank lines", number)
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise DataError(f"{path}:{number}: expected 2 tab-separated columns (en<TAB>zh), "
                            f"found 1: {line[:60]!r}")
        if len(fields) > 2:
            report.skip("rows with extra columns (extra columns ignored, rows kept)", number)
        columns.add(fields[0], fields[1])
    report.rows = columns.rows
    return _pairs_to_dataset(columns, path), report


def read_text_pair(en_path: Path, zh_path: Path) -> tuple[datasets.Dataset, ReadReport]:
    """Read two line-aligned plain-text files."""
    columns = _Columns()
    counts = [0, 0]
    for en, zh in zip_longest(iter_text_lines(en_path), iter_text_lines(zh_path)):
        counts[0] += en is not None
        counts[1] += zh is not None
        if en is not None and zh is not None:
            columns.add(en, zh)
    if counts[0] != counts[1]:
        raise DataError(f"{en_path} has {counts[0]} lines but {zh_path} has {counts[1]}: the files must be line-aligned")
    report = ReadReport(f"{en_path}+{zh_path}", rows=columns.rows)
    return _pairs_to_dataset(columns, en_path), report


def read_jsonl(path: Path) -> tuple[datasets.Dataset, ReadReport]:
    """Read one JSON object per line with string fields `en` and `zh` (or a `translation` object)."""
    report = ReadReport(str(path))
    columns = _Columns()
    for number, line in enumerate(iter_text_lines(path), start=1):
        if not line.strip():
            report.skip("blank lines", number)
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{number}: malformed JSON ({exc.msg} at column {exc.colno})") from None
        obj = obj.get("translation", obj) if isinstance(obj, dict) else obj
        if not isinstance(obj, dict) or not all(isinstance(obj.get(k), str) for k in LANGS):
            raise DataError(f"{path}:{number}: expected an object with string fields 'en' and 'zh'")
        columns.add(obj["en"], obj["zh"])
    report.rows = columns.rows
    return _pairs_to_dataset(columns, path), report


def load_hf(name: str, split: str, config: str = "") -> tuple[datasets.Dataset, ReadReport]:
    """Load a Hugging Face dataset by name (needs internet); accepts `en`/`zh` or `translation` columns."""
    try:
        ds = datasets.load_dataset(name, config or None, split=split)
    except Exception as exc:  # noqa: BLE001 - any hub/network failure becomes one clear line
        raise DataError(f"could not load dataset '{name}' split '{split}': {exc}") from None
    assert isinstance(ds, datasets.Dataset)
    if "translation" in ds.column_names:
        ds = ds.map(lambda row: {k: row["translation"].get(k, "") for k in LANGS},
                    remove_columns=ds.column_names)
    missing = [k for k in LANGS if k not in ds.column_names]
    if missing:
        raise DataError(f"dataset '{name}' split '{split}' has columns {ds.column_names}, "
                        f"not the requested languages {missing}")
    ds = ds.select_columns(list(LANGS))
    return ds, ReadReport(f"{name}:{split}", rows=len(ds))


def _from_folder(read: Callable[[Path, str], tuple[datasets.Dataset, ReadReport]]) -> Reader:
    """A reader of files in the configured data folder (`read(folder, split file name)`)."""

    def reader(cfg: DataConfig, filename: str) -> tuple[datasets.Dataset, ReadReport]:
        folder = resolve_data_dir(cfg.data_dir)
        if not folder.is_dir():
            raise DataError(f"data directory not found: {folder} (set --data-dir or data.data_dir)")
        return read(folder, filename)

    return reader


Reader = Callable[[DataConfig, str], tuple[datasets.Dataset, ReadReport]]
# data.format -> its reader; config.schema's DataConfig.format names the same formats (a test holds them equal)
READERS: dict[str, Reader] = {
    "tsv": _from_folder(lambda folder, name: read_tsv(folder / name)),
    "text": _from_folder(lambda folder, name: read_text_pair(folder / f"{name}.en", folder / f"{name}.zh")),
    "jsonl": _from_folder(lambda folder, name: read_jsonl(folder / name)),
    "hf": lambda cfg, name: load_hf(cfg.hf_name, name, cfg.hf_config),
}


def read_split(cfg: DataConfig, split: str) -> tuple[datasets.Dataset, ReadReport]:
    """Read `train`, `dev` or `test` with the reader of `data.format`."""
    if cfg.format not in READERS:
        raise DataError(f"data.format={cfg.format!r} has no reader; known formats: {', '.join(READERS)}")
    return READERS[cfg.format](cfg, getattr(cfg, split))
