"""Negation in text (`translate.data.negation`): the adequacy measure's loose test and the stricter one a
source and its translations are read with when the search keeps the negation."""

from __future__ import annotations

import pytest

from translate.data.negation import adds_negation, affirms, negates, says_no


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
    ("It's hot, isn't it?", "en", True, False),  # a question's tag asks, it does not deny
    ("No matter what happens, I'll come.", "en", True, False),  # "whatever happens"
    ("It isn't hot, is it?", "en", True, True),
    ("Isn't it hot?", "en", True, True),  # no tag: the question itself is negative
    ("这朵花很美，不是吗？", "zh", True, False),  # the tag again
    ("这不是我的书，是吗？", "zh", True, True),
])
def test_a_negation_is_found_as_each_test_reads_it(text: str, lang: str, loose: bool, strict: bool) -> None:
    assert says_no(text, lang) is loose
    assert negates(text, lang) is strict


@pytest.mark.parametrize(("source", "lang", "says_nothing_negative"), [
    ("I like eggs.", "en", True),
    ("I dislike eggs.", "en", False),  # 我不喜欢鸡蛋。
    ("He was unable to come.", "en", False),
    ("That was careless of you.", "en", False),  # 不小心
    ("Stop joking around.", "en", False),  # 别开玩笑了。
    ("It happens less often now.", "en", False),
    ("I understand the question.", "en", True),  # under-, until, uni- words are no un- words
    ("The university is open until six.", "en", True),
    ("We discussed the important income.", "en", True),  # dis-, im-, in- only by name
    ("It's hot, isn't it?", "en", True),
    ("我很喜欢茶。", "zh", True),
    ("我是单身。", "zh", False),  # "I'm not married."
    ("楼内禁止吸烟。", "zh", False),  # "No smoking in the building."
    ("我的相机坏了。", "zh", False),  # "My camera doesn't work."
    ("我不喜欢茶。", "zh", False),
])
def test_a_source_says_no_not_at_all_only_without_negative_words(source: str, lang: str,
                                                                   says_nothing_negative: bool) -> None:
    assert affirms(source, lang) is says_nothing_negative


def test_a_negation_is_added_where_the_source_says_none() -> None:
    assert adds_negation("The internet is very slow today.", "我的网真不是很慢。", "en", "zh")
    assert not adds_negation("The internet is very slow today.", "今天网速很慢。", "en", "zh")
    assert not adds_negation("I dislike eggs.", "我不喜欢鸡蛋。", "en", "zh")  # the source says it in a word
    assert not adds_negation("This flower is beautiful, isn't it?", "这朵花很美，不是吗？", "en", "zh")
    assert adds_negation("他既会打网球，又会打棒球。", "He cannot play tennis, and play baseball.", "zh", "en")
    assert not adds_negation("我的相机坏了。", "My camera doesn't work.", "zh", "en")
    assert not adds_negation("听我说，好吗？", "Listen to me, don't you?", "zh", "en")  # a tag
    assert not adds_negation("我不喜欢茶。", "I don't like tea.", "zh", "en")
