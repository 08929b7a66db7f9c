"""A corpus loaded by name through `datasets` (format=hf), as OPUS-100 en-zh would be: a local
dataset folder with the same `translation` column stands in for the hub (no network in tests)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import TINY_DIR
from translate.config.loading import apply_overrides
from translate.config.schema import DataConfig
from translate.data.readers import read_split, read_tsv


def test_a_dataset_with_a_translation_column_reads_like_the_tsv_split(tmp_path: Path) -> None:
    folder = tmp_path / "opus-like"
    folder.mkdir()
    for split, source in (("train", "train.tsv"), ("validation", "dev.tsv")):
        ds, _ = read_tsv(TINY_DIR / source)
        rows = [{"translation": {"en": en, "zh": zh}} for en, zh in zip(ds["en"], ds["zh"])]
        (folder / f"{split}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                               encoding="utf-8")
    cfg = apply_overrides(DataConfig(), {"format": "hf", "hf_name": str(folder), "train": "train", "dev": "validation"})
    train, report = read_split(cfg, "train")
    tsv, _ = read_tsv(TINY_DIR / "train.tsv")
    assert train.column_names == ["en", "zh"] and train["en"] == tsv["en"] and train["zh"] == tsv["zh"]
    assert report.rows == len(tsv)
    dev, _ = read_split(cfg, "dev")
    assert len(dev) == len(read_tsv(TINY_DIR / "dev.tsv")[0])
