"""Numbers written in digits, and whether a translation keeps them in a correct form.

A number is a run of digits with its decimal point, clock colon or thousands commas (45, 3.5, 17:30,
1,000; 2026-12-06 is three). Thousands commas are a way of writing, not a part of the number: 1,000 and
1000 are the same number, and Chinese text writes 1000 where English writes 1,000.

A translation keeps a source number when it says the same value, as often as the source does: in
digits (45美元 for $45), in Chinese numerals (三百九十九块 for 399, 两百米 for 200 meters, 一九九八年
for 1998), in English number words ("twenty-five" for 25), and a time of day as the language writes it
(17:30 as 17:30, 5:30 pm, 17点30分, 下午五点半; 8:15 as 八点十五分 or 八点一刻). Numbers that only the
translation holds do not count against it here; they are the other defect, a number added (`numbers_added`).
The check is the same for the faithfulness report
(`translate.evaluation.adequacy`) and for the search that keeps numbers (`inference.glossary.Numbers`).
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal

NUMBER = re.compile(r"(?<![\d.:])\d+(?:[.:]\d+|,\d{3}(?!\d))*")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_GROUPS = {"万": 10_000, "亿": 100_000_000}
_ZH_NUMERAL = "[零〇一二两三四五六七八九十百千万亿0-9]"
_ZH_RUN = re.compile(f"{_ZH_NUMERAL}+")
_ZH_CLOCK = re.compile(f"(?<!{_ZH_NUMERAL})({_ZH_NUMERAL}+)[点點](?:(半)|(一刻)|(三刻)|({_ZH_NUMERAL}+)分?)?")
_EN_WORDS = {w: i for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"))}
_EN_TENS = {w: 10 * i for i, w in enumerate(("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                                             "ninety")) if i >= 2}
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_EN_UNIT_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
# ordinal words from "first" to "ninety-ninth" (the compounds with a hyphen) and their values
EN_ORDINALS = {**{w: i for i, w in enumerate(_EN_UNIT_ORDINALS, 1)},
               **{w: i for i, w in enumerate(("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                                               "sixteenth", "seventeenth", "eighteenth", "nineteenth"), 10)},
               **{w: 10 * i for i, w in enumerate(("twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth",
                                                   "seventieth", "eightieth", "ninetieth"), 2)},
               **{f"{tens}-{w}": value + i for tens, value in _EN_TENS.items() for i, w in enumerate(_EN_UNIT_ORDINALS, 1)}}
# an ordinal said in words, its tens joined by a hyphen or a space ("the twenty-first", "thirty first")
_EN_ORDINAL = re.compile(rf"\b(?:(?:{'|'.join(_EN_TENS)})[\s-])?(?:{'|'.join(w for w in EN_ORDINALS if '-' not in w)})\b",
                         re.IGNORECASE)
_EN_WORD_ALTERNATIVES = "|".join([*_EN_WORDS, *_EN_TENS, *_EN_SCALES])
_EN_NUMBER_WORD = re.compile(rf"\b(?:(?:{_EN_WORD_ALTERNATIVES})\b(?:[\s-]+(?:and[\s-]+)?)?)+", re.IGNORECASE)
# "second" as a unit of time, not an ordinal: after "a", "one", "per"… and before the end of a clause ("Wait a
# second.", "in a second or two", "one second later"); "a second chance", "the second floor" stay ordinals
_EN_SECOND_OF_TIME = re.compile(r"\b(?:a|one|per|each|every|split)\s+second\b(?=\s*(?:[.,!?;:)]|$|ago\b|later\b|or\b|and\b|"
                                r"too\b|before\b|after\b|now\b|please\b))", re.IGNORECASE)
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_EN_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, 1)}
# a month with its capital, as `data.dates` reads it ("may" and "march" are verbs), and "May" not before a
# pronoun ("May I come in?")
_EN_MONTH = re.compile(rf"\b(?:{'|'.join(m.title() for m in _MONTH_NAMES)})\b(?<!May(?= (?:I|we|you|he|she|they|it)\b))")
# a month's abbreviation before its day (Sept. 3, Jan 15): with its capital, since "mar" and "jan" are words too
_EN_MONTH_SHORT = re.compile(r"\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.? ?(?=\d)")
_EN_MONTH_OF_SHORT = {m[:3].title(): i for i, m in enumerate(_MONTH_NAMES, 1)} | {"Sept": 9}
_SCALE_AFTER = {"en": (re.compile(r"\s*(thousand|million|billion)\b", re.IGNORECASE),
                       {"thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}),
                "zh": (re.compile(r"\s*(万|亿)"), {"万": 10_000, "亿": 100_000_000})}
# a clock time whose hour is in digits, with its minutes (7点40分, 7点半): one time, as `said` reads it
_ZH_DIGIT_CLOCK = re.compile(r"(?<![\d.:])(\d{1,2})[点點](?:(半)|(一刻)|(三刻)|(\d{1,2})分?)(?!\d)")
_READ_AS_DIGITS = re.compile(r"\d+[万亿]?")  # a run of digits, with its scale: `_number_values` reads it
_EN_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)


def _after_digit(text: str, at: int) -> bool:
    """Whether a digit comes before `at`, spaces apart (the million of 8 million); work bounded by the spaces."""
    at -= 1
    while at >= 0 and text[at].isspace():
        at -= 1
    return at >= 0 and text[at].isdigit()


def plain(number: str) -> str:
    """A number without its thousands commas."""
    return number.replace(",", "")


def numbers(text: str) -> list[str]:
    """The numbers of a text written in digits, left to right, as written (commas kept)."""
    return NUMBER.findall(text)


def _number_values(text: str, lang: str) -> list[str]:
    """Each number in digits as the value it says: plain, a time as H:MM, and a number followed by a
    scale as its product (8 million and 800万 are 8000000)."""
    values = []
    for match in NUMBER.finditer(text):
        value = plain(match.group(0))
        time = _TIME.match(value)
        scale = _SCALE_AFTER[lang][0].match(text, match.end()) if lang in _SCALE_AFTER else None
        if time:
            value = f"{int(time.group(1))}:{time.group(2)}"
        elif scale and value.replace(".", "", 1).isdigit():
            product = float(value) * _SCALE_AFTER[lang][1][scale.group(1).lower()]
            value = str(int(product)) if product == int(product) else value
        values.append(value)
    return values


def zh_value(numeral: str) -> int | None:
    """A run of Chinese numerals (or digits) as an integer: 三百九十九 399, 两百 200, 十五 15, 八百万
    8,000,000; without 十百千万亿 digit by digit (一九九八 1998); None where it is not a number."""
    if not numeral:
        return None
    if not any(c in _ZH_UNITS or c in _ZH_GROUPS for c in numeral):
        digits = "".join(str(_ZH_DIGITS[c]) if c in _ZH_DIGITS else c for c in numeral)
        return int(digits) if digits.isdigit() else None
    total = section = number = 0
    for char in numeral:
        if char in _ZH_DIGITS or char.isdigit():
            number = number * 10 + int(char) if char.isdigit() else _ZH_DIGITS[char]
        elif char in _ZH_UNITS:
            section += (number or 1) * _ZH_UNITS[char]
            number = 0
        else:
            total = (total + section + number) * _ZH_GROUPS[char]
            section = number = 0
    return total + section + number


ZH_NUMERALS = "零〇一二两三四五六七八九十百千万亿"  # the characters a Chinese number is written in
# a run of two numerals or more that is no clock time, date or height (八点十五分, 三月十二号, 一米六八), no
# approximation (几百万) and no part of a longer run
_NUMERAL_RUN = re.compile(rf"(?<![{ZH_NUMERALS}点月米几])[{ZH_NUMERALS}]{{2,}}(?![{ZH_NUMERALS}点月])")
_PERCENT_ZH = re.compile(rf"百分之([{ZH_NUMERALS}]+)")
_NUMERAL_WORDS = {"万一", "一一", "十一"}  # "in case", "one by one", National Day


def numerals_as_digits(text: str) -> str:
    """Chinese numerals of 11 and more written in digits, as the model copies them (三百六十五天 -> 365天,
    两千块 -> 2000块, 百分之六十 -> 60%, 八百万 -> 800万, 一九九八年 -> 1998年; 一万 the model knows); words
    that are no number (万一, 十一 the holiday), approximations (五六个, 几百), runs read digit by digit that no 年
    follows (三三两两), clock times, dates and heights stay as they are."""
    text = _PERCENT_ZH.sub(lambda m: f"{value}%" if (value := zh_value(m.group(1))) is not None else m.group(0), text)

    def digits(match: re.Match[str]) -> str:
        run = match.group(0)
        value = zh_value(run)
        by_digit = not any(c in _ZH_UNITS or c in _ZH_GROUPS for c in run)
        if run in _NUMERAL_WORDS or value is None or value < 11 or (by_digit and not text.startswith("年", match.end())):
            return run
        group = _ZH_GROUPS.get(run[-1])
        if group and value % group == 0:  # 八百万 800万; 一万, 两亿 as they are
            return f"{value // group}{run[-1]}" if value // group >= 10 else run
        return str(value)

    return _NUMERAL_RUN.sub(digits, text)


# a number a stand-in carries (`inference.standins`): digits with thousands commas or a scale word in English
# (12,000; 8 million), with 万 or 亿 in Chinese (800万); no code (G1234, a group of a telephone number: 138 1234
# 5678, a room: 1508房间); the rules of `carried_numbers` choose among them
_CARRIED = {"en": re.compile(r"(?<![A-Za-z\d.:,])(?<!\d )(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
                             r"(?:[ \t]?(thousand|million|billion)\b)?(?![\d,:]|\.\d| \d)", re.IGNORECASE),
            "zh": re.compile(r"(?<![A-Za-z\d.:,])(?<!\d )(\d+(?:\.\d+)?)([万亿])?(?![\d,:年号房室路]|\.\d| \d)")}
_CARRIED_SCALES = {"thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "万": 10_000, "亿": 100_000_000}
_CARRIED_DIGITS = {"en": 5, "zh": 4}  # fewer digits without a comma or scale: a year or a code as often as a number


def carried_numbers(text: str, lang: str) -> list[tuple[int, int, Decimal]]:
    """The numbers of a text that the models garble and a stand-in carries, as (begin, end, value): in
    English those with thousands commas (1,299), a scale (8 million, ten thousand) or 5 to 9 digits; in
    Chinese those with 万 or 亿 (800万, 1.5亿) or 4 to 9 digits that no 年 follows (1998年 is a year).
    Times, decimals without a scale, codes (G1234, 1508房间, 010 6543 2109, a number that starts with 0)
    and longer runs (telephone numbers) stay."""
    found = []
    for match in _CARRIED[lang].finditer(text):
        digits, scale = match.group(1), match.group(2)
        whole = plain(digits)
        if scale or "," in digits or (whole.isdigit() and not whole.startswith("0")
                                      and _CARRIED_DIGITS[lang] <= len(whole) <= 9):
            found.append((match.start(), match.end(), Decimal(whole) * _CARRIED_SCALES.get((scale or "").lower(), 1)))
    if lang == "en":
        for match in _EN_NUMBER_WORD.finditer(text):
            words = match.group(0).rstrip(" -\t\n")
            value = en_value(words)
            if value and value >= 10_000 and words.split()[0].lower() not in _EN_SCALES and not _after_digit(text, match.start()):
                found.append((match.start(), match.start() + len(words), Decimal(value)))
    return sorted(found)


def written(value: Decimal, lang: str) -> str:
    """A value as the language writes a large number: Chinese 12000, 800万 (from a million), 1.5亿; English
    12,000, 8 million, 1.5 billion (a whole number of hundredths of the scale), else with thousands commas."""
    def short(number: Decimal) -> str:
        return format(number.normalize(), "f")

    scales = (("亿", 10**8, 10**8), ("万", 10**4, 10**6)) if lang == "zh" else (
        (" billion", 10**9, 10**9), (" million", 10**6, 10**6))
    for unit, size, least in scales:
        if value >= least and (value / size).quantize(Decimal("0.01")) == value / size:
            return f"{short(value / size)}{unit}"
    if lang == "zh":
        return short(value)
    whole, _, fraction = short(value).partition(".")
    return f"{int(whole):,}" + (f".{fraction}" if fraction else "")


# a number said twice, in words and then in digits: the words the model wrote for a number's first pieces
# before the digits copied in (三365, 两2000, 四22:40; "nine90", "fifty,500"); not a weekday's (周二, 星期三),
# nor one between two numbers in digits (010一1609: which is a word there is unknown)
_ZH_REMNANT = re.compile(rf"(?<![\d周期拜第{ZH_NUMERALS[:-2]}])[{ZH_NUMERALS[:-2]}]+(?=\d)")  # no 万, 亿: 8万 is right
_EN_ONES = "|".join(w for w, i in _EN_WORDS.items() if 1 <= i <= 9)
_EN_REMNANT = re.compile(rf"(?<![\w-])(?:(?:{'|'.join(_EN_TENS)})(?:-(?:{_EN_ONES}))?|"
                         rf"{'|'.join(w for w, i in _EN_WORDS.items() if i >= 1)}|hundred|thousand)[,-]?(?=\d)", re.IGNORECASE)


def without_doubled_numbers(text: str, lang: str) -> str:
    """A translation without the words it wrote for a number before that number's digits (一年有三365天。 ->
    一年有365天。, "My grandfather is nine90." -> "My grandfather is 90."): Chinese numerals glued to digits,
    an English number word glued to them or joined by a comma or hyphen. A number the digits follow after a
    space ("two 25-year-olds") is left."""
    if lang == "zh":
        return _ZH_REMNANT.sub("", text)
    return _EN_REMNANT.sub("", text)


def doubles_a_number(text: str, lang: str) -> bool:
    """Whether a text says a number twice, in words glued to its digits (三365天, "nine90 years"): the
    defect `without_doubled_numbers` mends."""
    return without_doubled_numbers(text, lang) != text


def en_value(words: str) -> int | None:
    """English number words as an integer ("twenty-five" 25, "three hundred and five" 305)."""
    total = current = 0
    seen = False
    for word in re.split(r"[\s-]+", words.lower()):
        if word in _EN_WORDS or word in _EN_TENS:
            current += _EN_WORDS.get(word, 0) + _EN_TENS.get(word, 0)
            seen = True
        elif word in _EN_SCALES:
            scale = _EN_SCALES[word]
            if scale == 100:
                current = (current or 1) * 100
            else:
                total, current = total + (current or 1) * scale, 0
            seen = True
    return total + current if seen else None


def _worded(words: str) -> list[str]:
    """What English number words say: their value, and where they read as a time of day ("six-thirty",
    "seven fifteen": an hour, then minutes from 10 to 59) that time too."""
    value = en_value(words)
    if value is None:
        return []
    readings = [str(value)]
    hour, _, rest = words.strip(" -").replace("-", " ").partition(" ")
    hour_value, minutes = en_value(hour), en_value(rest) if rest else None
    if (hour_value is not None and 1 <= hour_value <= 12 and minutes is not None and 10 <= minutes < 60
            and not any(scale in rest.lower() for scale in _EN_SCALES)):
        readings += _clock(hour_value, minutes)
    return readings


def _clock(hour: int, minute: int) -> list[str]:
    """A time of day and its 12-hour twin: 5:30 -> 5:30 and 17:30."""
    times = [f"{hour}:{minute:02d}"]
    if hour < 12:
        times.append(f"{hour + 12}:{minute:02d}")
    elif hour > 12:
        times.append(f"{hour - 12}:{minute:02d}")
    return times


def said(text: str, lang: str) -> Counter[str]:
    """The values a text says (as plain digit strings, times as H:MM with their 12-hour twins), in
    digits and, for Chinese, numerals and clock times; for English, number words, ordinals ("the tenth" 10,
    "twenty-first" 21; not "second" as a unit of time, "Wait a second."), months (May 5; Sept. 3) and am/pm
    times."""
    found: Counter[str] = Counter()
    for value in _number_values(text, lang):
        time = _TIME.match(value)
        found.update(_clock(int(time.group(1)), int(time.group(2))) if time else [value])
    if lang == "zh":
        for match in _ZH_CLOCK.finditer(text):
            hour = zh_value(match.group(1))
            minute = (30 if match.group(2) else 15 if match.group(3) else 45 if match.group(4)
                      else zh_value(match.group(5)) if match.group(5) else 0)
            if hour is not None and minute is not None and hour < 25 and minute < 60:
                found.update(_clock(hour, minute))
        for run in _ZH_RUN.findall(text):
            said_as = zh_value(run)
            if said_as is not None and not _READ_AS_DIGITS.fullmatch(run):  # 800万 is read above, once
                found[str(said_as)] += 1
    else:
        for match in _EN_CLOCK.finditer(text):
            hour, minute = int(match.group(1)), int(match.group(2) or 0)
            if hour <= 12:
                hour = hour % 12 + (12 if match.group(3).lower() == "p" else 0)
                found.update(_clock(hour, minute))
        for match in _EN_NUMBER_WORD.finditer(text):
            if not _after_digit(text, match.start()) and _ordinal_at(text, match) is None:  # 8 million: read above
                found.update(_worded(match.group(0)))
        seconds = {m.end() for m in _EN_SECOND_OF_TIME.finditer(text)}  # "Wait a second." says no 2
        found.update(str(ordinal_value(m.group(0))) for m in _EN_ORDINAL.finditer(text)
                     if m.end() not in seconds)  # 5月10日 is "the tenth of May"
        found.update(str(_EN_MONTHS[m.lower()]) for m in _EN_MONTH.findall(text))  # 5月 is May
        found.update(str(_EN_MONTH_OF_SHORT[m]) for m in _EN_MONTH_SHORT.findall(text))  # 9月3日 is Sept. 3
    return found


def ordinal_value(words: str) -> int:
    """The value of an ordinal `_EN_ORDINAL` found ("tenth" 10, "twenty first" 21)."""
    return EN_ORDINALS[re.sub(r"[\s-]+", "-", words.strip().lower())]


def _ordinal_at(text: str, words: re.Match[str]) -> int | None:
    """The value of the ordinal that English tens words begin ("twenty-first" 21), else None."""
    if words.group(0).strip(" -").lower() not in _EN_TENS:
        return None
    ordinal = _EN_ORDINAL.match(text, words.start())
    return ordinal_value(ordinal.group(0)) if ordinal else None


def holds(text: str, number: str, lang: str) -> bool:
    """Whether `text` (in `lang`) says the value of `number` (digits, as `numbers` finds them; a number
    that a source scales, 8 million, is checked by `numbers_kept`)."""
    value = plain(number)
    time = _TIME.match(value)
    return f"{int(time.group(1))}:{time.group(2)}" in said(text, lang) if time else value in said(text, lang)


def numbers_added(source: str, translation: str, tgt_lang: str) -> list[str]:
    """The numbers a translation writes in digits more often than its source says their value, in any form
    (`said`): 1010分钟 for "a ten-minute walk", "$120 or best offer" as 120美元或给我100美元 (100); in English also
    number words but "one" (a pronoun too: 三百九十九块 as "nine in thirty percent" adds 9 and 30) and the
    ordinals that begin with tens words ("twenty-first" 21; "first" alone is also "at first"); a Chinese
    clock time in digits with its minutes (7点40分, 7点半) as one time. Chinese numerals are not read (一 is also
    "a", 十分 "very")."""
    available = said(source, "zh" if tgt_lang == "en" else "en")
    added = []
    if tgt_lang == "zh":  # 7点40分 is the time 7:40, not the numbers 7 and 40
        translation = _ZH_DIGIT_CLOCK.sub(lambda m: f"{m.group(1)}:{_clock_minutes(m):02d}", translation)
    written = _number_values(translation, tgt_lang)  # a time as H:MM, as `said` has it
    if tgt_lang == "en":
        for m in _EN_NUMBER_WORD.finditer(translation):  # 8 million is one number, read above
            if m.group(0).strip(" -").lower() != "one" and not _after_digit(translation, m.start()):
                ordinal = _ordinal_at(translation, m)  # the twenty of "the twenty-first" says 21
                readings = [str(ordinal)] if ordinal is not None else _worded(m.group(0))
                said_as = next((r for r in readings if available[r] > 0), None)
                if said_as is not None:
                    available[said_as] -= 1
                elif readings:
                    added.append(readings[0])
    for value in written:
        if available[value] > 0:
            available[value] -= 1
        else:
            added.append(value)
    return added


def _clock_minutes(match: re.Match[str]) -> int:
    return 30 if match.group(2) else 15 if match.group(3) else 45 if match.group(4) else int(match.group(5))


def numbers_kept(source: str, translation: str, tgt_lang: str) -> tuple[int, int]:
    """(the source's numbers whose value the translation says, the source's numbers), counted with repeats."""
    available = said(translation, tgt_lang)
    wanted = _number_values(source, "zh" if tgt_lang == "en" else "en")
    kept = 0
    for value in wanted:
        if available[value] > 0:
            available[value] -= 1
            kept += 1
    return kept, len(wanted)
