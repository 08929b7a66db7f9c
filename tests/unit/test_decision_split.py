"""The decision split is frozen: its bytes are those whose hash was committed before any candidate
was decided on it, and none of its sentences is in a set that choices read (the everyday dev sets, the
quantities set) or in the Tatoeba split."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

from translate.config.paths import default_data_dir

ROOT = Path(__file__).resolve().parents[2]
SPLIT = ROOT / "data" / "everyday" / "test.tsv"


def _committed_hash() -> str:
    found = re.search(r"data/everyday/test\.tsv\s+sha256 ([0-9a-f]{64})",
                      (ROOT / "docs" / "results" / "decisions.md").read_text(encoding="utf-8"))
    assert found, "docs/results/decisions.md names no hash for the decision split"
    return found.group(1)


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if not (unicodedata.category(ch)[0] in "PZS" or ch.isspace()))


def _sentences(path: Path) -> set[str]:
    return {_key(side) for line in path.read_text(encoding="utf-8").splitlines() for side in line.split("\t")[:2]}


def test_the_decision_split_has_the_committed_hash() -> None:
    assert hashlib.sha256(SPLIT.read_bytes()).hexdigest() == _committed_hash()


def test_the_decision_split_shares_no_sentence_with_what_choices_read() -> None:
    lines = SPLIT.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 1_000 and all(len(line.split("\t")) == 2 for line in lines)
    mine = _sentences(SPLIT)
    assert len(mine) == 2 * len(lines)  # no sentence twice in the split itself
    others = [ROOT / "data" / "everyday" / "dev.tsv", ROOT / "data" / "everyday" / "retired" / "test.tsv",
              *sorted((ROOT / "data" / "quantities").glob("*.tsv")),
              *(default_data_dir() / f"{split}.tsv" for split in ("train", "dev", "test"))]
    for other in others:
        shared = mine & _sentences(other)
        assert not shared, f"{other.name} shares {len(shared)} sentences with the decision split, e.g. {sorted(shared)[:3]}"
