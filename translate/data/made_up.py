"""Made-up English words: words a translation spells that English has not.

The models build English words from subword pieces, and a small model glues pieces into words that do not
exist: "Is itn't dark?", "I like hisers.", "Beappy your birthday!", "School begined at 8:00." A word is made
up where it is in none of these:

- the English dictionary of the package pyspellchecker (`resources/en.json.gz`: about 160,000 words with
  their inflections, contractions and many names, MIT);
- its source text (a Latin word a Chinese source says: WeChat, iPhone);
- the names the project writes: the names lexicon's and the given names' English (Kaohsiung, Xizhimen);
- a capitalised word that reads as pinyin syllables (Chengqiang, Xihu: a name the model spelled);
- a word in capitals (TV, USD), or a unit's symbol (km, kg).

A word with an apostrophe counts as a word where the dictionary has it (isn't, Tom's) or its part before the
apostrophe is one with 's, 'd, 'll, 're, 've or 'm ("the teacher's"); "itn't" is made up.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from importlib import resources

from translate.config.paths import given_names_file, names_file

WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
_SUFFIXES = ("s", "d", "ll", "re", "ve", "m")
_UNITS = frozenset(["km", "kg", "cm", "mm", "ml", "mg", "kmh", "mph", "kw", "kwh", "hz", "ghz", "mb", "gb", "tb"])


@functools.cache
def dictionary() -> frozenset[str]:
    """pyspellchecker's English words, lower case."""
    with resources.files("spellchecker").joinpath("resources/en.json.gz").open("rb") as raw, gzip.open(raw) as data:
        return frozenset(json.load(data))


@functools.cache
def _name_words() -> frozenset[str]:
    """The words of the names lexicon's and the given names' English, lower case."""
    from translate.data.lexicon import name_rows

    words: set[str] = set()
    for path in (names_file(), given_names_file()):
        for english, _, _ in name_rows(path.read_text(encoding="utf-8")):
            words.update(w.lower() for w in WORD.findall(english))
    return frozenset(words)


@functools.cache
def _splits(rest: str, left: int) -> bool:
    """Whether `rest` (lower case) splits into at most `left` toneless pinyin syllables."""
    from translate.data.pinyin import syllables

    return not rest or left > 0 and any(rest[:end] in syllables() and _splits(rest[end:], left - 1)
                                        for end in range(min(6, len(rest)), 0, -1))


def _pinyin(word: str) -> bool:
    """Whether a word splits into toneless pinyin syllables (xi'an, xizhimen), at most four."""
    return all(_splits(part, 4) for part in word.lower().split("'"))


def _known(word: str) -> bool:
    lower = word.lower()
    words = dictionary()
    if lower in words or lower in _UNITS or lower in _name_words() or (word.isupper() and len(word) > 1):
        return True
    base, _, suffix = lower.rpartition("'")
    if base and suffix in _SUFFIXES and base in words:
        return True
    return word[0].isupper() and _pinyin(word)


def made_up_words(translation: str, source: str = "") -> list[str]:
    """The words of an English `translation` that English has not (see the module), left to right; a word
    its `source` says is none."""
    said = {w.lower() for w in WORD.findall(source)}
    return [w for w in WORD.findall(translation) if w.lower() not in said and not _known(w)]
