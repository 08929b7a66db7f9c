"""Dates and times of day: found in English and Chinese text, and written as the other language writes them.

The training split holds almost no date and few clock times, and the models garble both ("The deadline is
March 31." came back 期限31, the month lost; 电影晚上七点四十开始。 "The movie starts around at seven.").
`inference.standins` reads each one that `whens` finds as a weekday or noon, which the models translate,
and writes it back with `written_when`.

- A **date** is a month with its day, and the year where one is said: "March 12", "12 March", "the 4th of
  May", "December 25, 2001"; 3月12日, 三月十二号, 2001年12月25日. A month alone, a year alone (2001年) and
  a month with its year only are no date here. English months count only with their capital ("may" is a
  verb).
- A **time of day** is an hour with its minutes and the part of the day where one is said: "9 am",
  "7:40 p.m.", "eleven o'clock"; 晚上7点, 下午三点半, 凌晨三点, 下午3:30, 十一点钟. A clock alone (6:15,
  17:30) is none unless asked for (`clocks`: both languages write it so, but the models garble the words
  around it: 我的航班22:40年降落, "22:40 years"; 比赛19:35美元, "dollars"), and then it is written back as it is. A Chinese hour
  without a part of the day, 钟 or minutes is a time only from 两 (2) on and not after 第, 几, 这, 那 or
  a numeral (一点 is "a little", 第三点 "the third point"); minutes without 分 are a time only in two
  digits (7点15) or in numerals with tens or a zero (七点四十, 七点零五), since 三点五 is 3.5.
- Said in words, where asked for (`spoken`): "the tenth of May", "March twenty-first", "half past six", "a
  quarter to four", "quarter past 9 in the morning". Whether a stand-in reads them is a decoding setting
  (`decode.dates_in_words`); `dates_kept` always reads them.
- Written back: Chinese dates in digits, 3月12日, 2001年12月25日; Chinese times as 晚上7点40分 (早上 5–8,
  上午 9–11, 中午 12, 下午 1–5, 晚上 6–11 and 凌晨 0–4 where an am or pm is said), in numerals where the
  English said the hour in words (十一点); English dates as "March 12" and "December 25, 2001", times as
  "7:40 p.m." where a part of the day is said (morning parts am, afternoon and evening pm), else "6:15",
  "11 o'clock" or, from numerals, "eleven o'clock".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from translate.data.quantities import EN_ORDINALS, ZH_NUMERALS, en_value, said, zh_value

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_MONTH_OF = {**{m: i for i, m in enumerate(MONTHS, 1)},
             **{m[:3]: i for i, m in enumerate(MONTHS, 1) if m != "May"}, "Sept": 9}
_ABBREVIATIONS = sorted((m for m in _MONTH_OF if m not in MONTHS), key=len, reverse=True)  # Jan, Sept: with a point or none
_EN_MONTH = rf"(?P<month>(?:{'|'.join(sorted(MONTHS, key=len, reverse=True))})(?!\w)|(?:{'|'.join(_ABBREVIATIONS)})\.?(?!\w))"
_EN_DAY = r"(?P<day>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
_EN_YEAR = r"(?:,? (?P<year>1\d{3}|20\d{2})(?![\d,]))?"
_EN_DATE = re.compile(rf"(?<![\w,.])(?:{_EN_MONTH} {_EN_DAY}(?![\w:.,]\d|\d|:){_EN_YEAR}"
                      rf"|(?:(?:the )?{_EN_DAY.replace('day>', 'day2>')} (?:of )?{_EN_MONTH.replace('month>', 'month2>')}"
                      rf"{_EN_YEAR.replace('year>', 'year2>')}))")
_HOUR_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_EN_TIME = re.compile(rf"(?<![\w:.,$£€¥])(?:(?P<hour>1[0-2]|0?[1-9])(?::(?P<minute>[0-5]\d))?\s?(?P<part>[ap])\.?\s?m\b\.?"
                      rf"|(?P<hour3>1[0-2]|[1-9]|{_HOUR_WORDS}) o'clock\b)", re.IGNORECASE)
_EN_HOURS = ("", *_HOUR_WORDS.split("|"))
# said in words (`spoken`): "half past six", "a quarter to four"; "the tenth of May", "March twenty-first"
_EN_SPOKEN_TIME = re.compile(rf"(?<![\w-])(?P<fraction>half|(?:a )?quarter) (?P<side>past|after|to) "
                             rf"(?P<hour>1[0-2]|[1-9]|{_HOUR_WORDS})(?![\w:.,-]\w)(?! o'clock)"
                             r"(?: in the (?P<part>morning|afternoon|evening)| at (?P<night>night))?", re.IGNORECASE)
_ORDINALS = {w: day for w, day in EN_ORDINALS.items() if day <= 31}  # a day of the month
_EN_ORDINAL = rf"(?P<day>{'|'.join(sorted(_ORDINALS, key=len, reverse=True))})"
_EN_SPOKEN_DATE = re.compile(rf"(?<![\w-])(?:the {_EN_ORDINAL} of {_EN_MONTH}{_EN_YEAR}"
                             rf"|{_EN_MONTH.replace('month>', 'month2>')} (?:the )?{_EN_ORDINAL.replace('day>', 'day2>')}"
                             rf"(?![\w-]){_EN_YEAR.replace('year>', 'year2>')})", re.IGNORECASE)
_ZH_NUMBER = rf"[0-9{ZH_NUMERALS[:-3]}]"  # no 千, 万, 亿 in a date or time
_ZH_DATE = re.compile(rf"(?<![0-9{ZH_NUMERALS}])(?:(?P<year>[12]\d{{3}}|[〇零一二三四五六七八九]{{4}})年)?"
                      rf"(?P<month>{_ZH_NUMBER}{{1,3}})月(?P<day>{_ZH_NUMBER}{{1,3}})[日号號]")
_ZH_PARTS = {"凌晨": "am", "早上": "am", "早晨": "am", "清晨": "am", "上午": "am", "中午": "pm", "下午": "pm",
             "傍晚": "pm", "晚上": "pm", "夜里": "pm"}
_ZH_TIME = re.compile(rf"(?P<part>{'|'.join(_ZH_PARTS)})?(?<![0-9{ZH_NUMERALS}第几幾这那])"
                      rf"(?:(?P<hour>{_ZH_NUMBER}{{1,3}})[点點](?P<oclock>钟)?"
                      rf"(?:(?P<half>半)|(?P<quarter>一刻)|(?P<three>三刻)|(?P<minute>[0-9]{{1,2}}|{_ZH_NUMBER}{{1,3}})(?P<fen>分)?)?"
                      rf"|(?<=[午上晨里晚])(?P<hour2>[012]?\d):(?P<minute2>[0-5]\d))(?![0-9{ZH_NUMERALS}儿])")


@dataclass(frozen=True)
class When:
    """A date (month, day, year or 0) or a time of day (hour, minute, part: "am", "pm" or "" where none is
    said); `words`: the hour was said in words or numerals (eleven o'clock, 十一点)."""

    kind: str  # "date" or "time"
    month: int = 0
    day: int = 0
    year: int = 0
    hour: int = 0
    minute: int = 0
    part: str = ""
    words: bool = False
    clock: bool = False  # said as a clock alone (17:30): written back as one


def _zh_int(text: str) -> int | None:
    return int(text) if text.isdigit() else zh_value(text)


_CLOCK = re.compile(r"(?<![A-Za-z0-9_:.,$£€¥])(?P<hour>2[0-3]|[01]?\d):(?P<minute>[0-5]\d)(?![\d:]|[.,]\d)")


def whens(text: str, lang: str, clocks: bool = False, spoken: bool = False) -> list[tuple[int, int, When]]:
    """The dates and times of day of a text, as (begin, end, When), left to right, without overlaps (see
    the module for what counts); with `clocks`, clocks alone (17:30) too; with `spoken`, English dates and
    times said in words too ("the tenth of May", "half past six", "a quarter to four")."""
    found = _en_whens(text) + (_en_spoken(text) if spoken else []) if lang == "en" else _zh_whens(text)
    if clocks:
        found += [(m.start(), m.end(), When("time", hour=int(m.group("hour")), minute=int(m.group("minute")), clock=True))
                  for m in _CLOCK.finditer(text)]
    chosen: list[tuple[int, int, When]] = []
    for begin, end, when in sorted(found, key=lambda f: (f[0] - f[1], f[0])):  # the longest first
        if all(end <= b or begin >= e for b, e, _ in chosen):
            chosen.append((begin, end, when))
    return sorted(chosen, key=lambda f: f[0])


def _en_whens(text: str) -> list[tuple[int, int, When]]:
    found = []
    for match in _EN_DATE.finditer(text):
        month = _MONTH_OF[(match.group("month") or match.group("month2")).rstrip(".")]
        day = int(match.group("day") or match.group("day2"))
        year = match.group("year") or match.group("year2")
        found.append((match.start(), match.end(), When("date", month=month, day=day, year=int(year or 0))))
    for match in _EN_TIME.finditer(text):
        end = match.end()
        if text[end - 1] == "." and text[end:].strip() in ("", '"', "”", "'", "’"):
            end -= 1  # "at 10 p.m." ending the sentence: its last point is the sentence's
        if match.group("hour"):
            part = "am" if match.group("part").lower() == "a" else "pm"
            when = When("time", hour=int(match.group("hour")), minute=int(match.group("minute") or 0), part=part)
        else:
            hour = match.group("hour3")
            words = not hour.isdigit()
            when = When("time", hour=int(hour) if not words else en_value(hour) or 0, words=words)
        found.append((match.start(), end, when))
    return found


def _en_spoken(text: str) -> list[tuple[int, int, When]]:
    found = []
    for match in _EN_SPOKEN_DATE.finditer(text):
        month_name = (match.group("month") or match.group("month2")).rstrip(".")
        if not month_name[0].isupper():
            continue  # "may" is a verb: months count with their capital
        day = _ORDINALS[(match.group("day") or match.group("day2")).lower()]
        year = match.group("year") or match.group("year2")
        found.append((match.start(), match.end(), When("date", month=_MONTH_OF[month_name], day=day, year=int(year or 0))))
    for match in _EN_SPOKEN_TIME.finditer(text):
        raw = match.group("hour")
        hour = int(raw) if raw.isdigit() else en_value(raw) or 0
        minutes = 30 if match.group("fraction").lower() == "half" else 15
        if match.group("side").lower() == "to":
            if minutes == 30:
                continue  # "half to six" is no English time
            hour, minutes = (hour - 2) % 12 + 1, 45
        part = "pm" if match.group("night") or (match.group("part") or "morning").lower() != "morning" else (
            "am" if match.group("part") else "")
        found.append((match.start(), match.end(),
                      When("time", hour=hour, minute=minutes, part=part, words=not raw.isdigit())))
    return found


def _zh_whens(text: str) -> list[tuple[int, int, When]]:
    found = []
    for match in _ZH_DATE.finditer(text):
        month, day = _zh_int(match.group("month")), _zh_int(match.group("day"))
        year = _zh_int(match.group("year")) if match.group("year") else 0
        if month and day and 1 <= month <= 12 and 1 <= day <= 31 and year is not None:
            found.append((match.start(), match.end(), When("date", month=month, day=day, year=year)))
    for match in _ZH_TIME.finditer(text):
        when = _zh_time(match)
        if when is not None:
            found.append((match.start(), match.end(), when))
    return found


def _zh_time(match: re.Match[str]) -> When | None:
    """A time of day from `_ZH_TIME`'s match, or None where it reads as no time (see the module)."""
    part = _ZH_PARTS.get(match.group("part") or "", "")
    if match.group("hour2"):
        clock = int(match.group("hour2"))
        return When("time", hour=clock, minute=int(match.group("minute2")), part=part) if part and clock <= 23 else None
    raw, minutes = match.group("hour"), match.group("minute")
    hour = _zh_int(raw)
    if minutes and not match.group("fen") and not (len(minutes) == 2 if minutes.isdigit() else
                                                    "十" in minutes or minutes.startswith(("零", "〇"))):
        return None  # 三点五 is 3.5, 三点一四 3.14; 七点四十, 七点零五 and 7点15 are times
    minute = (30 if match.group("half") else 15 if match.group("quarter") else 45 if match.group("three")
              else _zh_int(minutes) if minutes else 0)
    if hour is None or minute is None or hour > 24 or minute >= 60:
        return None
    marked = part or match.group("oclock") or match.group("half") or match.group("quarter") or minutes
    if not marked and hour < 2:
        return None  # 一点 is "a little"
    return When("time", hour=hour, minute=minute, part=part, words=not raw.isdigit())


def dates_kept(source: str, translation: str, tgt_lang: str) -> tuple[int, int]:
    """(the source's dates and times of day that the translation says, the source's dates and times): a date
    by its month and day in any form `whens` reads (3月12日, 三月十二号, "March 12", "the 12th of March", "the tenth
    of May"), a time by its hour and minutes in any form `data.quantities.said` or `whens` reads (晚上7点40分, 7:40,
    19:40, "six-thirty", "half past six"), a whole hour also by its number alone ("at eleven" for 十一点) where
    that number is no hour of a time with its minutes (上午9点十 says 9:10, not 9 am)."""
    src_lang = "zh" if tgt_lang == "en" else "en"
    wanted = [when for _, _, when in whens(source, src_lang, spoken=True)]
    if not wanted:
        return 0, 0
    written = [w for _, _, w in whens(translation, tgt_lang, spoken=True)]
    days = [(w.month, w.day) for w in written if w.kind == "date"]
    clocks = said(translation, tgt_lang)
    for w in written:  # "half past six" and "a quarter to four", which `said` does not read
        if w.kind == "time" and clocks[f"{w.hour % 24}:{w.minute:02d}"] == 0:
            clocks[f"{w.hour % 24}:{w.minute:02d}"] += 1
        if w.kind == "time" and w.minute:  # the 9 of 9点十 (9:10) is no whole hour 9
            hour = next((h for h in (str(w.hour), str(w.hour - 12)) if clocks[h] > 0), None)
            if hour is not None:
                clocks[hour] -= 1
    kept = 0
    for when in wanted:
        if when.kind == "date" and (when.month, when.day) in days:
            days.remove((when.month, when.day))
            kept += 1
        elif when.kind == "time":
            # a whole hour also as its number alone ("at eleven" for 十一点), in its 12-hour form too
            readings = [f"{when.hour % 24}:{when.minute:02d}"] + (
                [str(when.hour), str(when.hour - 12)] if when.minute == 0 and when.hour > 12 else
                [str(when.hour)] if when.minute == 0 else [])
            said_as = next((r for r in readings if clocks[r] > 0), None)
            if said_as is not None:
                clocks[said_as] -= 1
                kept += 1
    return kept, len(wanted)


_ZH_SMALL = "零一二三四五六七八九"


def zh_numeral(value: int) -> str:
    """A number from 0 to 99 in Chinese numerals (十一, 二十, 四十五)."""
    if value < 10:
        return _ZH_SMALL[value]
    tens, ones = divmod(value, 10)
    return ("" if tens == 1 else _ZH_SMALL[tens]) + "十" + (_ZH_SMALL[ones] if ones else "")


def _zh_part(hour: int, part: str) -> str:
    """The Chinese part of the day for an hour of a 12-hour clock and its am or pm."""
    if part == "am":
        return "凌晨" if hour % 12 <= 4 else "早上" if hour <= 8 else "上午"
    return "中午" if hour == 12 else "下午" if hour <= 5 else "晚上"


def written_when(when: When, lang: str) -> str:
    """A date or time of day as `lang` writes it (see the module)."""
    if when.clock:
        return f"{when.hour}:{when.minute:02d}"
    if when.kind == "date":
        if lang == "zh":
            return (f"{when.year}年" if when.year else "") + f"{when.month}月{when.day}日"
        return f"{MONTHS[when.month - 1]} {when.day}" + (f", {when.year}" if when.year else "")
    hour, minute, part = when.hour, when.minute, when.part
    if lang == "zh":
        if when.words:
            clock = zh_numeral(hour).replace("二", "两") if hour == 2 else zh_numeral(hour)
            clock += "点" + ("半" if minute == 30 else f"{zh_numeral(minute)}分" if minute else "")
        else:
            clock = f"{hour}点" + ("半" if minute == 30 else f"{minute}分" if minute else "")
        return (_zh_part(hour, part) if part else "") + clock
    if part and hour > 12:
        hour -= 12
    elif not part and hour > 12:
        hour, part = hour - 12, "pm"
    if part:
        return f"{hour}" + (f":{minute:02d}" if minute else "") + (" a.m." if part == "am" else " p.m.")
    if minute:
        return f"{hour}:{minute:02d}"
    return f"{_EN_HOURS[hour]} o'clock" if when.words and 1 <= hour <= 12 else f"{hour} o'clock"
