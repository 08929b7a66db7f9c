"""The names set is frozen and reproducible: its test file has the hash committed in its README before
any way of translating names was chosen, its builder writes both files byte for byte, dev and test share
no name, and no sentence is in the Tatoeba split."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from translate.config.paths import default_data_dir
from translate.data import names_set

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "data" / "names"


def _rows(split: str) -> list[list[str]]:
    return [line.split("\t") for line in (FOLDER / f"{split}.tsv").read_text(encoding="utf-8").splitlines()]


def test_the_test_file_has_the_hash_its_readme_committed() -> None:
    committed = re.search(r"`([0-9a-f]{64})`", (FOLDER / "README.md").read_text(encoding="utf-8"))
    assert committed
    assert hashlib.sha256((FOLDER / "test.tsv").read_bytes()).hexdigest() == committed.group(1)


def test_the_builder_writes_the_committed_files(tmp_path: Path) -> None:
    assert names_set.write(tmp_path) == {"dev": 114, "test": 219}
    for split in ("dev", "test"):
        assert (tmp_path / f"{split}.tsv").read_bytes() == (FOLDER / f"{split}.tsv").read_bytes()


def test_every_pair_holds_its_names_on_both_sides_and_dev_and_test_share_none() -> None:
    names: dict[str, set[str]] = {}
    for split in ("dev", "test"):
        rows = _rows(split)
        names[split] = set()
        for en, zh, column, kinds in rows:
            entries = column.split("; ")
            assert len(entries) == len(kinds.split("; "))
            for entry in entries:
                english, chinese = (side.split("|") for side in entry.split("="))
                assert english[0] in en and chinese[0] in zh, (en, zh, entry)
                names[split].add(english[0])
    assert len(_rows("test")) >= 200
    assert not names["dev"] & names["test"]


def test_no_sentence_is_in_the_tatoeba_split() -> None:
    def key(text: str) -> str:
        return re.sub(r"[\W_]+", "", text.casefold())

    tatoeba = {key(side) for split in ("train", "dev", "test")
               for line in (default_data_dir() / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
               for side in line.split("\t")[:2]}
    for split in ("dev", "test"):
        assert not [row for row in _rows(split) if key(row[0]) in tatoeba or key(row[1]) in tatoeba]
