"""Names kept (`evaluation.names`): forms, whole words, doubled names, per-kind counts, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from translate.errors import DataError
from translate.evaluation.names import NamesSet, doubled, kept, loses_a_name, measure, parse_names, read_names_set

LI_NA, HONG_KONG, BEIJING = parse_names("Li Na|Na Li=李娜; Hong Kong=香港; Beijing=北京|北平", "person-cn; place-cn; place-cn")


def test_a_name_is_kept_in_any_of_its_forms_as_whole_words() -> None:
    assert kept(LI_NA, "Li Na is here.", "en") and kept(LI_NA, "I saw na li.", "en")
    assert not kept(LI_NA, "Li Nan is here.", "en")  # a longer word is another name
    assert kept(BEIJING, "我在北平。", "zh") and not kept(BEIJING, "我在北边。", "zh")
    assert kept(parse_names("Xi'an=西安")[0], "I was born in Xi’an.", "en")  # the apostrophe's shape is no matter
    assert not kept(parse_names("Xi=习")[0], "I was born in Xi'an.", "en")  # a name's apostrophe goes on with it
    assert kept(LI_NA, "Li Na's sister is here.", "en") and kept(LI_NA, "Li Na’s car.", "en")  # a possessive
    assert kept(parse_names("James=詹姆斯")[0], "James' car is red.", "en")
    assert not kept(parse_names("James=詹姆斯")[0], "Jamesson's car is red.", "en")


@pytest.mark.parametrize("split", ["dev", "test"])
def test_the_references_keep_every_name(split: str) -> None:
    names_set = read_names_set(Path(__file__).parents[2] / "data" / "names" / f"{split}.tsv")
    for references, lang in ((names_set.en, "en"), (names_set.zh, "zh")):
        result = measure(names_set, references, lang)
        assert (result["kept"], result["doubled"]) == (result["names"], 0), result["lost"][:3]


def test_a_doubled_name_is_said_twice_or_after_its_own_first_word() -> None:
    assert doubled(HONG_KONG, "I went to Hong Hong Kong.", "en", "我去过香港。", "zh")
    assert doubled(BEIJING, "我在北北京。", "zh", "I am in Beijing.", "en")
    assert doubled(BEIJING, "北京，北京。", "zh", "Beijing.", "en")
    assert not doubled(BEIJING, "北京，北京。", "zh", "Beijing, Beijing.", "en")  # the source says it twice too
    assert not doubled(HONG_KONG, "I went to Hong Kong.", "en", "我去过香港。", "zh")


def test_measure_counts_by_kind_and_lists_what_was_lost() -> None:
    names_set = NamesSet(["Li Na lives in Beijing.", "I like Hong Kong."], ["李娜住在北京。", "我喜欢香港。"],
                         [[LI_NA, BEIJING], [HONG_KONG]])
    result = measure(names_set, ["李娜住在北京。", "我喜欢香。"], "zh")
    assert (result["kept"], result["names"], result["sentences_all_kept"]) == (2, 3, 1)
    assert result["by_kind"] == {"person-cn": {"names": 1, "kept": 1}, "place-cn": {"names": 2, "kept": 1}}
    assert result["lost"] == [{"line": 2, "source": "I like Hong Kong.", "translation": "我喜欢香。", "missing": ["香港"]}]
    assert loses_a_name([HONG_KONG], "我喜欢香。", "zh") and not loses_a_name([LI_NA], "李娜", "zh")


def test_a_malformed_names_file_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "names.tsv"
    path.write_text("Li Na is here.\t李娜在这儿。\tLi Na=李娜\tperson-cn\nBad line.\t坏。\tLi Na\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"names\.tsv:2: expected English=中文"):
        read_names_set(path)
    path.write_text("Li Na is here.\t李娜在这儿。\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"names\.tsv:1: expected en<TAB>zh<TAB>names"):
        read_names_set(path)
    with pytest.raises(DataError, match="2 names but 1 kinds"):
        parse_names("A=甲; B=乙", "place-cn")
