"""Numbers in digits (`translate.data.quantities`): what a number is, and whether a translation keeps it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from translate.data.quantities import (
    carried_numbers,
    numbers,
    numbers_kept,
    said,
    without_doubled_numbers,
    written,
    zh_value,
)


@pytest.mark.parametrize(("text", "found"), [
    ("The meeting is at 17:30.", ["17:30"]), ("It costs $45.", ["45"]), ("3.5元", ["3.5"]),
    ("1,000 people, 12,34 and 2026-12-06", ["1,000", "12", "34", "2026", "12", "06"]),
    ("Call 13800138000.", ["13800138000"]), ("no digits", []),
])
def test_numbers_with_their_decimal_points_clock_colons_and_thousands_commas(text: str, found: list[str]) -> None:
    assert numbers(text) == found


@pytest.mark.parametrize(("source", "translation", "lang", "kept"), [
    ("It costs $45.", "它要花五十美元。", "zh", (0, 1)),  # the case: the price moved
    ("It costs $45.", "它要45美元。", "zh", (1, 1)),
    ("It costs $45.", "它要四十五美元。", "zh", (1, 1)),
    ("This coat costs 399 yuan.", "这件外套三百九十九块钱。", "zh", (1, 1)),
    ("Go straight for about 200 meters.", "直走大约两百米。", "zh", (1, 1)),
    ("The population is about 8000000.", "人口大约八百万。", "zh", (1, 1)),
    ("He was born in 1998.", "他一九九八年出生。", "zh", (1, 1)),
    ("1,000 people", "1000人", "zh", (1, 1)),  # thousands commas aside
    ("Room 12, floor 12.", "12楼的房间。", "zh", (1, 2)),  # as often as the source says it
    ("The train leaves at 8:15.", "火车八点十五分出发。", "zh", (1, 1)),
    ("The train leaves at 8:15.", "火车八点一刻出发。", "zh", (1, 1)),
    ("The meeting is at 17:30.", "会议在下午五点半。", "zh", (1, 1)),
    ("The meeting is at 17:30.", "会议将1点了。", "zh", (0, 1)),  # the case: the meeting moved
    ("The meeting is at 17:30.", "会议在17点30分。", "zh", (1, 1)),
    ("会议17:30开始。", "The meeting starts at 5:30 pm.", "en", (1, 1)),
    ("我们结婚25年了。", "We have been married for twenty-five years.", "en", (1, 1)),
    ("这件衣服99块钱。", "This dress is nine o'clock.", "en", (0, 1)),  # the case
    ("这里有300人。", "There are three hundred people here.", "en", (1, 1)),
    ("我们10号见。", "See you on the tenth.", "en", (1, 1)),  # an ordinal says its value
    ("他5月出生。", "He was born in May.", "en", (1, 1)),  # a month says its number
    ("我5点来。", "I may come.", "en", (0, 1)),  # "may" is a verb: no month
    ("我5点来。", "May I come?", "en", (0, 1)),  # nor "May" before a pronoun
    ("Hello.", "你好。", "zh", (0, 0)),
])
def test_a_translation_keeps_a_number_when_it_says_its_value(source: str, translation: str, lang: str,
                                                              kept: tuple[int, int]) -> None:
    assert numbers_kept(source, translation, lang) == kept


@pytest.mark.parametrize(("numeral", "value"), [
    ("三百九十九", 399), ("两百", 200), ("十五", 15), ("一百零五", 105), ("八百万", 8_000_000), ("一九九八", 1998),
    ("三万五千", 35_000), ("十", 10), ("零", 0)])
def test_chinese_numerals(numeral: str, value: int) -> None:
    assert zh_value(numeral) == value


@pytest.mark.parametrize("source,translation,tgt,added", [
    ("It's a ten-minute walk.", "它走路1010分钟。", "zh", ["1010"]),
    ("It's a ten-minute walk.", "走路要十分钟。", "zh", []),  # Chinese numerals are not read
    ("It was 38 degrees yesterday.", "昨天38度3度。", "zh", ["3"]),
    ("Meet me at 5:30 pm.", "下午17:30见。", "zh", []),  # a time in its 24-hour form
    ("The movie starts at 7:40 p.m.", "电影晚上7点40分开始。", "zh", []),  # one time, not 7 and 40
    ("Meet me at 5:30 pm.", "下午5点半见，7点半走。", "zh", ["7:30"]),
    ("I have 7 apples and 40 pears.", "我有7点40分。", "zh", ["7:40"]),  # a time that the source does not say
    ("The city has 8 million people.", "这个城市有800万人。", "zh", []),
    ("我昨晚只睡了四个小时。", "I slept just two hours last night.", "en", ["2"]),  # number words in English
    ("这个城市的人口大约八百万。", "The population is about 8 million.", "en", []),  # 8 million is one number
    ("我六点半回来。", "I'll be back by six-thirty.", "en", []),  # a time in words
    ("我们中的一个人", "One of us", "en", []),  # "one" is also a pronoun: never read
    ("这件外套三百九十九块钱。", "This coat is nine in thirty percent.", "en", ["9", "30"]),
    ("The party is on the tenth of May.", "派对在5月10日。", "zh", []),  # an ordinal in the source says 10
    ("It is my twenty-first birthday.", "这是我的21岁生日。", "zh", []),
    ("It is my twenty first birthday.", "这是我的21岁生日。", "zh", []),
    ("他二十一岁。", "It is his twenty-first year.", "en", []),  # the twenty of "twenty-first" is 21, not 20
    ("他二十岁。", "It is his twenty-first year.", "en", ["21"]),
    ("他先走了。", "He left first.", "en", []),  # an ordinal alone is not read in a translation ("first", "second")
    ("See you on Sept. 3.", "9月3日见。", "zh", []),  # a month's abbreviation before its day says its number
    ("Wait a second.", "等2秒。", "zh", ["2"]),  # "second" as a unit of time says no 2
    ("I'll be back in a second.", "我2秒后回来。", "zh", ["2"]),
    ("Just a second or two.", "2秒。", "zh", []),  # "two" says it
    ("Give me a second chance.", "给我第2次机会。", "zh", []),  # ... as an ordinal it does
    ("It is on the second floor.", "在2楼。", "zh", []),
    ("Due Jan 15.", "1月15日到期。", "zh", []),
])
def test_numbers_a_translation_adds(source: str, translation: str, tgt: str, added: list[str]) -> None:
    from translate.data.quantities import numbers_added

    assert numbers_added(source, translation, tgt) == added


@pytest.mark.parametrize("text,read", [
    ("一年有三百六十五天。", "一年有365天。"), ("这部手机我花了两千块。", "这部手机我花了2000块。"),
    ("大约百分之六十的学生及格了。", "大约60%的学生及格了。"), ("这个城市的人口大约八百万。", "这个城市的人口大约800万。"),
    ("我在一九七二年十月十日出生。", "我在1972年十月十日出生。"), ("我们结婚二十五年了。", "我们结婚25年了。"),
    ("一万日元够吗？", "一万日元够吗？"),  # the model knows 一万
    ("三三两两", "三三两两"), ("五六个人", "五六个人"), ("几百万人", "几百万人"),  # no digit-by-digit number, approximations
    ("万一下雨呢？", "万一下雨呢？"), ("十一放假", "十一放假"),  # words
    ("火车八点十五分出发。", "火车八点十五分出发。"), ("她身高一米六八。", "她身高一米六八。"), ("十二月", "十二月"),
    ("我有三本书。", "我有三本书。"), ("十个人", "十个人"),  # below 11
])
def test_chinese_numerals_are_read_as_digits_where_they_are_numbers(text: str, read: str) -> None:
    from translate.data.quantities import numerals_as_digits, said

    assert numerals_as_digits(text) == read
    assert "%" in read or all(said(read, "zh")[value] >= times for value, times in said(text, "zh").items())  # the values kept


@pytest.mark.parametrize(("text", "lang", "carried"), [
    ("He earns 12,000 yuan a month.", "en", [("12,000", "12000")]),
    ("The city has about 8 million people and 2.5 billion trees.", "en",
     [("8 million", "8000000"), ("2.5 billion", "2500000000")]),
    ("Will ten thousand yen do? Eight million, not a million.", "en", [("ten thousand", "10000"), ("Eight million", "8000000")]),
    ("It was 1998; 123456 of 0123456 at 17:30 cost 3.5 and 1,000.50 at 10000000000.", "en", [("123456", "123456")]),
    ("这个城市有800万人口，1998年，1.5亿，3000人，电话10086123456。", "zh",
     [("800万", "8000000"), ("1.5亿", "150000000"), ("3000", "3000")]),
    ("我买了20个苹果，花了300元。", "zh", []),
    ("电话是138 1234 5678，请到1508房间，坐G1234次，住12345号，花了12000元。", "zh", [("12000", "12000")]),
    ("Call 555 12345 or room A12345; it was 12,345 and $12,000.", "en", [("12,345", "12345"), ("12,000", "12000")]),
])
def test_the_numbers_a_stand_in_carries(text: str, lang: str, carried: list[tuple[str, str]]) -> None:
    found = carried_numbers(text, lang)
    assert [(text[b:e], str(int(v)) if v == int(v) else str(v)) for b, e, v in found] == carried


@pytest.mark.parametrize(("value", "zh", "en"), [
    ("12000", "12000", "12,000"), ("8000000", "800万", "8 million"), ("150000000", "1.5亿", "150 million"),
    ("2500000000", "25亿", "2.5 billion"), ("1234567", "1234567", "1,234,567"), ("1500", "1500", "1,500"),
    ("12000.5", "12000.5", "12,000.5"), ("1230000", "123万", "1.23 million"),
])
def test_a_value_is_written_as_the_language_writes_it(value: str, zh: str, en: str) -> None:
    assert written(Decimal(value), "zh") == zh and written(Decimal(value), "en") == en
    for text, lang in ((zh, "zh"), (en, "en")):  # what is written says the value (`said`)
        assert said(text, lang)[str(Decimal(value).normalize()) if "." in value else value] == 1  # once


@pytest.mark.parametrize(("text", "lang", "once"), [
    ("一年有三365天。", "zh", "一年有365天。"), ("我付了两2000元。", "zh", "我付了2000元。"),
    ("航班在四22:40降落，三十365", "zh", "航班在22:40降落，365"), ("课在四四4点。", "zh", "课在4点。"),
    ("我们每周二2点见，星期三3点，第一1", "zh", "我们每周二2点见，星期三3点，第一1"),  # a weekday's, an ordinal's
    ("他有8万元，三十个人", "zh", "他有8万元，三十个人"),
    ("电话010一1609", "zh", "电话010一1609"),  # between two numbers: left
    ("My grandfather is nine90 years old.", "en", "My grandfather is 90 years old."),
    ("We are about fifty,500 members, Twenty-five25 of us.", "en", "We are about 500 members, 25 of us."),
    ("two 25-year-olds, someone5, often10, one-2", "en", "two 25-year-olds, someone5, often10, 2"),
])
def test_a_number_said_in_words_and_then_in_digits_is_said_once(text: str, lang: str, once: str) -> None:
    assert without_doubled_numbers(text, lang) == once
