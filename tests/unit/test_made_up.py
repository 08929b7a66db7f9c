"""Made-up English words (`data.made_up`): what a small model glues from pieces, and what is no such word."""

from __future__ import annotations

import pytest

from translate.data.made_up import made_up_words


@pytest.mark.parametrize(("translation", "made_up"), [
    ("Is itn't dark?", ["itn't"]),
    ("I like hisers.", ["hisers"]),
    ("Beappy your birthday!", ["Beappy"]),  # a capital does not make a name
    ("School begined at 8:00; I sleeped.", ["begined", "sleeped"]),
    ("Is it dark?", []),
    ("He travels; she obeys; they're the teacher's friends; isn't it?", []),  # inflections, contractions, 's
    ("Gu Chengqiang took Line 2 to Xizhimen in Kaohsiung.", []),  # pinyin and the names lexicon
    ("The TV weighs 12 kg and costs 300 USD.", []),  # capitals and units
])
def test_made_up_words(translation: str, made_up: list[str]) -> None:
    assert made_up_words(translation, "") == made_up


def test_a_word_the_source_says_is_none() -> None:
    assert made_up_words("I paid with Alipayz.", "我用Alipayz付了钱。") == []
    assert made_up_words("I paid with Alipayz.", "我用支付宝付了钱。") == ["Alipayz"]
