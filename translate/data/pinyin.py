"""Chinese people's names between characters and pinyin: 张伟 <-> Zhang Wei, 韩梅梅 <-> Han Meimei.

Characters to pinyin is pypinyin's reading (tones dropped, the given name's syllables written as one
word with an apostrophe before a syllable that starts with a, o or e: Xi'an), the surname read as
people's names in the names lexicon read it (曾 is Zeng in a name, not ceng).

Pinyin to characters is a choice: Lei is 雷 in 李雷 and 磊 in 王磊. The choice made here is the most
frequent. A surname's syllable gives its most frequent surname character among the people of the names
lexicon (`data/cedict-names/names.tsv`: the entries whose English is the pinyin of their Chinese, Ding
Lei = 丁磊). A given name's syllable gives the character that today's given names use most: counted in
the package ngender's `charfreq.csv` (the characters of a large set of given names, MIT), where the
lexicon's people, mostly historical, would give Wei 维 and Jing 靖 for the 伟 and 静 of today's names;
the lexicon's people only for a syllable no character of that file is read as. A name is read as a
Chinese person's only where its surname is such a surname and each syllable of its given name (one word
of one or two syllables: Wei, Meimei, Xiuying) has a character.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from translate.config.paths import names_file
from translate.data.lexicon import name_rows

VOWEL_START = re.compile(r"^[aoe]")
COMPOUND_SURNAMES = frozenset(["欧阳", "司马", "诸葛", "上官", "东方", "司徒", "夏侯", "皇甫", "尉迟", "公孙", "慕容", "长孙", "宇文", "令狐", "端木", "独孤"])
MAX_GIVEN_SYLLABLES = 2


@functools.cache
def syllables() -> frozenset[str]:
    """Every toneless pinyin syllable pypinyin gives a CJK character (about 400; ü written v)."""
    from pypinyin import Style, lazy_pinyin

    found = set()
    for code in range(0x4E00, 0x9FA6):
        reading = lazy_pinyin(chr(code), style=Style.NORMAL)[0]
        if reading.isascii() and reading.isalpha():
            found.add(reading)
    return frozenset(found)


def readings(character: str) -> list[str]:
    """A character's toneless readings, the most usual first."""
    from pypinyin import Style, pinyin

    return [r for r in pinyin(character, style=Style.NORMAL, heteronym=True)[0] if r.isascii()]


def join_syllables(parts: list[str]) -> str:
    """Syllables as one pinyin word: xi + an -> xi'an."""
    word = parts[0] if parts else ""
    for part in parts[1:]:
        word += ("'" if VOWEL_START.match(part) else "") + part
    return word


def split_word(word: str, most: int = MAX_GIVEN_SYLLABLES) -> list[str] | None:
    """A pinyin word in syllables (meimei -> mei mei, xiuying -> xiu ying, xi'an -> xi an), at most `most`
    (a given name's MAX_GIVEN_SYLLABLES by default); None where it is not pinyin. The longest first syllable
    that lets the rest split."""
    word = word.lower()
    if "'" in word:
        parts = word.split("'")
        return parts if all(p in syllables() for p in parts) and len(parts) <= most else None
    found = _split(word, most)
    return list(found) if found is not None else None


@functools.lru_cache(maxsize=65_536)  # bounded: a server reads every word of every request
def _split(rest: str, left: int) -> tuple[str, ...] | None:
    if not rest:
        return ()
    if left == 0:
        return None
    for end in range(min(6, len(rest)), 0, -1):
        if rest[:end] in syllables():
            tail = _split(rest[end:], left - 1)
            if tail is not None:
                return (rest[:end], *tail)
    return None


def surname_length(name: str) -> int:
    return 2 if name[:2] in COMPOUND_SURNAMES else 1


@dataclass(frozen=True)
class PersonTables:
    """Learnt from the names lexicon's people: each surname character's reading, and for each syllable
    the most frequent surname character and given-name character."""

    surname_reading: dict[str, str]
    surname_of: dict[str, str]
    given_of: dict[str, str]

    def romanise(self, name: str) -> str:
        """张伟 -> Zhang Wei; 王秀英 -> Wang Xiuying; 欧阳修 -> Ouyang Xiu."""
        from pypinyin import Style, lazy_pinyin

        cut = surname_length(name)
        surname = self.surname_reading.get(name[:cut]) or "".join(lazy_pinyin(name[:cut], style=Style.NORMAL))
        given = join_syllables(lazy_pinyin(name[cut:], style=Style.NORMAL))
        return f"{surname.capitalize()} {given.capitalize()}".strip().replace("v", "ü")

    def characters(self, name: str) -> str | None:
        """Zhang Wei -> 张伟; None where the name is not a Chinese person's by the tables (the module)."""
        words = name.split()
        if len(words) != 2 or not all(w[:1].isupper() for w in words):
            return None
        surname = self.surname_of.get(words[0].lower())
        parts = split_word(words[1])
        if surname is None or not parts or any(p not in self.given_of for p in parts):
            return None
        return surname + "".join(self.given_of[p] for p in parts)


def _people(pairs: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(surname reading, surname characters, given-name characters) of the pairs whose English is the
    pinyin of their Chinese (a surname by any of its readings)."""
    from pypinyin import Style, lazy_pinyin

    found = []
    for en, zh in pairs:
        words = en.split()
        if len(words) != 2 or not 2 <= len(zh) <= 4 or not all("\u4e00" <= ch <= "\u9fff" for ch in zh):
            continue
        cut = surname_length(zh)
        given = join_syllables(lazy_pinyin(zh[cut:], style=Style.NORMAL))
        surname = words[0].lower().replace("ü", "v")
        options = ["".join(lazy_pinyin(zh[:cut], style=Style.NORMAL))] if cut > 1 else readings(zh[0])
        if given == words[1].lower().replace("ü", "v") and surname in options:
            found.append((surname, zh[:cut], zh[cut:]))
    return found


def given_name_counts() -> dict[str, int]:
    """How often each character is used in given names (men's and women's together), from the package
    ngender (`ngender/charfreq.csv`: char,male,female)."""
    import csv
    from importlib.resources import files

    with files("ngender").joinpath("charfreq.csv").open(encoding="utf-8") as handle:
        return {row["char"]: int(row["male"]) + int(row["female"]) for row in csv.DictReader(handle)}


def learn(pairs: list[tuple[str, str]], given_counts: dict[str, int] | None = None) -> PersonTables:
    """`PersonTables` from (English, Chinese) name pairs and, where given, the given-name characters'
    counts, which choose each syllable's given-name character before the pairs do (see the module)."""
    from pypinyin import Style, lazy_pinyin

    people = _people(pairs)
    reading: defaultdict[str, Counter[str]] = defaultdict(Counter)
    surnames: defaultdict[str, Counter[str]] = defaultdict(Counter)
    given: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for surname, chars, given_chars in people:
        reading[chars][surname] += 1
        surnames[surname][chars] += 1
        for ch in given_chars:
            given[lazy_pinyin(ch, style=Style.NORMAL)[0]][ch] += 1

    def top(table: defaultdict[str, Counter[str]]) -> dict[str, str]:  # ties: the character first seen
        return {key: counts.most_common(1)[0][0] for key, counts in sorted(table.items())}

    used: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for ch, count in (given_counts or {}).items():
        used[lazy_pinyin(ch, style=Style.NORMAL)[0]][ch] += count
    return PersonTables(top(reading), top(surnames), top(given) | top(used))


@functools.cache
def person_tables(path: Path | None = None) -> PersonTables:
    """`learn` on the shipped names lexicon and ngender's given-name characters."""
    rows = name_rows((path or names_file()).read_text(encoding="utf-8"))
    return learn([(en, zh) for en, zh, _ in rows if zh], given_name_counts())
