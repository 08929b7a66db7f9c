"""Names read as names the model knows: each person or place the names lexicon or the pinyin rules find
in a sentence is replaced, before the search, by a stand-in that the model translates reliably, and the
stand-in's translation is then replaced by the name's own form.

The models learnt names from the Tatoeba training split, which holds a few of them thousands of times
and most never: 汤姆住在北京。 comes back "Tom lives in Hokkaido.", "I was born in Beijing." 我出生在北京生。,
while "Tom lives in Boston." and 汤姆住在波士顿。 come back right. Forcing the name into the search
(`inference.glossary`, a constrained search) places it, but the model still writes around a word it does
not know (北京机, 黑西安). Read with a stand-in, the sentence is one the model knows: "Li Lei lives in
Chengdu." is searched as "Tom lives in Boston.", 汤姆住在波士顿。 becomes 李雷住在成都。.

- Names: the names lexicon's people and places (the kind CC-CEDICT's description gives, where it gives
  one: `data.lexicon.gloss_kind`; else `kind_of`: by the pinyin its English spells, else by rjieba's
  tag); Western given names (`data.given_names`: Jim = 吉姆) as people where the lexicon has
  none; Chinese people's names written in pinyin (English sources) or found by
  rjieba (Chinese sources: not a word the training split holds `KNOWN_TIMES` times, as 谢谢 and 明白,
  which rjieba's dictionary tags as people: `known_word`) and written in the other script by `data.pinyin`;
  a surname with its title as one person, the title in the other language's order (Mr. Chen = 陈先生,
  Professor Huang = 黄教授). Where two overlap, the
  longer; on a tie, the lexicon's. A single pinyin syllable (Li, Zhang, Wei) is never read as a name of
  the lexicon in English: it is a surname far more often than the county or dynasty the lexicon has. A
  name of the lexicon of several capitalised words whose kind is unknown (Palace Museum 故宫博物院, Fudan
  University, Spring Festival) is read as a place: "Fudan University is in Shanghai." is searched as
  "Boston is in Shanghai." (alone, the model wrote 大衣, a coat). A place's stand-in takes no article
  ("The Great Wall is long." is searched as "Boston is long."); a name's article is no part of it in
  the lexicon (`inference.glossary`: "the Great Wall" is found in "The Great Wall").
- Stand-ins (`PEOPLE`, `PLACES`): the names the training split holds most often, each translated the
  same way in at least 94 % of its pairs there; one not already in the sentence, in order, one per
  name. A sentence with more names of a kind than stand-ins keeps the rest for the lexicon's
  constrained search.
- A currency that the training split never names: in an English sentence yuan, RMB ("This coat costs
  399 yuan." came back 这件大大衣在399年了, "399 years"), read as dollars, and 美元 in the translation
  written back as 元 (人民币 for RMB); in a Chinese sentence 元 and 块 after a number (the training split's
  Chinese says them for dollars; 一共五十六块 came back "Move45."), read as 美元, and "dollars" written back
  as "yuan". It is not forced: a translation without the stand-in stays as it is.
- Large numbers, with `decode.number_standins`: the training split writes few numbers in digits, and the
  models garble a thousands comma or a scale ("The fridge costs 3,299 yuan." came back 13299元花了319,
  这个城市的人口大约八百万。 "The population of the city is about 800."). Each number that
  `data.quantities.carried_numbers` finds (12,000; 8 million; 800万) is read as a stand-in of `NUMBERS`
  (20, 30, 50, 40: numbers the models copy and place as quantities) and written back as the target
  language writes it (`data.quantities.written`: 12000, 800万; 12,000, 8 million), in digits or words
  (20, twenty, 二十 alike); "$20" for a Chinese source's 20元 is written back as "20 yuan".
- The stand-ins' translations (people's and places') are themselves terms of the search: a translation that lacks one is
  searched again, bound to write it (`inference.glossary`), so every name comes back. The lexicon's
  other names stay forced terms for Chinese sources, as without stand-ins; for English sources they
  are left to the model (the lexicon's English = 英文, Japanese = 日文 would replace the model's right
  英语 and 日本人).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from translate.config.paths import default_data_dir
from translate.config.schema import DecodeConfig
from translate.data.dates import whens, written_when
from translate.data.normalize import normalize_source
from translate.data.pinyin import person_tables, surname_length, syllables
from translate.data.quantities import ZH_NUMERALS, carried_numbers, written
from translate.inference import glossary
from translate.inference.glossary import Glossary, Term
from translate.inference.text_translator import TextTranslator, Translation
from translate.tokens import EOS_ID

if TYPE_CHECKING:
    from translate.inference.translator import Alignment, Translator

PEOPLE = (Term("Tom", "汤姆"), Term("Mary", "玛丽"))
PLACES = (Term("Boston", "波士顿"), Term("London", "伦敦"), Term("Tokyo", "东京"))
# a currency the training split never names, read as the one it names most (its Chinese written back, not forced)
CURRENCIES = (Term("dollars", "美元"),)
# numbers the models copy and place as quantities (20 people, 20美元); their words are read as them too
NUMBERS = (Term("20", "20"), Term("30", "30"), Term("50", "50"), Term("40", "40"))
_NUMBER_WORDS = {"20": ("twenty", "二十"), "30": ("thirty", "三十"), "50": ("fifty", "五十"), "40": ("forty", "四十")}
_CURRENCY_EN = {"yuan": "元", "rmb": "人民币", "renminbi": "人民币"}
_DOLLAR_SIGN = re.compile(r"\$(\d[\d,]*(?:\.\d+)?(?: (?:million|billion))?)(?: dollars?(?!\w))?")
_CURRENCY_WORD = re.compile(rf"(?<![\w]){'|'.join(_CURRENCY_EN)}(?![\w])", re.IGNORECASE)
# 元 and 块(钱) after a number: yuan; 块 where a sentence, a clause or a price ends (12块一杯, 5块每斤), not
# before a noun, which it counts (两块蛋糕, two pieces of cake)
_CURRENCY_ZH = re.compile(r"(?<=[0-9零〇一二两三四五六七八九十百千万亿])"
                          r"(?:元|块钱|块(?=[。！？，、；：.!?,;:\s]|$|每|一[杯个斤份张瓶碗次天晚位件本盒]))")
# a date and a time of day (`data.dates`): a weekday and noon, which the models translate and place as dates
# and times ("on Sunday", "at noon"); each stand-in's translations in every form the models write, the longest
# first (中午12点 is one: noon's 12 is no part of the time written back)
DATES = (Term("Sunday", "周日"), Term("Monday", "周一"))
TIMES = (Term("noon", "中午"), Term("midnight", "午夜"))
FORMS = {"周日": ("星期天", "星期日", "礼拜天", "礼拜日", "周日"), "周一": ("星期一", "礼拜一", "周一"),
         "中午": ("中午十二点", "中午12点", "中午十二", "中午12", "正午", "中午"),
         "午夜": ("午夜十二点", "午夜12点", "午夜十二", "午夜12", "半夜", "午夜"),
         "noon": ("12 noon", "twelve noon", "midday", "noon"), "midnight": ("12 midnight", "midnight"),
         "Sunday": ("Sundays", "Sunday"), "Monday": ("Mondays", "Monday"),
         "六点": ("六点钟", "六点", "6点钟", "6点"), "七点": ("七点钟", "七点", "7点钟", "7点"),
         "six o'clock": ("six o'clock", "6 o'clock", "6:00", "six", "6"),
         "seven o'clock": ("seven o'clock", "7 o'clock", "7:00", "seven", "7")}
# a clock alone (17:30; `decode.clock_standins`): an hour the models place as a clock ("at six o'clock", 六点),
# free only where the rest of the sentence says no such number, since its translation may be the number alone
CLOCKS = (Term("six o'clock", "六点"), Term("seven o'clock", "七点"))
_CLOCK_NUMBER = {"six o'clock": r"(?<![\w])(?:six|6)(?![\w])", "六点": r"六|(?<!\d)6(?!\d)",
                 "seven o'clock": r"(?<![\w])(?:seven|7)(?![\w])", "七点": r"七|(?<!\d)7(?!\d)"}
WHENS = Glossary([*DATES, *TIMES], cased=True)
CLOCK_TERMS = Glossary(list(CLOCKS))
STANDINS = Glossary([*PEOPLE, *PLACES], cased=True)
KINDS = {"nr": "person", "ns": "place"}  # rjieba's tags (and those that start with them: nrt, nrfg)
_PINYIN_PAIR = re.compile(r"(?<![\w'])(?=([A-Z][a-z]+ [A-Z][a-z']+)(?![\w']))")  # every "Surname Given" pair
# a title and a surname alone (Mr. Chen), not the first of two names (Mr. Zhang Wei: `_PINYIN_PAIR`); the
# title's Chinese, said after the surname
TITLES = {"Mr": "先生", "Mrs": "太太", "Ms": "女士", "Miss": "小姐", "Dr": "医生", "Doctor": "医生", "Prof": "教授",
          "Professor": "教授", "Teacher": "老师"}
_TITLED_SURNAME = re.compile(rf"\b({'|'.join(TITLES)})\.? ([A-Z][a-z]+)\b(?! [A-Z])")
# a surname and the title after it in a Chinese sentence (陈先生 -> Mr. Chen, 张老师 -> Teacher Zhang)
TITLES_ZH = {"先生": "Mr.", "太太": "Mrs.", "女士": "Ms.", "小姐": "Miss", "医生": "Dr.", "大夫": "Dr.",
             "教授": "Professor", "老师": "Teacher"}
_TITLE_ZH = re.compile("|".join(TITLES_ZH))
_DESCRIBING = "老小大"  # surnames that before a title describe: 老太太 an old lady, 小老师, 大医生
_FUNCTION_TAGS = ("v", "p", "d", "c", "u", "r", "f", "m", "q")  # a character rjieba glued to a name
_NAMED_THING = re.compile(r"(?<![\w'-])[A-Z][\w'-]*(?: [A-Z][\w'-]*)+")  # capitalised words: Palace Museum, Fudan University
_ARTICLE = re.compile(r"(?<!\w)[Tt]he $")  # "the" before a place's stand-in: Boston takes none
KNOWN_TIMES = 2  # a word the training split's Chinese holds this often is one the model knows


@dataclass(frozen=True)
class Found:
    begin: int
    end: int
    target: str  # the name in the target language
    kind: str  # person, place or "" (left to the lexicon)
    lexicon: bool


@functools.cache
def kind_of(english: str, chinese: str) -> str:
    """person, place, or "": a Chinese name that its English spells in pinyin is a place when the
    English is one word (Dalian, Guilin), a person when it is a surname and a given name (Wang Wei);
    other names are what rjieba tags them when it tags them as one word (nr: a person, ns: a place)."""
    from pypinyin import Style, lazy_pinyin

    spoken = "".join(lazy_pinyin(chinese, style=Style.NORMAL))
    if re.sub(r"[^a-z]", "", english.lower()) == spoken:
        return "place" if " " not in english else "person" if len(english.split()) == 2 else ""
    return tagged_kind(chinese)


@functools.cache
def tagged_kind(chinese: str) -> str:
    """What rjieba tags a Chinese name as, where it reads it as one word: person (nr), place (ns) or ""."""
    import rjieba

    tags = rjieba.tag(chinese, True)
    return KINDS.get(tags[0][1][:2], "") if len(tags) == 1 else ""


def _lexicon_names(sentence: str, lang: str) -> list[Found]:
    """The names lexicon's names, then the Western given names where no lexicon name overlaps; each of the
    kind its entry says (CC-CEDICT's description: Berlin 柏林, "capital of Germany", is a place, although
    rjieba tags it as a person), else a name of the lexicon whose English is a given name (Kevin, David:
    its pinyin spelling is chance) is a person unless rjieba tags it as a place, and others `kind_of`."""
    target = "zh" if lang == "en" else "en"
    given = glossary.given_names()
    found: list[Found] = []
    for lexicon in (glossary.names_lexicon(), given):
        for match in lexicon.matches(sentence, lang):
            if lang == "en" and " " not in match.term.en and match.term.en.lower() in syllables():
                continue
            if all(match.end <= f.begin or match.begin >= f.end for f in found):
                if match.term.kind:
                    kind = match.term.kind
                elif lexicon is given:
                    kind = "person"
                elif given.holds(match.term.en):
                    kind = "place" if tagged_kind(match.term.zh) == "place" else "person"
                else:
                    kind = kind_of(match.term.en, match.term.zh)
                if not kind and _NAMED_THING.fullmatch(match.term.en):
                    kind = "place"
                found.append(Found(match.begin, match.end, match.term.side(target), kind, True))
    return found


def _pinyin_people(sentence: str) -> list[Found]:
    """Chinese people written in pinyin in an English sentence (Li Lei -> 李雷), and a Chinese surname
    after a title, read as one person with the title in Chinese order (Mr. Chen -> 陈先生, Professor Huang
    -> 黄教授): the model translates "Tom will arrive" far better than "Mr. Tom will arrive"."""
    tables = person_tables()
    found = []
    for match in _PINYIN_PAIR.finditer(sentence):
        chinese = tables.characters(match.group(1))
        if chinese:
            found.append(Found(match.start(1), match.end(1), chinese, "person", False))
    for match in _TITLED_SURNAME.finditer(sentence):
        surname = tables.surname_of.get(match.group(2).lower())
        if surname:
            found.append(Found(match.start(), match.end(), surname + TITLES[match.group(1)], "person", False))
    return found


@functools.cache
def _training_chinese() -> str:
    """The Chinese side of the bundled training split, what the released models learnt ("" where absent)."""
    path = default_data_dir() / "train.tsv"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    return "\n".join(line.split("\t")[1] for line in lines if line.count("\t") >= 1)


def known_word(word: str) -> bool:
    """Whether the training split's Chinese holds `word`, or a part of it of two characters or more, at
    least KNOWN_TIMES times: words the model has learnt (谢谢, 明白, 老虎, 博客, and 太阳升 of 太阳升起来了),
    which rjieba's dictionary tags as people, left to it."""
    text = _training_chinese()
    return any(text.count(word[i:j]) >= KNOWN_TIMES for i in range(len(word)) for j in range(i + 2, len(word) + 1))


def _chinese_people(sentence: str) -> list[Found]:
    """Chinese people's names that rjieba finds (with its HMM) in a Chinese sentence, whose surname the
    names lexicon's people have (张伟 -> Zhang Wei), and that are no word the model knows (`known_word`);
    a surname tagged alone joins the name after it (王 | 秀英), and a last character the plain
    segmentation tags as a verb or a function word leaves it (李雷住 -> 李雷; 汤闻, soup and smell, is
    then no name)."""
    import rjieba

    tables = person_tables()
    tokens = rjieba.tag(sentence, True)
    plain = {}
    at = 0
    for word, tag in rjieba.tag(sentence, False):
        plain[at] = (word, tag)
        at += len(word)
    found, at, i = [], 0, 0
    while i < len(tokens):
        word, tag = tokens[i]
        name, size = "", 1
        if tag.startswith("nr") and word[:surname_length(word)] in tables.surname_reading:
            if len(word) == surname_length(word) and i + 1 < len(tokens) and tokens[i + 1][1].startswith("nr") \
                    and len(tokens[i + 1][0]) <= 2:
                name, size = word + tokens[i + 1][0], 2
            elif 2 <= len(word) <= 4:
                name = word
                last = plain.get(at + len(word) - 1)
                if last and len(last[0]) == 1 and last[1].startswith(_FUNCTION_TAGS):
                    name = word[:-1]
        if name and len(name) >= 2 and not known_word(name):
            found.append(Found(at, at + len(name), tables.romanise(name), "person", False))
        at += sum(len(w) for w, _ in tokens[i:i + size])
        i += size
    return found


def _titled_people(sentence: str) -> list[Found]:
    """A surname of the names lexicon's people and a title after it in a Chinese sentence, read as one
    person with the title in English order (陈先生 -> Mr. Chen, 黄教授 -> Professor Huang): the mirror of
    `_pinyin_people`'s titles. The surname (two characters, else one) must start a word of rjieba's
    segmentation, not be a word of its own that is a function word (和老师 is "and the teacher", 于先生
    "at Mr."; 林 | 医生 is Dr. Lin; 张 is a measure word only after a number or a pronoun), nor one that
    describes (`_DESCRIBING`: 老太太 is an old lady)."""
    import rjieba

    tables = person_tables()
    starts, at, before = {}, 0, ""
    for word, tag in rjieba.tag(sentence, False):  # a measure word only after a number or 这, 那 (一张 | 医生)
        starts[at] = (word, "n" if tag == "q" and not before.startswith(("m", "r")) else tag)
        at, before = at + len(word), tag
    found = []
    for match in _TITLE_ZH.finditer(sentence):
        for size in (2, 1):
            begin = match.start() - size
            surname, token = sentence[max(begin, 0):match.start()], starts.get(begin)
            if begin < 0 or surname not in tables.surname_reading or surname_length(surname) != size \
                    or surname in _DESCRIBING or token is None or (token[0] == surname and token[1].startswith(_FUNCTION_TAGS)):
                continue
            english = f"{TITLES_ZH[match.group()]} {tables.surname_reading[surname].capitalize()}"
            found.append(Found(begin, match.end(), english, "person", False))
            break
    return found


def _currencies(sentence: str, lang: str) -> list[Found]:
    """Currencies the training split never names as such: in English "yuan" ("399 yuan": the model wrote
    399年, 399 years), read as dollars and written back (元, 人民币); in Chinese 元 and 块 after a number,
    which its Chinese says for dollars (一共五十六块 came back "Move45."), read as 美元 and written back
    as yuan."""
    if lang == "zh":
        return [Found(m.start(), m.end(), "yuan", "currency", False) for m in _CURRENCY_ZH.finditer(sentence)]
    return [Found(m.start(), m.end(), _CURRENCY_EN[m.group().lower()], "currency", False)
            for m in _CURRENCY_WORD.finditer(sentence)]


def _numbers(sentence: str, lang: str) -> list[Found]:
    """The numbers a stand-in carries (`data.quantities.carried_numbers`: 12,000, 8 million, 800万), each
    to be written back as the target language writes it (12000, 800万; 12,000, 8 million)."""
    target = "zh" if lang == "en" else "en"
    return [Found(begin, end, written(value, target), "number", False) for begin, end, value in carried_numbers(sentence, lang)]


def _dates(sentence: str, lang: str, dates: bool, clocks: bool, words: bool = False) -> list[Found]:
    """The dates and times of day of a sentence (`data.dates.whens`; with `clocks`, clocks alone; without
    `dates`, those alone; with `words`, those said in words too: "the tenth of May", "half past six"), each to be written back as the target language writes it (3月12日, 晚上7点40分;
    "March 12", "7:40 p.m."; 17:30 as it is)."""
    target = "zh" if lang == "en" else "en"
    return [Found(begin, end, written_when(when, target), "clock" if when.clock else when.kind, False)
            for begin, end, when in whens(sentence, lang, clocks, spoken=words and dates) if dates or when.clock]


def find_names(sentence: str, lang: str, numbers: bool = False, dates: bool = False, clocks: bool = False,
               words: bool = False) -> list[Found]:
    """The names of a normalised sentence, left to right, without overlaps (see the module); with
    `numbers`, the numbers that a stand-in carries too; with `dates`, the dates and times of day (with
    `words`, those said in words too); with `clocks`, clocks alone (17:30)."""
    candidates = _lexicon_names(sentence, lang) + _currencies(sentence, lang) + (_numbers(sentence, lang) if numbers else []) + (
        _dates(sentence, lang, dates, clocks, words) if dates or clocks else []) + (
        _pinyin_people(sentence) if lang == "en" else _titled_people(sentence) + _chinese_people(sentence))
    chosen: list[Found] = []
    for found in sorted(candidates, key=lambda f: (f.begin - f.end, not f.lexicon, f.begin)):
        if all(found.end <= c.begin or found.begin >= c.end for c in chosen):
            chosen.append(found)
    return sorted(chosen, key=lambda f: f.begin)


@dataclass
class Substitution:
    """A sentence with its names replaced by stand-ins, and what to write back."""

    text: str
    back: list[tuple[str, str]] = field(default_factory=list)  # (stand-in's translation, the name's)
    times: list[int] = field(default_factory=list)  # how often the text says each stand-in of `back`
    numbers: bool = False  # numbers read as stand-ins too (`decode.number_standins`)

    def lacks_a_date(self, translation: str, lang: str) -> bool:
        """Whether a translation (of the text with stand-ins, in `lang`) says no form of a date's or time's
        stand-in ("It's lunch at Boston." for 从波士顿来的火车中午到。): the date or time would be lost."""
        return any(standin in FORMS and _count(translation, standin, lang) == 0 for standin, _ in self.back)

    def doubled(self, translation: str, lang: str) -> bool:
        """Whether a translation (of the text with stand-ins, in `lang`) says a stand-in more often than
        the text does: "a lot of Boston on Boston" for 长城上人很多."""
        return any(_count(translation, standin, lang) > times for (standin, _), times in zip(self.back, self.times))

    def restore(self, translation: str, lang: str) -> str:
        """The translation with each stand-in's translation replaced by its name's (an English sentence that
        started with a capital still does: "the Great Wall is long." starts "The"); numbers first, all at
        once, in digits or words (20 or twenty, 二十), so that no value written back is read as a stand-in."""
        capital = translation[:1].isupper()
        numbers = {standin: value for standin, value in self.back if standin in _NUMBER_WORDS}
        if numbers:
            forms = {form: numbers[standin] for standin in numbers for form in (standin, *_NUMBER_WORDS[standin])}
            digits = "|".join(numbers)
            words = "|".join(word for standin in numbers for word in _NUMBER_WORDS[standin])
            pattern = (rf"(?<![\d.,])(?:{digits})(?![\d]|[.,]\d)|(?<![\w-])(?:{words})(?![\w-])" if lang == "en" else
                       rf"(?<![\d.,{ZH_NUMERALS}])(?:{digits}|{words})(?![\d{ZH_NUMERALS}]|[.,]\d)")

            def value(match: re.Match[str]) -> str:  # "The20 people" (a piece glued to the stand-in): "The 3,000 people"
                glued = lang == "en" and match.start() > 0 and translation[match.start() - 1].isalpha()
                return (" " if glued else "") + forms[match.group().lower()]
            translation = re.sub(pattern, value, translation, flags=re.IGNORECASE)
        for standin, name in self.back:
            if standin in numbers:
                continue
            if standin in FORMS:  # a date or time: the first of its forms the translation writes
                translation = _written_back(translation, standin, name, lang)
            elif lang == "en":
                if standin == "dollars" and self.numbers:  # 20美元 searched, "$20" or "$20 dollars" written: "20 yuan"
                    translation = _DOLLAR_SIGN.sub(rf"\1 {name}", translation)
                translation = re.sub(rf"(?<![\w]){re.escape(standin)}(?![\w])", name.replace("\\", r"\\"), translation)
            else:
                translation = translation.replace(standin, name)
        return translation[:1].upper() + translation[1:] if capital else translation


def substitute(sentence: str, lang: str, glossaries: Sequence[Glossary] = (), numbers: bool = False,
               dates: bool = False, clocks: bool = False, words: bool = False,
               times_as_clocks: bool = False) -> Substitution:
    """`sentence` (normalised) with each person and place replaced by a stand-in (see the module), and with
    `numbers` each number that a stand-in carries (`_numbers`; `decode.number_standins`), with `dates` each
    date and time of day (`_dates`; `decode.date_standins`; with `words`, those said in words too:
    `decode.dates_in_words`; with `times_as_clocks` a time's stand-in is a clock's, "six o'clock", not noon:
    `decode.times_as_clocks`), with `clocks` each clock alone (17:30;
    `decode.clock_standins`). The
    terms of the user's `glossaries` win over the names found: a person or place among them is read as a
    stand-in too and written back in the user's form; another term keeps the names it overlaps as they are
    (the user's term is forced into the search)."""
    own = {t.side(lang) for t in STANDINS.terms}
    target = "zh" if lang == "en" else "en"
    users = [Found(m.begin, m.end, m.term.side(target), kind_of(m.term.en, m.term.zh), True)
             for g in glossaries for m in g.matches(sentence, lang)]
    found = [f for f in users if f.kind] + [
        f for f in find_names(sentence, lang, numbers, dates, clocks, words) if all(f.end <= u.begin or f.begin >= u.end for u in users)]
    found = sorted((f for f in found if f.kind and sentence[f.begin:f.end] not in own), key=lambda f: f.begin)
    if not found:
        return Substitution(sentence, numbers=numbers)
    free = {kind: [t for t in pool if not _holds(sentence, t.side(lang), lang)]
            for kind, pool in (("person", PEOPLE), ("place", PLACES), ("currency", CURRENCIES), ("number", NUMBERS),
                               ("date", DATES), ("time", TIMES))}
    if clocks or times_as_clocks:  # the clocks' pool is read on the sentence without what the stand-ins replace
        covered = bytearray(len(sentence))
        for f in found:
            covered[f.begin:f.end] = b"\x01" * (f.end - f.begin)
        rest = "".join(" " if covered[i] else c for i, c in enumerate(sentence))
        free["clock"] = [t for t in CLOCKS if not re.search(_CLOCK_NUMBER[t.side(lang)], rest, re.IGNORECASE)]
        if times_as_clocks:  # one pool: a clock alone and a time never share a stand-in
            free["time"] = free["clock"]
    given: dict[str, Term] = {}
    pieces, back, at = [], [], 0
    for name in found:
        key = sentence[name.begin:name.end]
        if key not in given:
            if not free[name.kind]:
                continue
            given[key] = free[name.kind].pop(0)
            back.append((given[key].side(target), name.target))
        before = sentence[at:name.begin]
        if lang == "en" and name.kind == "place":
            before = _ARTICLE.sub("", before)
        pieces += [before, given[key].side(lang)]
        at = name.end
    pieces.append(sentence[at:])
    text = "".join(pieces)
    return Substitution(text, back, [_count(text, term.side(lang), lang) for term in given.values()],  # as `back`
                        numbers)


def _holds(text: str, word: str, lang: str) -> bool:
    return _count(text, word, lang) > 0


def _count(text: str, word: str, lang: str) -> int:
    if word in FORMS:  # a date's or time's stand-in, in any of its forms
        return sum(_count_one(text, form, lang) for form in _apart(text, FORMS[word]))
    return _count_one(text, word, lang)


def _apart(text: str, forms: Sequence[str]) -> list[str]:
    """Each occurrence of `forms` in `text` once: the longest form where one holds another (中午12点, 中午)."""
    found = []
    for form in forms:
        if form in text:
            found.append(form)
            text = text.replace(form, "\0")
    return found


def _written_back(translation: str, standin: str, name: str, lang: str) -> str:
    """A translation with a date's or time's stand-in, in whichever of its forms it writes it, replaced by
    the date or time: a run of them once (周日周日 is a stutter, not two dates), and a point that both end
    with once ("at 10 p.m." ending a sentence)."""
    forms = "|".join(re.escape(form) for form in FORMS[standin])
    pattern = rf"(?<!\w)(?:{forms})(?:[ \t]*(?:{forms}))*(?!\w)" if lang == "en" else f"(?:{forms})+"
    if name.endswith("."):
        pattern += r"\.?"
    return re.sub(pattern, name.replace("\\", r"\\"), translation, flags=re.IGNORECASE)


def _count_one(text: str, word: str, lang: str) -> int:
    if word.isdigit():  # a number's stand-in: 20, not the 20 of 2020 or 1.20
        return len(re.findall(rf"(?<![\d.,]){word}(?![\d]|[.,]\d)", text))
    return text.count(word) if lang == "zh" else len(re.findall(rf"(?<!\w){re.escape(word)}(?!\w)", text))


class StandInTranslator(TextTranslator):
    """A translator (with the stand-ins among its glossaries) that reads names as stand-ins (the module)."""

    def __init__(self, inner: TextTranslator, glossaries: Sequence[Glossary] = ()) -> None:
        """`glossaries`: the user's, whose terms keep their names (`substitute`)."""
        super().__init__(inner.engine, inner.src_tokenizer, inner.tgt_tokenizer, inner.decode, inner.src_lang, inner.tgt_lang)
        self.inner, self.glossaries = inner, list(glossaries)

    def search_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        """The inner search's translations with the names written back; those that lose a date's or time's
        stand-in (`Substitution.lacks_a_date`), then those that say a stand-in more often than the source says
        its name (`Substitution.doubled`), after the others, of the whole beam."""
        decode = decode or self.decode
        subs = [substitute(normalize_source(text, self.src_lang), self.src_lang, self.glossaries, decode.number_standins,
                           decode.date_standins, decode.clock_standins, decode.dates_in_words, decode.times_as_clocks)
                for text in texts]
        beam = decode if decode.sample > 0 else dataclasses.replace(decode, n_best=decode.beam_size)  # a sample is one
        results = self.inner.search_n_best([s.text if s.back else text for s, text in zip(subs, texts)], beam)
        out = []
        for sub, n_best in zip(subs, results):
            if not sub.back:
                out.append(n_best[:decode.n_best])
                continue
            n_best = sorted(n_best, key=lambda t: (sub.lacks_a_date(t.text, self.tgt_lang),
                                                   sub.doubled(t.text, self.tgt_lang)))[:decode.n_best]
            restored = [sub.restore(t.text, self.tgt_lang) for t in n_best]
            ids = self.tgt_tokenizer.encode(restored) if restored else []
            out.append([Translation(text, t.score, tokens, (sub.text, t.tokens))
                        for text, t, tokens in zip(restored, n_best, ids)])
        return out


def align(model: Translator, texts: list[str], translations: list[Translation]) -> list[Alignment]:
    """The attention of each translation of `texts` (`Translator.align`), computed on what the search read:
    for a translation searched with stand-ins, the stand-ins' source and tokens, then shown on the text's
    own pieces and the translation's (`onto_pieces`), so a name's pieces share the attention its
    stand-in's pieces had."""
    plain = [i for i, t in enumerate(translations) if t.searched is None]
    swapped = [i for i, t in enumerate(translations) if t.searched is not None]
    out: list[Alignment | None] = [None] * len(texts)
    for i, alignment in zip(plain, model.align([texts[i] for i in plain], [translations[i].tokens for i in plain])):
        out[i] = alignment
    searched = [translations[i].searched for i in swapped]
    read = model.align([s[0] for s in searched if s], [s[1] for s in searched if s])
    sources = model.encode_sources([model.read(texts[i]) for i in swapped], warn=False)
    for i, alignment, source in zip(swapped, read, sources):
        target = [*translations[i].tokens, EOS_ID]
        out[i] = onto_pieces(alignment, model.src_tokenizer.pieces(source), model.tgt_tokenizer.pieces(target))
    return [a for a in out if a is not None]


def onto_pieces(alignment: Alignment, source_pieces: list[str], target_pieces: list[str]) -> Alignment:
    """`alignment` (rows: its target pieces, columns: its source pieces) shown on other pieces of texts that
    differ only in some runs (a stand-in and its name), matched by characters, as the two segmentations
    may cut the unchanged text differently: a column's mass goes to the characters it covered (a replaced
    run's mass shared out evenly over the run that replaced it), a row is the mean of the rows of the
    characters it covers (a replaced run's characters take the mean of the run's rows; an inserted one,
    its neighbour's)."""
    old_s, own_old_s = _characters(alignment.source_pieces)
    new_s, own_new_s = _characters(source_pieces)
    old_t, own_old_t = _characters(alignment.target_pieces)
    new_t, own_new_t = _characters(target_pieces)
    old_len = [own_old_s.count(i) for i in range(len(alignment.source_pieces))]
    columns = _char_links(old_s, new_s, spread=True)
    rows = _char_links(old_t, new_t, spread=False)
    new_len = [own_new_t.count(i) for i in range(len(target_pieces))]

    def remap(weights: list[list[float]]) -> list[list[float]]:
        by_column = []
        for row in weights:
            out = [0.0] * len(source_pieces)
            for old, new, share in columns:
                out[own_new_s[new]] += row[own_old_s[old]] / old_len[own_old_s[old]] * share
            by_column.append(out)
        result = [[0.0] * len(source_pieces) for _ in target_pieces]
        for old, new, share in rows:
            piece = own_new_t[new]
            for j, value in enumerate(by_column[own_old_t[old]]):
                result[piece][j] += value * share / new_len[piece]
        return result

    heads = None if alignment.heads is None else [remap(head) for head in alignment.heads]
    return dataclasses.replace(alignment, source_pieces=source_pieces, target_pieces=target_pieces,
                               weights=remap(alignment.weights), heads=heads)


def _characters(pieces: list[str]) -> tuple[str, list[int]]:
    """The pieces' characters in a row (a special piece such as </s> one character of its own), and the
    piece each character belongs to."""
    text, owner = [], []
    for i, piece in enumerate(pieces):
        chars = "\0" if piece.startswith("<") and piece.endswith(">") else piece.replace("▁", " ") or "\0"
        text.append(chars)
        owner += [i] * len(chars)
    return "".join(text), owner


def _char_links(old: str, new: str, spread: bool) -> list[tuple[int, int, float]]:
    """(old character, new character, share): equal characters one to one; in a replaced run, with
    `spread` each old character's mass shared out over the new run (columns), else each new character
    the mean of the old run (rows), an inserted character its neighbour's row."""
    links: list[tuple[int, int, float]] = []
    for tag, a, b, c, d in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            links += [(a + k, c + k, 1.0) for k in range(b - a)]
        elif a < b and c < d:
            links += [(i, j, 1 / (d - c) if spread else 1 / (b - a)) for i in range(a, b) for j in range(c, d)]
        elif c < d and not spread and old:
            links += [(min(max(a - 1, 0), len(old) - 1), j, 1.0) for j in range(c, d)]
    return links
