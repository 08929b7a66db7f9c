"""Negation in text (`translate.data.negation`): the adequacy measure's loose test and the stricter one a
source and its translations are read with when the search keeps the negation."""

from __future__ import annotations

import pytest

from translate.data.negation import negates, says_no


@pytest.mark.parametrize(("text", "lang", "loose", "strict"), [
    ("Tom doesn't really love Mary.", "en", True, True),
    ("I have no regrets.", "en", True, True),
    ("He never comes.", "en", True, True),
    ("Nobody knows.", "en", True, True),
    ("I know Tom.", "en", False, False),
    ("Notice the note.", "en", False, False),  # whole words only
    ("我不喜欢茶。", "zh", True, True),
    ("他还没来。", "zh", True, True),
    ("别再埋怨了。", "zh", True, True),
    ("请勿触摸画作。", "zh", True, True),
    ("我不介意在六点起床。", "zh", True, True),
    ("他非常喜欢音乐。", "zh", True, False),  # 非常: "very"
    ("别人都走了。", "zh", True, False),  # 别人: "others"
    ("这是一笔不错的交易。", "zh", True, False),  # 不错: "good"
    ("对不起，我来晚了。", "zh", True, False),  # "sorry"
    ("你想不想一起去？", "zh", True, False),  # A-not-A: "Do you want to go?"
    ("你有没有钱？", "zh", True, False),
    ("非常感谢！", "zh", True, False),  # one word that starts with 非常: "thanks a lot"
    ("你们这里有免费无线网吗？", "zh", True, False),  # 无线网: "Wi-Fi"
    ("是非不分。", "zh", True, True),  # 是非, then 不分: "cannot tell right from wrong"
    ("他通不过考试。", "zh", True, True),  # 不过 ends the word and does not start it: "cannot pass"
    ("我喜欢茶。", "zh", False, False),
])
def test_a_negation_is_found_as_each_test_reads_it(text: str, lang: str, loose: bool, strict: bool) -> None:
    assert says_no(text, lang) is loose
    assert negates(text, lang) is strict
