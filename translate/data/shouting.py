"""Words written in capitals for emphasis, read as the training data writes them. Posts shout ("This is SO
good.", "My cat did it AGAIN.", "I LOVE THIS PLACE!"); the training split's English almost never does, and
the model read "This is SO good." as 这不好意思 ("this is embarrassing"). A word in capitals is read in lower
case where the training split's English holds it in lower case often and never in capitals (TV, OK, USA,
NASA stay, and US, IT, WHO inside a sentence); a sentence in capitals throughout is read in sentence case, a word the training split
does not hold in lower case then capitalised (BEIJING -> Beijing)."""

from __future__ import annotations

import functools
import re
from collections import Counter

from translate.config.paths import default_data_dir

KNOWN_TIMES = 20  # a lower-case word the training split's English holds this often is an ordinary word
ACRONYMS = frozenset({"US", "UN", "IT", "WHO"})  # capitals that name something where they stand inside a sentence
_CAPITALS = re.compile(r"\b[A-Z][A-Z']*[A-Z]\b")  # two letters or more, DON'T included
_LETTERS = re.compile(r"[A-Za-z]")


@functools.cache
def _training_words() -> tuple[Counter[str], frozenset[str]]:
    """(lower-case words of the bundled training split's English and how often, the words it writes in
    capitals); empty where the split is not at hand."""
    try:
        lines = (default_data_dir() / "train.tsv").read_text(encoding="utf-8").splitlines()
    except OSError:
        return Counter(), frozenset()
    english = [line.split("\t", 1)[0] for line in lines]
    lower = Counter(w for text in english for w in re.findall(r"\b[a-z][a-z']*\b", text))
    capitals = frozenset(w for text in english for w in _CAPITALS.findall(text))
    return lower, capitals


def _ordinary(word: str) -> bool:
    lower, capitals = _training_words()
    return word not in capitals and lower[word.lower()] >= KNOWN_TIMES


def unshouted(text: str) -> str:
    """`text` with its shouted words in lower case (see the module)."""
    if not _CAPITALS.search(text):
        return text
    letters = _LETTERS.findall(text)
    if len(text.split()) >= 2 and all(c.isupper() for c in letters):
        words = _CAPITALS.sub(lambda m: m.group() if m.group() == "I" else m.group().lower() if _ordinary(m.group())
                              else m.group().capitalize(), text)
        return re.sub(r"^(\W*)([a-z])", lambda m: m.group(1) + m.group(2).upper(), words)
    return _CAPITALS.sub(lambda m: m.group().lower() if m.group() not in ACRONYMS and _ordinary(m.group())
                         else m.group(), text)
