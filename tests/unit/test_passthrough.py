"""What is not language passes through: URLs, addresses, mentions, hashtags, code spans and emoji are
taken out before the model reads a text and come back verbatim, exactly once, at its ends or before
its closing punctuation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translate.inference.glossary import Glossary, GlossaryTranslator
from translate.inference.passthrough import SPAN, protect
from translate.inference.router import direction_of
from translate.inference.translator import Translator


@pytest.mark.parametrize(("text", "model_reads", "head", "tail", "inner"), [
    ("I love this place 🎉 so much!", "I love this place so much!", "", "", ("🎉",)),
    (" 🎉 #travel", "", " 🎉 #travel", "", ()),
    ("@anna I agree 👍🏽 #fediverse https://x.org/a?b=1", "I agree", "@anna ", " 👍🏽 #fediverse https://x.org/a?b=1", ()),
    ("Hello @anna@mastodon.social, see https://example.org/page. Thanks!", "Hello, see. Thanks!", "", "",
     ("@anna@mastodon.social", "https://example.org/page")),
    ("请访问 https://example.org/page 了解详情。", "请访问 了解详情。", "", "", ("https://example.org/page",)),
    ("Mail tom@example.org or www.example.org/x, then wait.", "Mail or, then wait.", "", "",
     ("tom@example.org", "www.example.org/x")),
    ("Run `pip install x` first.", "Run first.", "", "", ("`pip install x`",)),
    ("👨‍👩‍👧 family 🇨🇳", "family", "👨‍👩‍👧 ", " 🇨🇳", ()),
    ("plain text, C# and a@b", "plain text, C# and a@b", "", "", ()),
    ("@小王 明天下午3点见。", "明天下午3点见。", "@小王 ", "", ()),  # a name of Han characters, ended by a space
    ("谢谢@小王，明天见。", "谢谢，明天见。", "", "", ("@小王",)),  # or by a mark
    ("#考驾照#今天终于拿到驾照了！", "今天终于拿到驾照了！", "#考驾照#", "", ()),  # Weibo's topic between two #
    ("终于拿到驾照了#开心", "终于拿到驾照了", "", "#开心", ()),
])
def test_the_spans_a_text_loses_before_the_model_reads_it(text: str, model_reads: str, head: str, tail: str,
                                                           inner: tuple[str, ...]) -> None:
    protected = protect(text)
    assert (protected.text, protected.head, protected.tail, protected.inner) == (model_reads, head, tail, inner)


def test_spans_come_back_at_the_ends_and_before_the_closing_punctuation() -> None:
    assert protect("I love this place 🎉 so much!").restore("我很喜欢这个地方！") == "我很喜欢这个地方 🎉！"
    assert protect("@anna I agree 👍 #fediverse").restore("我同意。") == "@anna 我同意。 👍 #fediverse"
    assert protect(" 🎉 #travel").restore("") == " 🎉 #travel"  # nothing to translate: unchanged
    assert protect("我今天很开心😊").restore("I'm very happy today.") == "I'm very happy today.😊"


WORD = st.sampled_from(["tea", "I", "like", "我", "喜欢", "茶", ",", "."])
SPAN_TEXT = st.sampled_from(["🎉", "👍🏽", "#travel", "@anna", "@a@b.org", "https://x.org/p?q=1", "`x = 1`",
                             "a.b@c.org", "🇨🇳", "www.x.org"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(WORD, SPAN_TEXT), min_size=1, max_size=12), st.text(alphabet="我们 Itea。.!", max_size=20))
def test_every_span_comes_back_once_whatever_the_model_writes(parts: list[str], translation: str) -> None:
    text = " ".join(parts)
    protected = protect(text)
    restored = protected.restore(translation)
    spans = [m.group(0) for m in SPAN.finditer(text)]
    assert not SPAN.search(protected.text)  # the model sees none of them
    for span in set(spans):
        assert restored.count(span) >= spans.count(span)
    if not protected.text:
        assert restored == text


def test_a_sentence_with_an_emoji_translates_as_the_sentence_without_it(translator: Translator) -> None:
    [with_emoji, without] = translator.translate(["I like tea 🎉 very much.", "I like tea very much."])
    assert with_emoji.replace(" 🎉", "") == without and with_emoji.count("🎉") == 1
    decode = translator.decode.__class__(**{**translator.decode.__dict__, "beam_size": 3, "n_best": 3})
    for hyps in translator.translate_n_best(["Tea #cozy https://x.org/t"], decode):  # every alternative keeps them
        assert all(h.text.endswith(" #cozy https://x.org/t") for h in hyps)
    glossary = GlossaryTranslator(translator, Glossary.from_pairs([("tea", "咖啡")]))
    assert "咖啡" in glossary.translate(["I like tea 🎉 very much."])[0] and "🎉" in glossary.translate(["tea 🎉"])[0]


def test_the_language_of_a_text_is_read_without_its_urls() -> None:
    assert direction_of("请访问 https://example.org/some/long/page 了解详情。") == "zh-en"
    assert direction_of("https://example.org") == "en-zh"  # nothing else to read: as before


@pytest.mark.parametrize(("text", "translation", "english", "chinese"), [
    ("@li今天好冷", "It's cold today.", "@li It's cold today.", "@liIt's cold today."),
    ("请看https://example.org/x", "Please see.", "Please see. https://example.org/x", "Please see.https://example.org/x"),
    ("`git pull`我做了", "I did it.", "`git pull` I did it.", "`git pull`I did it."),
    ("@li 今天好冷", "It's cold today.", "@li It's cold today.", "@li It's cold today."),  # the source's own space
])
def test_a_span_written_against_chinese_words_is_not_glued_to_english(text: str, translation: str, english: str,
                                                                       chinese: str) -> None:
    assert protect(text).restore(translation, spaced=True) == english
    assert protect(text).restore(translation) == chinese  # a target without spaces keeps the source's spacing


def test_a_markdown_code_span_of_two_backticks_keeps_the_backticks_inside_it_verbatim() -> None:
    from translate.inference.passthrough import protect

    found = protect("Run ``git `pull` now`` please.")
    assert found.text == "Run please." and found.inner == ("``git `pull` now``",)
    assert found.restore("请运行。") == "请运行 ``git `pull` now``。"
