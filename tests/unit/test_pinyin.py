"""Chinese people's names between characters and pinyin (`data.pinyin`)."""

from __future__ import annotations

from pathlib import Path

from translate.data.pinyin import join_syllables, learn, split_word

PAIRS = [("Li Lei", "李雷"), ("Wang Lei", "王雷"), ("Ding Lei", "丁磊"), ("Zhang Wei", "张伟"), ("Zhang Fei", "张飞"),
         ("Zeng Guofan", "曾国藩"), ("Han Meimei", "韩梅梅"), ("Ouyang Xiu", "欧阳修"),
         ("Beijing", "北京"),  # one word: no person
         ("Li Bai", "李白白")]  # the English is not the pinyin of the Chinese: left out


def test_pinyin_words_split_into_syllables() -> None:
    assert split_word("Meimei") == ["mei", "mei"]
    assert split_word("Xiuying") == ["xiu", "ying"]
    assert split_word("Xi'an") == ["xi", "an"]
    assert split_word("Island") is None and split_word("Xiaomingming") is None  # not pinyin; three syllables
    assert join_syllables(["xi", "an"]) == "xi'an" and join_syllables(["xiu", "ying"]) == "xiuying"


def test_the_tables_hold_the_most_frequent_character_of_each_syllable() -> None:
    tables = learn(PAIRS)
    assert tables.given_of["lei"] == "雷"  # 李雷 and 王雷 against 丁磊
    assert tables.surname_of["zhang"] == "张" and tables.surname_of["zeng"] == "曾"  # 曾 read as a surname
    assert "bai" not in tables.given_of and "bei" not in tables.surname_of


def test_names_go_both_ways() -> None:
    tables = learn(PAIRS)
    assert tables.characters("Li Lei") == "李雷"
    assert tables.characters("Zhang Meimei") == "张梅梅"
    assert tables.characters("Zhang") is None and tables.characters("Zhang Island") is None
    assert tables.characters("Smith Lei") is None  # no such surname
    assert tables.romanise("王秀英") == "Wang Xiuying"
    assert tables.romanise("曾国藩") == "Zeng Guofan"  # not ceng
    assert tables.romanise("欧阳修") == "Ouyang Xiu"
    assert tables.romanise("李小安") == "Li Xiao'an"


def test_given_name_counts_choose_before_the_lexicons_people() -> None:
    tables = learn(PAIRS, {"磊": 120, "雷": 50, "伟": 400, "维": 60})
    assert tables.given_of["lei"] == "磊"  # today's given names, where the pairs say 雷
    assert tables.given_of["wei"] == "伟" and tables.given_of["mei"] == "梅"  # no count for mei: the pairs
    assert tables.characters("Li Lei") == "李磊"


def test_the_shipped_counts_are_ngenders_given_name_characters() -> None:
    from translate.data.pinyin import given_name_counts

    counts = given_name_counts()
    assert len(counts) > 9000 and counts["伟"] > counts["维"] > 0  # 伟 in today's names, 维 in history's


def test_the_tables_read_the_names_file_with_its_kinds(tmp_path: Path) -> None:
    from translate.data.pinyin import given_name_counts, person_tables

    path = tmp_path / "names.tsv"
    path.write_text("Li Lei\t李雷\tperson\nOuyang Xiu\t欧阳修\tperson\nWang Lei\t王雷\nBeijing\t北京\tplace\n",
                    encoding="utf-8")
    tables = person_tables(path)
    expected = learn([("Li Lei", "李雷"), ("Ouyang Xiu", "欧阳修"), ("Wang Lei", "王雷"), ("Beijing", "北京")],
                     given_name_counts())
    assert tables.surname_of == expected.surname_of and tables.given_of == expected.given_of
    assert tables.surname_of["ouyang"] == "欧阳"  # the kind is no part of the Chinese
