"""What phones and web pages type reads as what the training data holds: curly quotes and apostrophes,
full-width digits and letters, odd spaces give the translations of their plain forms, through the
Python API (both released models, routed by script) and through sentence splitting."""

from __future__ import annotations

import translate
from translate.data.normalize import split_sentences, typography

PLAIN = [
    "I can't sleep.", "Don't worry about it.", "It's 2 am again.", "We're going home.", "I'd like a cup of tea.",
    "She said \"hello\" to me.", "Tom's car is red.", "You'll be fine.", "They've already left.",
    "Isn't it cold today?", "The meeting is at 17:30.", "It costs $45.", "I haven't seen him since 2019.",
    "\"Where is the station?\" he asked.", "That's my friend's book.",
    "我明天17:30到。", "这件衣服45块钱。", "我的电话是13800138000。", "他说：“你好”。", "我在ABC公司工作。",
]
TYPED = [
    "I can’t sleep.", "Don’t worry about it.", "It’s 2 am again.", "We’re going home.", "I’d like a cup of tea.",
    "She said “hello” to me.", "Tom’s car is red.", "You’ll be fine.", "They’ve already left.",
    "Isn’t it cold today?", "The meeting is at １７:３０.", "It costs $４５.", "I haven’t seen him since ２０１９.",
    "“Where is the station?” he asked.", "That’s my friend‘s book.",
    "我明天１７：３０到。", "这件衣服４５块钱。", "我的电话是１３８００１３８０００。", "他说：“你好”。", "我在ＡＢＣ公司工作。",
]


def test_typed_forms_become_the_plain_ones_and_stay_so() -> None:
    assert [typography(t) for t in TYPED] == PLAIN
    assert [typography(p) for p in PLAIN] == PLAIN  # idempotent: plain text is left alone
    assert typography("a\u00a0b\u200bc\u3000d — e") == "a bc d - e"
    assert split_sentences("I can’t sleep. It’s 2 am.", "en") == ["I can't sleep.", "It's 2 am."]


def test_typed_forms_translate_as_the_plain_ones() -> None:
    both = translate.load()
    assert both.translate(TYPED) == both.translate(PLAIN)
    assert both.translate(" ".join(TYPED[:4])) == both.translate(" ".join(PLAIN[:4]))


def test_doubled_marks_translate_as_single_ones() -> None:
    """The training data never doubles a mark: "!!!", "?!" and an ellipsis are read as one mark, so a
    post's emphasis does not become words (太好了！！！ was "That's so good! What! What!")."""
    both = translate.load()
    assert both.translate("太好了！！！") == both.translate("太好了！")
    assert both.translate("Can't believe it's already December...") == both.translate("Can't believe it's already December.")
    assert both.translate("Are you serious?!") == both.translate("Are you serious?")


def test_shouted_words_translate_as_lower_case_ones() -> None:
    """"This is SO good." came back 这不好意思 ("this is embarrassing")."""
    both = translate.load()
    assert both.translate("This is SO good.") == both.translate("This is so good.")
    assert both.translate("I LOVE THIS PLACE!") == both.translate("I love this place!")


def test_every_line_and_every_sentence_is_translated() -> None:
    """Line breaks survive, and an emoji between two sentences ends the first (both translated)."""
    both = translate.load()
    lines = both.translate("我喜欢茶\n我也喜欢咖啡")
    assert lines.split("\n") == [both.translate("我喜欢茶"), both.translate("我也喜欢咖啡")]
    post = both.translate("我女儿今天学会了骑自行车 👩\u200d👧🚲 我为她感到骄傲！")
    assert post == both.translate("我女儿今天学会了骑自行车 👩\u200d👧🚲") + " " + both.translate("我为她感到骄傲！")
    assert "👩\u200d👧🚲" in post and "proud" in post


def test_the_released_models_do_not_stutter_on_the_sentences_they_stuttered_on() -> None:
    """Outputs of the models released before the no-stutter search (他工作工作。, "Please speak Chinese
    Chinese.") and before a function word said twice was said once (我的祖母住在在云南村庄里。: every
    hypothesis of the beam said it); with them, none of their translations says a run twice in a row."""
    from translate.data.repeats import stutters

    english = ["He works in Beijing.", "Last year I was in Beijing.", "We should protect the environment.",
               "He graduated from Tsinghua University last year.", "Happy birthday to you!",
               "I work from home on Fridays.", "Summer vacation starts in July.",
               "Wang Xiaoming works at a bank in Shenzhen.", "I can't believe my eyes.",
               "My grandmother lives in a small village in Yunnan."]
    chinese = ["请说中文。", "他很忙。", "我妈妈是老师。"]
    both = translate.load()
    for source, output in zip(english + chinese, both.translate(english + chinese)):
        en = source in english
        assert not stutters(output, source, "zh" if en else "en", "en" if en else "zh"), (source, output)


def test_the_released_en_zh_model_keeps_the_negation_it_dropped() -> None:
    """Sources whose translations said no "not" before `decode.keep_negation` (汤姆真爱玛丽。)."""
    from translate.data.negation import negates

    sources = ["Tom doesn't really love Mary.", "He doesn't always come late.", "Didn't you lock up your car?"]
    both = translate.load()
    for source, output in zip(sources, both.translate(sources)):
        assert negates(output, "zh"), (source, output)
