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
    ("My favourite colour is grey; I realised the theatre had travelled.", []),  # British spellings (breame)
    ("The Wi-Fi app on my smartphone took a selfie with the mooncakes.", []),  # words of everyday life
    ("I paid the cheque, then did my maths.", []),  # British words that neither list has
    ("He doesn\u2019t know; Tom\u2019s caf\u00e9 sells CDs and T-shirts.", []),  # typographic apostrophes, accents,
    ("Andr\u00e9 and Bj\u00f6rk met in a na\u00efve town.", []),  # plural capitals, hyphens; names in their own alphabet
    ("Is itn\u2019t dark? It is well-knowed.", ["itn\u2019t", "well-knowed"]),  # a word is whole, and still made up
    ("Pride cometh before a fall.", ["cometh"]),  # an old form: a translation today says "comes"
])
def test_made_up_words(translation: str, made_up: list[str]) -> None:
    assert made_up_words(translation, "") == made_up


def test_a_word_the_source_says_is_none() -> None:
    assert made_up_words("I paid with Alipayz.", "我用Alipayz付了钱。") == []
    assert made_up_words("I paid with Alipayz.", "我用支付宝付了钱。") == ["Alipayz"]
