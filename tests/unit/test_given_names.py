"""Western given names from ECDICT (`data.given_names`): which entries are names, their order, one
Chinese form per English name and one English name per Chinese form; the shipped file keeps to it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from translate.config.paths import given_names_file
from translate.data import given_names

ROWS = [
    {"word": "linda", "translation": "n. 琳达（女子名）", "bnc": "5160"},
    {"word": "jim", "translation": "n. 吉姆（人名）", "bnc": "2097"},
    {"word": "karen", "translation": "n. 凯伦（人名）；克伦邦（缅甸邦名）", "bnc": "4242"},
    {"word": "will", "translation": "n. 意志；威尔（男子名）", "bnc": "30"},  # a word before it is a name
    {"word": "jimmy", "translation": "n. 吉米（男子名）", "bnc": "0"},  # no rank: after the ranked names
    {"word": "jem", "translation": "n. 吉姆（男子名）", "bnc": "9000"},  # 吉姆 is Jim's already
    {"word": "jane", "translation": "n. 简（女子名）", "bnc": "900"},  # one character: too short to find in Chinese
    {"word": "mike", "translation": "n. 话筒, 麦克风", "bnc": "2108"},  # no person in the translation
    {"word": "o'neil", "translation": "n. 奥尼尔（人名）", "bnc": "100"},  # not one plain word
]


def test_names_are_one_word_entries_whose_translation_names_a_person_most_frequent_first() -> None:
    assert given_names.given_names(ROWS, {"will", "mike"}) == [
        ("Jim", "吉姆"), ("Karen", "凯伦"), ("Linda", "琳达"), ("Jimmy", "吉米")]


def test_the_file_is_written_in_that_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "ecdict.csv"
    with open(source, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["word", "phonetic", "translation", "bnc"])
        writer.writeheader()
        writer.writerows(ROWS)
    monkeypatch.setattr(given_names, "lowercase_words", lambda: {"will"})
    assert given_names.write(source, tmp_path / "out") == 4
    lines = (tmp_path / "out" / "given.tsv").read_text(encoding="utf-8").splitlines()
    assert lines == ["Jim\t吉姆", "Karen\t凯伦", "Linda\t琳达", "Jimmy\t吉米"]


def test_the_shipped_file_maps_one_to_one_and_holds_no_lowercase_word_of_the_training_split() -> None:
    pairs = [tuple(line.split("\t")) for line in given_names_file().read_text(encoding="utf-8").splitlines()]
    assert len(pairs) > 2000 and all(len(pair) == 2 for pair in pairs)
    assert len({en for en, _ in pairs}) == len(pairs) == len({zh for _, zh in pairs})
    assert ("Jim", "吉姆") in pairs and ("Linda", "琳达") in pairs
    common = given_names.lowercase_words()
    assert not [en for en, _ in pairs if en.lower() in common or not en[:1].isupper()]
