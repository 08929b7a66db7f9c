"""Dates and times of day (`data.dates`): what is found in English and Chinese text, what is left as no date
or time, and how each is written in the other language."""

from __future__ import annotations

import pytest

from translate.data.dates import When, whens, written_when, zh_numeral


def found(text: str, lang: str) -> list[tuple[str, str]]:
    """Each date or time of `text` as written and as the other language writes it."""
    target = "zh" if lang == "en" else "en"
    return [(text[begin:end], written_when(when, target)) for begin, end, when in whens(text, lang)]


@pytest.mark.parametrize(("text", "expected"), [
    ("My birthday is on March 12.", [("March 12", "3月12日")]),
    ("She was born on December 25, 2001.", [("December 25, 2001", "2001年12月25日")]),
    ("We meet on the 4th of May.", [("the 4th of May", "5月4日")]),
    ("It opened on 1 October 1949.", [("1 October 1949", "1949年10月1日")]),
    ("Meet me on Jan. 5th, 2020.", [("Jan. 5th, 2020", "2020年1月5日")]),
    ("Come by Sept 9.", [("Sept 9", "9月9日")]),
])
def test_english_dates_are_a_month_with_its_day_and_the_year_where_said(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text, "en") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("The store closes at 10 p.m.", [("10 p.m", "晚上10点")]),  # the sentence's point stays the sentence's
    ("The movie starts at 7:40 p.m. tonight.", [("7:40 p.m.", "晚上7点40分")]),
    ("The baby was born at 3 a.m.", [("3 a.m", "凌晨3点")]),
    ("Open from 8 a.m. to 9 p.m.", [("8 a.m.", "早上8点"), ("9 p.m", "晚上9点")]),
    ("Meet me at 9am, or at 12 PM.", [("9am", "上午9点"), ("12 PM", "中午12点")]),
    ("Call at 2:30pm.", [("2:30pm", "下午2点半")]),
    ("It's already eleven o'clock.", [("eleven o'clock", "十一点")]),
    ("It's two o'clock.", [("two o'clock", "两点")]),
])
def test_english_times_of_day_and_their_chinese_part_of_the_day(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text, "en") == expected


@pytest.mark.parametrize("text", [
    "I may 4 go.",  # "may" is a verb; months count with their capital
    "It costs $10 and 3.5 kg. The score was 3:2.",
    "Room 12:305 is in May.",  # a month alone is no date
    "In March, 12 people came.",
    "He is 12 years old; the ratio is 16:9.",
    "The class ends at 6:15, the next at 17:30.",  # a clock alone: both languages write it so
])
def test_no_date_or_time_is_found_where_english_says_none(text: str) -> None:
    assert found(text, "en") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("我的生日是三月十二号。", [("三月十二号", "March 12")]),
    ("她出生于2001年12月25日。", [("2001年12月25日", "December 25, 2001")]),
    ("他一九九八年五月四日到的。", [("一九九八年五月四日", "May 4, 1998")]),
    ("商店晚上十点关门。", [("晚上十点", "10 p.m.")]),
    ("电影晚上七点四十开始。", [("晚上七点四十", "7:40 p.m.")]),
    ("我们七点零五出发，8点15到。", [("七点零五", "7:05"), ("8点15", "8:15")]),
    ("孩子是凌晨三点出生的。", [("凌晨三点", "3 a.m.")]),
    ("下午3:30见。", [("下午3:30", "3:30 p.m.")]),
    ("已经十一点了。", [("十一点", "eleven o'clock")]),
    ("十一点钟开会，17点结束。", [("十一点钟", "eleven o'clock"), ("17点", "5 p.m.")]),
    ("等我一点半。", [("一点半", "1:30")]),
    ("中午12点吃饭。", [("中午12点", "12 p.m.")]),
])
def test_chinese_dates_and_times(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text, "zh") == expected


@pytest.mark.parametrize("text", [
    "我有一点累。",  # a little
    "这个三点五公斤。",  # 3.5
    "第三点很重要。",  # the third point
    "圆周率是三点一四。",
    "他2001年来的，5月走了。",  # a year alone, a month alone
    "给我一点儿水。",
    "几点了？",
    "会议在17:30开始，6:30起床。",
])
def test_no_date_or_time_is_found_where_chinese_says_none(text: str) -> None:
    assert found(text, "zh") == []


def test_clocks_alone_are_read_where_asked_for_and_written_as_they_are() -> None:
    def clocks(text: str, lang: str) -> list[tuple[str, str]]:
        target = "zh" if lang == "en" else "en"
        return [(text[b:e], written_when(w, target)) for b, e, w in whens(text, lang, clocks=True)]

    assert clocks("The meeting is at 17:30, or 5:30 pm.", "en") == [("17:30", "17:30"), ("5:30 pm", "下午5点半")]
    assert clocks("我的航班22:40降落，下午3:30到。", "zh") == [("22:40", "22:40"), ("下午3:30", "3:30 p.m.")]
    assert clocks("The score was 3:2; the ratio is 16:9; it costs $10:30; 1:30:00.", "en") == []
    assert whens("我的航班22:40降落。", "zh") == []  # not unless asked for


def test_dates_and_times_said_in_words_are_read_where_asked_for() -> None:
    def spoken(text: str) -> list[tuple[str, str]]:
        return [(text[b:e], written_when(w, "zh")) for b, e, w in whens(text, "en", spoken=True)]

    assert spoken("The class ends at a quarter to four.") == [("a quarter to four", "三点四十五分")]
    assert spoken("I've been waiting since half past six.") == [("half past six", "六点半")]
    assert spoken("Come at a quarter to one, or quarter past 9 in the morning.") == [
        ("a quarter to one", "十二点四十五分"), ("quarter past 9 in the morning", "上午9点15分")]
    assert spoken("We landed at half past eleven at night.") == [("half past eleven at night", "晚上十一点半")]
    assert spoken("He left on the tenth of May, 2019; she on March twenty-first.") == [
        ("the tenth of May, 2019", "2019年5月10日"), ("March twenty-first", "3月21日")]
    assert spoken("It is half to six; we may first eat; the first of may; half past the hour; a quarter of it.") == []
    assert whens("The class ends at a quarter to four.", "en") == []  # not unless asked for


def test_written_forms() -> None:
    assert [zh_numeral(n) for n in (0, 7, 10, 11, 20, 45, 99)] == ["零", "七", "十", "十一", "二十", "四十五", "九十九"]
    assert written_when(When("time", hour=17, minute=30), "en") == "5:30 p.m."  # a 24-hour clock
    assert written_when(When("time", hour=17, minute=30), "zh") == "17点半"
    assert written_when(When("time", hour=9, minute=5, part="pm"), "zh") == "晚上9点5分"
    assert written_when(When("time", hour=4, part="pm"), "zh") == "下午4点"
    assert written_when(When("time", hour=11, minute=45, part="am", words=True), "zh") == "上午十一点四十五分"
    assert written_when(When("date", month=2, day=29), "en") == "February 29"


@pytest.mark.parametrize(("source", "translation", "tgt", "kept"), [
    ("The movie starts at 7:40 p.m. on March 12.", "电影三月十二号晚上七点四十开始。", "zh", (2, 2)),  # any form
    ("The movie starts at 7:40 p.m. on March 12.", "电影12月晚上7:40开始。", "zh", (1, 2)),  # the month lost
    ("电影晚上七点四十开始。", "The movie starts at seven.", "en", (0, 1)),
    ("下午五点见。", "See you at 17:00.", "en", (1, 1)),  # the 24-hour twin
    ("他通常十一点睡觉。", "He usually goes to bed at eleven.", "en", (1, 1)),  # a whole hour by its number
    ("他通常十一点睡觉。", "He usually goes to bed at ten.", "en", (0, 1)),
    ("我的生日是三月十二号。", "My birthday is on the 12th of March.", "en", (1, 1)),
    ("五月四号和五月四号", "May 4", "en", (1, 2)),  # each said as often as the source says it
    ("I like tea.", "我喜欢茶。", "zh", (0, 0)),
    ("The class ends at a quarter to four.", "这节课三点四十五分下课。", "zh", (1, 1)),  # said in words: always read
    ("我从六点半就开始等了。", "I've been waiting since half past six.", "en", (1, 1)),
    ("我从六点半就开始等了。", "I've been waiting since six.", "en", (0, 1)),
    ("他五月十号走的。", "He left on the tenth of May.", "en", (1, 1)),
    ("I work from 9 am to 5 pm.", "我在上午9点十下午5点工作。", "zh", (1, 2)),  # 9点十 is 9:10: no whole hour 9
    ("I work from 9 am to 5 pm.", "我从上午9点到下午5点工作。", "zh", (2, 2)),
])
def test_dates_and_times_kept(source: str, translation: str, tgt: str, kept: tuple[int, int]) -> None:
    from translate.data.dates import dates_kept

    assert dates_kept(source, translation, tgt) == kept
