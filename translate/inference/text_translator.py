"""Strings in, strings out around any search engine: normalisation, SentencePiece, length order,
batches, paragraphs, digits, empty lines. Knows nothing about PyTorch: the engine that searches is
passed in (`translate.inference.translator.TorchEngine`, `translate.inference.fast.FastEngine`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from translate.config.schema import DecodeConfig
from translate.data.cleaning import normalize_whitespace
from translate.data.copying import copied_text
from translate.data.made_up import made_up_words
from translate.data.negation import affirms, negates
from translate.data.normalize import (
    chinese_punctuation,
    copy_digits,
    join_translations,
    no_leading_mark,
    normalize_source,
    split_text,
    typography,
)
from translate.data.quantities import numbers_added, numerals_as_digits, without_doubled_numbers
from translate.data.repeats import LETTER, repeated_runs, said_once, says_twice, stutters
from translate.data.shouting import unshouted
from translate.data.tokenizer import Tokenizer, source_ids
from translate.inference.passthrough import protect, read
from translate.inference.search.rules import Hypothesis, RepeatBan

logger = logging.getLogger(__name__)

MAX_SOURCE_TOKENS = 200  # longer inputs are truncated (with a warning) to bound time and memory


@dataclass
class Translation:
    text: str
    score: float
    tokens: list[int]
    # where the search read another text than the one shown (names read as stand-ins: `inference.standins`):
    # that source and the tokens it gave, so that attention is computed on what the search read
    searched: tuple[str, list[int]] | None = None


class Engine(Protocol):
    """A model and its search."""

    def search(self, sources: list[list[int]], decode: DecodeConfig,
               repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
        """Source ids (with EOS) -> per sentence its n-best hypotheses (`repeats`: none that stutters)."""
        ...

    def constrained(self, sources: list[list[int]], decode: DecodeConfig, constraints: list[list[list[int]]],
                    beam_size: int, banned_after: list[int] | None = None,
                    avoid: list[list[list[int]]] | None = None, repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
        """Like `search`, each sentence bound to produce its constraints and none of its `avoid` token
        sequences (`inference.constrained`)."""
        ...


class TextTranslator:
    """An engine, its tokenizers, default decoding settings and the text handling every engine shares."""

    def __init__(self, engine: Engine, src_tokenizer: Tokenizer, tgt_tokenizer: Tokenizer, decode: DecodeConfig,
                 src_lang: str = "", tgt_lang: str = "") -> None:
        """src_lang / tgt_lang ("en", "zh"; "" = unknown) select the input normalisation and how
        sentences of a paragraph are split and joined."""
        self.engine = engine
        self.src_tokenizer, self.tgt_tokenizer, self.decode = src_tokenizer, tgt_tokenizer, decode
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self._letters: np.ndarray | None = None  # letters of each target piece, for `repeat_ban`

    def encode_sources(self, texts: list[str], warn: bool = True) -> list[list[int]]:
        """Each text's source ids, cut to MAX_SOURCE_TOKENS pieces; `warn`: log each cut (the search
        does; counting, costing and aligning the same text again does not)."""
        encoded = self.src_tokenizer.encode([normalize_source(t, self.src_lang) for t in texts])
        for i, ids in enumerate(encoded):
            if len(ids) > MAX_SOURCE_TOKENS:
                if warn:
                        logger.warning("sentence %d has %d pieces; truncated to %d", i + 1, len(ids), MAX_SOURCE_TOKENS)
                encoded[i] = ids[:MAX_SOURCE_TOKENS]
        return [source_ids(ids) for ids in encoded]

    @staticmethod
    def read(text: str) -> str:
        """What the search reads of a text (`inference.passthrough.read`): attention, notices and costs
        are measured on this, not on the text."""
        return read(text)

    def translate(self, texts: list[str], decode: DecodeConfig | None = None) -> list[str]:
        return [n_best[0].text for n_best in self.translate_n_best(texts, decode)]

    def translate_paragraphs(self, texts: list[str], decode: DecodeConfig | None = None) -> list[str]:
        """Like `translate`, but a text of several sentences is translated sentence by sentence
        (all sentences in one batched search) and the translations joined, line by line as the text
        had them (`data.normalize.split_text`, `join_translations`)."""
        split = [split_text(text, self.src_lang) for text in texts]
        pieces = [sentences or [""] for sentences, _ in split]
        flat = self.translate([s for sentences in pieces for s in sentences], decode)
        out, start = [], 0
        for sentences, (_, breaks) in zip(pieces, split):
            out.append(join_translations(flat[start:start + len(sentences)], breaks, self.tgt_lang))
            start += len(sentences)
        return out

    def translate_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        """Translate in batches of similar length; returns n-best lists in input order. URLs, addresses,
        mentions, hashtags, code spans and emoji are not shown to the model and come back verbatim
        (`inference.passthrough`); `as_read` comes first."""
        decode = decode or self.decode
        protected = [protect(self.as_read(text, decode)) for text in texts]
        results = self.search_n_best([p.text for p in protected], decode)
        spaced = self.tgt_lang == "en"
        return [[Translation(p.restore(t.text, spaced), t.score, t.tokens, t.searched) for t in hyps] if p.text != text else hyps
                for text, p, hyps in zip(texts, protected, results)]

    def as_read(self, text: str, decode: DecodeConfig) -> str:
        """A text as every search and glossary reads it: typography made plain; in English, shouted words in
        lower case (`data.shouting`); in Chinese with `decode.numerals_as_digits`, numerals as digits
        (`data.quantities.numerals_as_digits`)."""
        text = typography(text)
        if self.src_lang == "en":
            return unshouted(text)
        return numerals_as_digits(text) if decode.numerals_as_digits and self.src_lang == "zh" else text

    def search_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        """`translate_n_best` on texts as the model reads them (nothing taken out)."""
        decode = decode or self.decode
        sources = self.encode_sources(texts)
        order = sorted(range(len(texts)), key=lambda i: len(sources[i]))
        results: list[list[Translation]] = [[] for _ in texts]
        for start in range(0, len(order), decode.batch_size):
            chunk = order[start:start + decode.batch_size]
            repeats = self.repeat_ban([texts[i] for i in chunk], decode)
            for i, hyps in zip(chunk, self.engine.search([sources[i] for i in chunk], self.alternatives(decode), repeats)):
                results[i] = self.translations(texts[i], hyps, decode)
        for i, text in enumerate(texts):
            if not normalize_whitespace(text):
                results[i] = [Translation("", 0.0, [])]
        return results

    def repeat_ban(self, texts: list[str], decode: DecodeConfig) -> RepeatBan | None:
        """The search's no-stutter and no-repeated-n-gram rules for these source texts (None where
        `decode` asks for neither): the target pieces' letters, and which texts repeat themselves (and may
        be translated with a repeat)."""
        if not (decode.block_repeats or decode.block_ngrams):
            return None
        if self._letters is None:
            tokenizer = self.tgt_tokenizer
            self._letters = np.array([0 if tokenizer.is_special(i) else len(LETTER.findall(tokenizer.piece(i)))
                                      for i in range(len(tokenizer))], dtype=np.int64)
        src = self.src_lang or "en"
        free = np.array([bool(repeated_runs(text, src)) for text in texts], dtype=bool)
        ngram_free = np.array([says_twice(text, src) for text in texts], dtype=bool) if decode.block_ngrams else None
        return RepeatBan(self._letters, free, adjacent=decode.block_repeats, ngram=decode.block_ngrams,
                         ngram_free=ngram_free)

    def alternatives(self, decode: DecodeConfig) -> DecodeConfig:
        """The settings the engine searches with: with the no-stutter search and a beam, every hypothesis
        the beam ends with, so that `translations` can rank those that do not stutter first."""
        if ((decode.block_repeats or decode.keep_negation or decode.no_added_negation or decode.no_added_numbers
             or decode.no_made_up_words)
                and decode.sample == 0
                and decode.n_best < decode.beam_size):
            return replace(decode, n_best=decode.beam_size)
        return decode

    def translations(self, text: str, hyps: list[Hypothesis], decode: DecodeConfig) -> list[Translation]:
        """One source text's hypotheses as strings on one line (byte pieces can spell a newline or another
        control character: they become spaces) that start with no comma (`data.normalize.no_leading_mark`),
        digits the model changed copied back, with `decode.no_doubled_numbers` no words for a number before its
        digits (`data.quantities.without_doubled_numbers`: 三365天 -> 365天), with `decode.chinese_punctuation` a Chinese translation's
        marks next to Han characters full-width; with the no-stutter search, a Chinese function word said
        twice said once (`data.repeats.said_once`: 住在 | 在, which every hypothesis of a beam can share), then those that stutter (`data.repeats.stutters`: the
        search rules on pieces, and a run can be said twice in other pieces, 最长 的 | 最 长的, or around a
        comma) after those that do not; with `decode.keep_negation` and a source that negates, those that
        say no "not" after those that do (`data.negation`: 汤姆真爱玛丽。 after 汤姆不是真爱玛丽。); with
        `decode.no_added_negation`, those that negate where the source neither negates nor says "not" in a word
        of its own ("dislike": `data.negation.adds_negation`) after those that do not (我的网真不是很慢。 after
        我的网联今天很慢。 for "The internet is very slow today."); with
        `decode.no_added_numbers`, those that write a number the source does not say after those that write
        none (`data.quantities.numbers_added`: 它走路1010分钟。 after 它走路10分钟。); with
        `decode.no_made_up_words`, of English translations those that spell a made-up word after the others
        (`data.made_up.made_up_words`: "Is itn't dark?"), the least of these rankings; then the first
        `decode.n_best`."""
        vocab = len(self.tgt_tokenizer)
        if any(token >= vocab for h in hyps for token in h.tokens):  # copy attention copied a source-only piece
            source = self.encode_sources([text])[0]
            outputs = [normalize_whitespace(copied_text(h.tokens, source, self.src_tokenizer, self.tgt_tokenizer,
                                                        self.tgt_lang)) for h in hyps]
        else:
            outputs = [normalize_whitespace(out) for out in self.tgt_tokenizer.decode([h.tokens for h in hyps])]
        outputs = [no_leading_mark(out) for out in outputs]
        src, tgt = self.src_lang or "en", self.tgt_lang or "zh"
        if decode.copy_digits:
            outputs = [copy_digits(text, out) for out in outputs]
        if decode.no_doubled_numbers:
            outputs = [without_doubled_numbers(out, tgt) for out in outputs]
        if decode.chinese_punctuation and tgt == "zh":
            outputs = [chinese_punctuation(out) for out in outputs]
        if decode.block_repeats and tgt == "zh" and not repeated_runs(text, src):
            outputs = [said_once(out) for out in outputs]
        found = [Translation(out, h.score, h.tokens) for out, h in zip(outputs, hyps)]
        if decode.no_made_up_words and tgt == "en" and len(found) > 1:
            found = sorted(found, key=lambda t: bool(made_up_words(t.text, text)))  # ranked first: the least key
        if decode.block_repeats and len(found) > 1:
            found = sorted(found, key=lambda t: stutters(t.text, text, tgt, src))  # stable: the search's order
        if decode.keep_negation and len(found) > 1 and negates(text, src):
            found = sorted(found, key=lambda t: not negates(t.text, tgt))  # then those that keep the negation
        elif decode.no_added_negation and len(found) > 1 and affirms(text, src):
            found = sorted(found, key=lambda t: negates(t.text, tgt))  # then those that add none (`adds_negation`)
        if decode.no_added_numbers and len(found) > 1:
            found = sorted(found, key=lambda t: bool(numbers_added(text, t.text, tgt)))  # then those that add none
        return found[:decode.n_best]
