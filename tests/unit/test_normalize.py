"""User input made to look like the training data; paragraphs split into sentences."""

from __future__ import annotations

import pytest

from translate.data.normalize import (
    chinese_punctuation,
    join_translations,
    normalize_source,
    split_sentences,
    split_text,
    to_simplified,
)


def test_traditional_becomes_simplified_and_simplified_is_unchanged() -> None:
    assert to_simplified("我們明天去臺灣吧，這個軟體很好用") == "我们明天去台湾吧，这个软体很好用"
    assert to_simplified("我喜欢茶。") == "我喜欢茶。"


@pytest.mark.parametrize("raw,clean", [
    ("你好,我叫李明.", "你好，我叫李明。"),
    ("你在干什么?", "你在干什么？"),
    ("他说:「好!」", "他说：“好！”"),
    ("我用Python写代码(很有趣)", "我用Python写代码（很有趣）"),
    ("价格是3.5元.", "价格是3.5元。"),  # a decimal point stays
    ("Hello, world!", "Hello, world!"),  # Latin-only stretches are left alone
])
def test_half_width_punctuation_next_to_han_becomes_full_width(raw: str, clean: str) -> None:
    assert chinese_punctuation(raw) == clean


def test_normalize_source_by_language() -> None:
    assert normalize_source("  這是  什麼?  ", "zh") == "这是 什么？"
    assert normalize_source("  What is this?  ", "en") == "What is this?"
    assert normalize_source("這?", "") == "這?"  # unknown language: whitespace only


def test_split_sentences() -> None:
    assert split_sentences("你好。我叫李明！你呢？", "zh") == ["你好。", "我叫李明！", "你呢？"]
    assert split_sentences("Hello there. Mr. Smith is here! Is it 5 p.m. now? \"Yes.\" J. R. Tolkien wrote it.", "en") == [
        "Hello there.", "Mr. Smith is here!", "Is it 5 p.m. now?", "\"Yes.\"", "J. R. Tolkien wrote it."]
    assert split_sentences("Where is the station?", "en") == ["Where is the station?"]
    assert split_sentences("  ", "en") == []


@pytest.mark.parametrize("text,lang,read", [
    ("Really?!", "en", "Really?"), ("Wow!!!", "en", "Wow!"), ("太好了！！！", "zh", "太好了！"), ("你确定吗？？", "zh", "你确定吗？"),
    ("It's already December...", "en", "It's already December."), ("我等了你一个小时……", "zh", "我等了你一个小时。"),
    ("Well... I guess so.", "en", "Well, I guess so."), ("他说……好吧。", "zh", "他说，好吧。"),
    ("\"Wait...\"", "en", "\"Wait.\""), ("...and then he left.", "en", "and then he left."), ("...", "en", "."),
    ("It costs 3.50 at 9:30.", "en", "It costs 3.50 at 9:30."), ("别迟到哦～", "zh", "别迟到哦。"),
    ("see you~ bye", "en", "see you, bye"), ("10~20人", "zh", "10~20人"), ("I do. You don't?", "en", "I do. You don't?"),
])
def test_marks_are_read_once_as_the_training_data_writes_them(text: str, lang: str, read: str) -> None:
    from translate.data.normalize import normalize_source, single_marks

    assert single_marks(text, lang) == read
    assert normalize_source(text, lang) == normalize_source(read, lang)


@pytest.mark.parametrize("translation,shown", [
    ("，我们不船加拿大，抱歉。", "我们不船加拿大，抱歉。"), (", and then he left.", "and then he left."), ("：你好", "你好"),
    ("。", "。"), ("，", "，"),  # nothing after it: left as the model wrote it
    ("我们好，", "我们好，"), ("\"Hi,\" he said.", "\"Hi,\" he said."),
])
def test_a_translation_starts_with_no_comma(translation: str, shown: str) -> None:
    from translate.data.normalize import no_leading_mark

    assert no_leading_mark(translation) == shown


def test_a_run_of_marks_ends_one_chinese_sentence() -> None:
    assert split_sentences("刚到北京！！！航班晚了。你确定吗？！", "zh") == ["刚到北京！！！", "航班晚了。", "你确定吗？！"]


@pytest.mark.parametrize("text,sentences", [
    ("I passed 🎉 Now I can rest.", ["I passed 🎉", "Now I can rest."]),
    ("Just landed!!! 🛬 The flight was late.", ["Just landed!!! 🛬", "The flight was late."]),  # after its own end
    ("Done. 🎉🎉 See you.", ["Done. 🎉🎉", "See you."]),
    ("I love this place 🎉 so much!", ["I love this place 🎉 so much!"]),  # inside a sentence
    ("Wow! 😂 so funny", ["Wow! 😂 so funny"]),  # no capital after it: no sentence starts there
])
def test_an_emoji_after_a_sentence_goes_with_it(text: str, sentences: list[str]) -> None:
    assert split_sentences(text, "en") == sentences


@pytest.mark.parametrize("source,output,fixed", [
    ("Harvard was founded in 1636.", "哈佛始建于1666年。", "哈佛始建于1636年。"),
    ("I was born on October 10th, 1972.", "我出生在1997年7月。", "我出生在1972年10月。"),  # most similar, not in order
    ("It's already 11.", "已经三十岁了。", "已经三十岁了。"),  # no number in the output: nothing to copy
    ("2 and 3", "3和2", "3和2"),  # the same numbers reordered: left alone
    ("No numbers.", "没有7。", "没有7。"),
    ("About 1,000 people came.", "大约1000人来了。", "大约1000人来了。"),  # the same number without its commas
    ("About 1,000 people came.", "大约1001人来了。", "大约1000人来了。"),  # written as the output writes numbers
    ("The meeting is at 17:30.", "会议在17:50。", "会议在17:30。"),  # a time is one number
])
def test_numbers_the_model_changed_are_copied_back(source: str, output: str, fixed: str) -> None:
    from translate.data.normalize import copy_digits

    assert copy_digits(source, output) == fixed


def test_a_translation_is_one_line_whatever_its_byte_pieces_spell(tiny_model, tiny_tokenizers) -> None:  # type: ignore[no-untyped-def]
    """Byte-fallback pieces can spell a newline or a form feed (sampling draws them now and then): the
    translation text keeps one line, so a file's output keeps one line per input line."""
    from pathlib import Path

    from translate.config.schema import DecodeConfig
    from translate.data.tokenizer import Tokenizer
    from translate.inference.search.rules import Hypothesis
    from translate.inference.translator import Translator

    tgt = Tokenizer.load(Path(__file__).resolve().parents[2] / "checkpoints" / "en-zh" / "tgt.spm.model")
    [wo] = tgt.encode(["我"])
    [hao] = tgt.encode(["好"])
    ids = wo + [tgt.sp.PieceToId("<0x0A>"), tgt.sp.PieceToId("<0x0C>")] + hao
    assert tgt.decode([ids]) == ["我\n\x0c好"]  # what the pieces spell
    translator = Translator(tiny_model, tiny_tokenizers[0], tgt, DecodeConfig())
    [translation] = translator.translations("I am well.", [Hypothesis(ids, 0.0, 0.0)], DecodeConfig())
    assert translation.text == "我 好"


@pytest.mark.parametrize(("text", "lang", "sentences", "breaks"), [
    ("我喜欢茶\n我也喜欢咖啡", "zh", ["我喜欢茶", "我也喜欢咖啡"], [1]),
    ("Hi.\r\n\r\nI like tea. I like coffee.\n", "en", ["Hi.", "I like tea.", "I like coffee."], [2, 0]),
    ("\n\n我喜欢茶。\n\n", "zh", ["我喜欢茶。"], []),
    # an emoji ends a sentence written without a full stop...
    ("我女儿今天学会了骑自行车 👩\u200d👧🚲 我为她感到骄傲！", "zh", ["我女儿今天学会了骑自行车 👩\u200d👧🚲", "我为她感到骄傲！"], [0]),
    ("I passed my exam 🎉 Now I can relax.", "en", ["I passed my exam 🎉", "Now I can relax."], [0]),
    # ... but not one inside a sentence
    ("I love this place 🎉 so much!", "en", ["I love this place 🎉 so much!"], []),
    ("我爱吃🍎和🍌。", "zh", ["我爱吃🍎和🍌。"], []),
])
def test_a_text_splits_into_sentences_line_by_line(text: str, lang: str, sentences: list[str], breaks: list[int]) -> None:
    assert split_text(text, lang) == (sentences, breaks)


def test_translations_are_joined_line_by_line() -> None:
    assert join_translations(["I like tea.", "I like coffee, too."], [1], "en") == "I like tea.\nI like coffee, too."
    assert join_translations(["你好。", "我喜欢茶。", "我也喜欢咖啡。"], [2, 0], "zh") == "你好。\n\n我喜欢茶。我也喜欢咖啡。"
    assert join_translations(["", "a", "", "b"], [1, 0, 0], "en") == "a b"  # empty translations vanish
    assert join_translations(["a", "", "b"], [1, 1], "en") == "a\n\nb"  # ... their line breaks stay
