"""The no-stutter search's last step (`TextTranslator.translations`): the search bans repeats piece by
piece, so a run said twice in other pieces (最长 的 | 最 长的) or around a comma can still end the beam
first; the beam's hypotheses that do not stutter then come before those that do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from translate.config.loading import apply_overrides
from translate.config.schema import DecodeConfig, RunConfig
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.inference.search.rules import Hypothesis
from translate.inference.text_translator import TextTranslator, Translation


class TwoEndings:
    """A scripted engine whose beam ends with a stutter first and a clean translation second."""

    def __init__(self, tgt: Tokenizer, texts: list[str]) -> None:
        self.ids, self.asked = tgt.encode(texts), []  # type: ignore[var-annotated]

    def search(self, sources: list[list[int]], decode: DecodeConfig, repeats: Any = None) -> list[list[Hypothesis]]:
        self.asked.append(decode.n_best)
        return [[Hypothesis(ids, -1.0 - i, -1.0 - i) for i, ids in enumerate(self.ids)][:decode.n_best] for _ in sources]


def translate(tokenizers: tuple[Tokenizer, Tokenizer], source: str, decode: DecodeConfig,
              texts: list[str]) -> tuple[list[str], list[int]]:
    engine = TwoEndings(tokenizers[1], texts)
    out = TextTranslator(engine, *tokenizers, decode, "en", "zh").search_n_best([source])  # type: ignore[arg-type]
    return [t.text for t in out[0]], engine.asked


def test_the_beams_first_translation_that_does_not_stutter_wins(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    texts = ["我们我们好。", "我们好。"]
    assert [t for t in tiny_tokenizers[1].decode(tiny_tokenizers[1].encode(texts))] == texts  # the pieces spell them
    ranked = DecodeConfig(beam_size=5, block_repeats=True)
    assert translate(tiny_tokenizers, "We are fine.", ranked, texts) == (["我们好。"], [5])  # the whole beam asked
    # n-best: the clean one first, the stutter after it
    assert translate(tiny_tokenizers, "We are fine.", DecodeConfig(beam_size=5, n_best=2, block_repeats=True),
                     texts) == (["我们好。", "我们我们好。"], [5])
    # a source that repeats itself may be translated with a repeat: the search's order stays
    assert translate(tiny_tokenizers, "We, we are fine.", ranked, texts)[0] == ["我们我们好。"]
    # without the no-stutter search, the search's best and only what was asked
    assert translate(tiny_tokenizers, "We are fine.", DecodeConfig(beam_size=5), texts) == (["我们我们好。"], [1])


def test_a_function_word_said_twice_is_said_once(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """在 在 is two pieces of one letter each, which the search allows (谢 谢), and every hypothesis of a
    beam can share it: the doubled function word is said once, in each of them."""
    texts = ["他们在在学校。", "他们是是学生。"]  # 是是: verbs are left as said (Chinese doubles them: 说说)
    assert tiny_tokenizers[1].decode(tiny_tokenizers[1].encode(texts)) == texts
    ranked = DecodeConfig(beam_size=5, n_best=2, block_repeats=True)
    assert translate(tiny_tokenizers, "They are at school.", ranked, texts)[0] == ["他们在学校。", "他们是是学生。"]
    # a source that repeats itself, or the search without the no-stutter rule: the words as the search wrote them
    assert translate(tiny_tokenizers, "They are at at school.", ranked, texts)[0] == texts
    assert translate(tiny_tokenizers, "They are at school.", DecodeConfig(beam_size=5, n_best=2), texts)[0] == texts


def test_the_ngram_rule_is_asked_for_alone_and_a_source_that_says_words_twice_is_free(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    translator = TextTranslator(TwoEndings(tiny_tokenizers[1], []), *tiny_tokenizers, DecodeConfig(), "en", "zh")  # type: ignore[arg-type]
    sources = ["I like tea and I like coffee.", "I like tea."]
    assert translator.repeat_ban(sources, DecodeConfig()) is None
    rule = translator.repeat_ban(sources, DecodeConfig(block_ngrams=2))
    assert rule is not None and not rule.adjacent and rule.ngram == 2
    assert rule.ngram_free is not None and rule.ngram_free.tolist() == [True, False]  # "i like" twice
    assert rule.free.tolist() == [False, False]  # neither says a run twice in a row


def test_an_ngram_of_one_piece_is_refused_naming_the_key(tiny_config: RunConfig) -> None:
    with pytest.raises(ConfigError, match=r"decode\.block_ngrams"):
        apply_overrides(tiny_config, {"decode.block_ngrams": 1})


def zh_en_beam(tokenizers: tuple[Tokenizer, Tokenizer], texts: list[str]) -> Callable[[str, DecodeConfig], tuple[list[str], list[int]]]:
    """A zh->en translator whose scripted beam ends with `texts` in this order: source, settings -> (its
    translations, the n-best sizes the engine was asked for)."""
    zh, en = tokenizers[1], tokenizers[0]
    assert en.decode(en.encode(texts)) == texts  # the pieces spell them

    def best(source: str, decode: DecodeConfig) -> tuple[list[str], list[int]]:
        engine = TwoEndings(en, texts)
        out = TextTranslator(engine, zh, en, decode, "zh", "en").search_n_best([source])  # type: ignore[arg-type]
        return [t.text for t in out[0]], engine.asked

    return best


def test_the_beams_first_translation_that_keeps_the_negation_wins(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """zh->en: the scripted beam ends with "I like tea." first; for a source that negates, the first
    translation that says "not" comes first, and the search's order stays otherwise."""
    best = zh_en_beam(tiny_tokenizers, ["I like tea.", "I do not like tea."])
    kept = DecodeConfig(beam_size=5, keep_negation=True)
    assert best("我不喜欢茶。", kept) == (["I do not like tea."], [5])  # the whole beam asked
    assert best("我非常喜欢茶。", kept)[0] == ["I like tea."]  # 非常 ("very") does not negate
    assert best("你想不想喝茶？", kept)[0] == ["I like tea."]  # nor a question said as A-not-A
    assert best("我不喜欢茶。", DecodeConfig(beam_size=5)) == (["I like tea."], [1])  # off: the search's best


def test_a_translation_that_adds_a_negation_comes_after_one_that_adds_none(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """zh->en: the scripted beam ends with "I do not like tea." first; for a source that does not negate, the
    first translation that says no "not" comes first; for one that negates, the search's order stays (the
    negation is the source's); off, the search's best stays."""
    best = zh_en_beam(tiny_tokenizers, ["I do not like tea.", "I like tea."])
    ranked = DecodeConfig(beam_size=5, no_added_negation=True)
    assert best("我喜欢茶。", ranked) == (["I like tea."], [5])  # the whole beam asked
    assert best("我非常喜欢茶。", ranked)[0] == ["I like tea."]  # 非常 ("very") does not negate
    assert best("我不喜欢茶。", ranked)[0] == ["I do not like tea."]  # the source negates: nothing added
    assert best("我喜欢茶。", DecodeConfig(beam_size=5)) == (["I do not like tea."], [1])
    both = DecodeConfig(beam_size=5, keep_negation=True, no_added_negation=True)
    assert best("我喜欢茶。", both)[0] == ["I like tea."]
    assert zh_en_beam(tiny_tokenizers, ["I like tea.", "I do not like tea."])("我不喜欢茶。", both)[0] == [
        "I do not like tea."]


def test_a_translation_that_adds_a_number_comes_after_one_that_adds_none(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """zh->en: the scripted beam ends with "I have two books." first; for a source that says 四 (four),
    the translation that writes no number the source does not say comes first; one that says the
    source's number stays first; off, the search's best stays."""
    best = zh_en_beam(tiny_tokenizers, ["I have two books.", "I have books."])
    ranked = DecodeConfig(beam_size=5, no_added_numbers=True)
    assert best("我有四本书。", ranked) == (["I have books."], [5])  # the whole beam asked
    assert best("我有两本书。", ranked)[0] == ["I have two books."]  # 两 says two: nothing added
    assert best("我有四本书。", DecodeConfig(beam_size=5)) == (["I have two books."], [1])


def test_a_translation_that_makes_up_a_word_comes_after_one_that_makes_up_none(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """zh->en: the scripted beam ends with "Is ity dark?" first; with `decode.no_made_up_words` the
    translation whose words are all English comes first; a number added weighs more than a word made up."""
    best = zh_en_beam(tiny_tokenizers, ["Is ity dark?", "Is it dark?"])
    ranked = DecodeConfig(beam_size=5, no_made_up_words=True)
    assert best("天黑了吗？", ranked) == (["Is it dark?"], [5])  # the whole beam asked
    assert best("天黑了吗？", DecodeConfig(beam_size=5)) == (["Is ity dark?"], [1])
    both = DecodeConfig(beam_size=5, no_made_up_words=True, no_added_numbers=True)
    numbers = zh_en_beam(tiny_tokenizers, ["I have two books.", "I have boooks.", "I have books."])
    assert numbers("我有四本书。", both)[0] == ["I have books."]
    assert zh_en_beam(tiny_tokenizers, ["I have two books.", "I have boooks."])("我有四本书。", both)[0] == ["I have boooks."]


def test_numerals_are_read_as_digits_by_the_search_when_asked(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """`decode.numerals_as_digits`: what the search reads is 一年有365天。 for 一年有三百六十五天。 (only when asked)."""
    zh, en = tiny_tokenizers[1], tiny_tokenizers[0]

    class Reading(TextTranslator):
        seen: ClassVar[list[str]] = []

        def search_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
            self.seen.extend(texts)
            return [[Translation("A year has 365 days.", -1.0, [])] for _ in texts]

    for on, reads in ((True, "一年有365天。"), (False, "一年有三百六十五天。")):
        Reading.seen.clear()
        Reading(TwoEndings(en, []), zh, en, DecodeConfig(numerals_as_digits=on), "zh", "en").translate(["一年有三百六十五天。"])  # type: ignore[arg-type]
        assert Reading.seen == [reads]


def spelled(tokenizers: tuple[Tokenizer, Tokenizer], spelling: str, decode: DecodeConfig, source: str) -> list[str]:
    """What the translator shows when every hypothesis's pieces spell `spelling` (the tiny vocabulary has
    no ASCII marks or digits to spell it with)."""
    zh = tokenizers[1]

    class Spelling(Tokenizer):
        def __init__(self) -> None:
            self.__dict__.update(zh.__dict__)

        def decode(self, ids: list[list[int]]) -> list[str]:
            return [spelling for _ in ids]

    out = TextTranslator(TwoEndings(zh, ["我们好"]), tokenizers[0], Spelling(), decode, "en", "zh").search_n_best(  # type: ignore[arg-type]
        [source])
    return [t.text for t in out[0]]


def test_a_chinese_translations_marks_are_full_width_when_asked(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """`decode.chinese_punctuation`: 我们好! becomes 我们好！ (only when asked, and only for Chinese targets)."""
    for on, shown in ((True, ["我们好！"]), (False, ["我们好!"])):
        assert spelled(tiny_tokenizers, "我们好!", DecodeConfig(beam_size=5, chinese_punctuation=on), "We are good!") == shown


def test_a_number_is_said_once_when_asked(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """`decode.no_doubled_numbers`: the words before a number's digits go (我们三365好 -> 我们365好), only when asked."""
    for on, shown in ((True, ["我们365好。"]), (False, ["我们三365好。"])):
        assert spelled(tiny_tokenizers, "我们三365好。", DecodeConfig(beam_size=5, no_doubled_numbers=on), "We are 365.") == shown
