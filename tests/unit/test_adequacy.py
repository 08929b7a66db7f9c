"""The dropped/repeated content measures (`translate.evaluation.adequacy`) on hand-made examples."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from translate.data.repeats import repeated_runs, said_once, stutters
from translate.evaluation.adequacy import Dictionary, measure, received_attention, repeated_ngrams, unattended_pieces

PAIRS = [("tea", "茶"), ("milk", "牛奶"), ("to like", "喜欢"), ("Beijing", "北京"), ("meeting", "会议"),
         ("friend", "朋友"), ("tomorrow", "明天"), ("to see", "看")]


def test_a_repeated_phrase_counts_and_a_repeat_the_source_holds_does_not() -> None:
    assert repeated_ngrams("我明天去北京北京。", "I will go to Beijing tomorrow.", "zh", "en") == 1  # 北京 twice
    assert repeated_ngrams("我明天去北京。", "I will go to Beijing tomorrow.", "zh", "en") == 0
    # "very much very much": the bigrams "very much", "much very"? once; "very much" twice -> 1, trigram none
    assert repeated_ngrams("I like it very much very much.", "我非常喜欢。", "en", "zh") == 1
    assert repeated_ngrams("Call 12 34 12 34.", "打12 34 12 34。", "en", "zh") == 0  # the source repeats it too


@pytest.mark.parametrize(("text", "lang", "runs"), [
    ("他工作工作。", "zh", ["工作工作"]),
    ("我们巴巴巴黎。", "zh", ["巴巴巴"]),
    ("圣诞节是二十二十。", "zh", ["二十二十"]),
    ("不好意思，在哪里在哪里？", "zh", ["在哪里在哪里"]),
    ("谢谢你，妈妈。我们天天见。", "zh", []),  # one character twice is a word
    ("王晓明在在深圳工作。", "zh", ["在在"]),  # a function word twice is not
    ("我不能相信我的的眼睛。", "zh", ["的的"]),
    ("我们在在在家。", "zh", ["在在在"]),  # three times: counted once
    ("汤姆问我我是不是累了。", "zh", []),  # a pronoun twice: the object, then the subject
    ("她她儿子留了很多钱。", "zh", ["她她"]),  # ... but at the start of a sentence
    ("是的，我我知道。", "zh", ["我我"]),  # ... or of a clause
    ("春天的湖湖很美丽。", "zh", ["湖湖"]),  # a word no dictionary holds, said twice inside
    ("李婷婷是我的朋友。", "zh", []),  # ... but a person's name may (婷婷)
    ("我乘几路车去怀基基？", "zh", []),
    ("你只是说说而已。", "zh", []),  # a verb doubled (说说: "just talk")
    ("对对，我知道。", "zh", []),  # a function word doubled that the dictionary holds as a word
    ("我们现在在做饭。", "zh", []),  # 现在 | 在: the second 在 is its own word
    ("会议在三月三号。", "zh", []),  # 三月三 is no run said twice
    ("这件外套三百九十九块钱。", "zh", []),
    ("我父母七七月飞去伦敦。", "zh", ["七七"]),  # a numeral said twice, no other beside it
    ("饭后吃三三次。", "zh", ["三三"]),
    ("我十十钟回来。", "zh", ["十十"]),
    ("他们三三两两地走了。", "zh", []),  # a word of four
    ("我生于一九九八年。", "zh", []),  # a year said digit by digit
    ("会议在二〇二二年举行。", "zh", []),  # 〇 is a numeral: 二 | 〇 | 二二 is no 二 said three times
    ("我们五五分吧。", "zh", []),
    ("饭饭后吃三次。", "zh", ["饭饭"]),  # 饭 | 饭后: a character alone, then the next word's first
    ("我需要给电电车。", "zh", ["电电"]),
    ("不要犹豫去问问题。", "zh", []),  # a verb, then its object: "ask questions"
    ("没有什么和和平一样重要。", "zh", []),  # a conjunction: "and peace"
    ("人人生来平等。", "zh", []),  # 人人 is a word: "everyone"
    ("Please speak Chinese Chinese.", "en", ["chinese chinese"]),
    ("My mother is a teacher a teacher.", "en", ["a teacher a teacher"]),
    ("It costs 1,000,000 dollars, 20 20 of them.", "en", []),  # numbers alone are not words
    ("Call me at 8:15.", "en", []),
])
def test_a_stutter_is_a_run_said_twice_in_a_row(text: str, lang: str, runs: list[str]) -> None:
    assert repeated_runs(text, lang) == runs


def test_a_function_word_said_twice_is_said_once_and_nothing_else_changes() -> None:
    assert said_once("王晓明在在深圳的银行工作。") == "王晓明在深圳的银行工作。"
    assert said_once("Tom  和和 Mary\n我的的猫。") == "Tom  和 Mary\n我的猫。"  # spaces and lines kept
    assert said_once("她她儿子留了很多钱。") == "她儿子留了很多钱。"
    assert said_once("我在网上买了火车的票票。") == "我在网上买了火车的票。"
    assert said_once("我父母七七月飞去伦敦。") == "我父母七月飞去伦敦。"
    assert said_once("饭后吃三三次。") == "饭后吃三次。"
    assert said_once("我十十点回来。") == "我十点回来。"
    assert said_once("北北边下雪。") == "北边下雪。"
    for text in ["汤姆问我我是不是累了。", "你只是说说而已。", "对对，我知道。", "我们现在在做饭。", "谢谢你。", "李婷婷来了。",
                 "他们三三两两地走了。", "我生于一九九八年。", "九九乘法表", "不要犹豫去问问题。", "人人生来平等。"]:
        assert said_once(text) == text


def test_a_source_that_repeats_itself_excuses_a_repeat() -> None:
    assert stutters("我非常非常喜欢。", "I like it.", "zh", "en")
    assert not stutters("我非常非常喜欢。", "I like it very very much.", "zh", "en")
    assert not stutters("He is very very busy.", "他非常非常忙。", "en", "zh")
    result = measure(["He works.", "Thanks."], ["他工作工作。", "谢谢。"], "en", "zh", ["他工作。", "谢谢。"])
    assert (result.stutter, result.reference_stutter) == (50.0, 0.0)
    assert [r["stutter"] for r in result.per_sentence] == [True, False]


def test_unattended_pieces_leave_out_the_end_and_punctuation() -> None:
    pieces = ["▁I", "▁like", "▁tea", "▁with", "▁milk", ".", "</s>"]
    weights = [[0.9, 0.0, 0.0, 0.0, 0.0, 0.1, 0.0],  # 我
               [0.0, 0.9, 0.0, 0.0, 0.0, 0.0, 0.1],  # 喜欢
               [0.0, 0.0, 0.0, 0.1, 0.9, 0.0, 0.0],  # 牛奶: tea never attended, "with" 0.1
               [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5]]  # 。
    assert unattended_pieces(weights, pieces) == (2, 5)  # tea and with, of the five word pieces
    received, unattended = received_attention(weights, pieces)  # per piece, as the page's coverage row shows it
    assert received == pytest.approx([0.9, 0.9, 0.0, 0.1, 0.9, 0.6, 0.6])
    assert unattended == [False, False, True, True, False, False, False]
    _, end_unattended = received_attention([[1.0, 0.0, 0.0]], ["▁Hi", "!", "</s>"])
    assert end_unattended == [False, False, False]  # "!" and </s> got nothing, and never count


def test_the_dictionary_finds_the_dropped_word_in_both_directions() -> None:
    d = Dictionary.from_pairs(PAIRS)
    assert d.missing("I like tea with milk.", "我喜欢喝牛奶。", "en") == (1, 3)  # tea missing of tea, like, milk
    assert d.missing("I like tea with milk.", "我喜欢喝奶茶。", "en") == (1, 3)  # 牛奶 is not in 奶茶
    assert d.missing("I will go to Beijing for a meeting tomorrow.", "我明天会去参加会议。", "en") == (1, 3)
    assert d.missing("我明天要去北京看我的朋友。", "I will go to Beijing tomorrow.", "zh") == (1, 3)  # 朋友
    assert d.missing("我明天要去北京看我的朋友。", "I'll see my friends in Beijing tomorrow.", "zh") == (0, 3)


@dataclass
class FakeAlignment:
    weights: list[list[float]]
    source_pieces: list[str]


def test_corpus_figures() -> None:
    sources = ["I like tea with milk.", "I will go to Beijing tomorrow."]
    translations = ["我喜欢喝牛奶。", "我明天去北京北京。"]
    references = ["我喜欢加牛奶的茶。", "我明天去北京。"]
    alignments = [FakeAlignment([[1.0, 0.0, 0.0]], ["▁tea", "▁milk", "</s>"]),
                  FakeAlignment([[0.5, 0.5]], ["▁Beijing", "</s>"])]
    result = measure(sources, translations, "en", "zh", references, alignments, Dictionary.from_pairs(PAIRS))
    assert result.repeat_sentences == 50.0 and result.repeats_per_100 == 50.0
    assert result.reference_repeats_per_100 == 0.0
    assert result.unattended == pytest.approx(100 / 3)  # milk, of tea, milk, Beijing
    assert (result.dictionary_missing, result.dictionary_words) == (pytest.approx(20.0), 5)  # tea, of 5
    assert [r["repeats"] for r in result.per_sentence] == [0, 1]
    assert "repeats: 50.0 % of sentences" in result.summary() and "dictionary words missing 20.0 %" in result.summary()
    bare = measure(sources, translations, "en", "zh")
    assert bare.unattended is None and bare.dictionary_missing is None and "unattended" not in bare.summary()


def test_a_negation_the_source_does_not_say_is_counted_as_added() -> None:
    """The meaning turned round: 不是 where the source says no "not"; 非常 ("very") negates nothing, and a
    source that negates adds nothing (that is "negation lost", the other way)."""
    sources = ["The internet is very slow today.", "I like tea.", "I don't like tea.", "Stay still."]
    translations = ["我的网真不是很慢。", "我非常喜欢茶。", "我不喜欢茶。", "别动。"]
    references = ["今天网速很慢。", "我喜欢茶。", "我不喜欢茶。", "别动。"]
    result = measure(sources, translations, "en", "zh", references)
    assert result.negation_added == (2, 3) and result.reference_negation_added == 1  # 别动 says "don't move"
    assert [r["negation_added"] for r in result.per_sentence] == [True, False, False, True]
    assert "negation added 2 of 3 (references 1)" in result.summary()
    back = measure(["我喜欢茶。", "我不喜欢茶。"], ["I don't like tea.", "I like tea."], "zh", "en")
    assert back.negation_added == (1, 1) and back.to_dict()["negation_added"] == 1


def test_negation_lost_reads_negation_as_the_release_rule_does() -> None:
    """非常 ("very") and a question's tag negate nothing: their translations cannot lose a negation."""
    sources = ["我不喜欢茶。", "我非常喜欢茶。", "It's hot, isn't it?", "It isn't hot."]
    translations = ["I like tea.", "I like tea very much.", "很热吧？", "很热。"]
    result = measure(sources[:2], translations[:2], "zh", "en", ["I don't like tea.", "I like tea a lot."])
    assert result.negation_lost == (1, 1) and result.reference_negation_lost == 0
    assert [r["negation_lost"] for r in result.per_sentence] == [True, False]
    english = measure(sources[2:], translations[2:], "en", "zh")
    assert english.negation_lost == (1, 1)  # the tag asks; "isn't hot" says no
