"""Names read as stand-ins (`inference.standins`): which names are found, which stand-in each gets, and
that the translation gets the name's own form back, on a scripted lexicon and a scripted model that
knows only the stand-ins."""

from __future__ import annotations

from typing import ClassVar

import pytest

from translate.config.schema import DecodeConfig
from translate.data.pinyin import learn
from translate.data.tokenizer import Tokenizer
from translate.inference import glossary, standins
from translate.inference.glossary import Glossary, Term
from translate.inference.standins import StandInTranslator, find_names, substitute
from translate.inference.text_translator import TextTranslator, Translation

LEXICON = Glossary([Term("Chengdu", "成都"), Term("Beijing", "北京"), Term("Li", "澧县"), Term("Hong Kong", "香港"),
                    Term("Huadu", "花都"), Term("Jack", "杰克")], cased=True, whole_words=True)
GIVEN = Glossary([Term("Jim", "吉姆"), Term("Linda", "琳达"), Term("Kevin", "凯文"), Term("Chengdu", "成都市")], cased=True,
                 whole_words=True)  # Chengdu: a given name here to show that the lexicon's place comes first, a place
PEOPLE = [("Li Lei", "李雷"), ("Wang Lei", "王雷"), ("Zhang Wei", "张伟"), ("Han Meimei", "韩梅梅"), ("Hong Yi", "洪毅"),
          ("Li Kong", "李孔")]  # so Hong Kong also reads as a person, 洪孔


@pytest.fixture(autouse=True)
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glossary, "names_lexicon", lambda: LEXICON)
    monkeypatch.setattr(glossary, "given_names", lambda: GIVEN)
    monkeypatch.setattr(standins, "person_tables", lambda: learn(PEOPLE))
    standins.kind_of.cache_clear()


def test_people_and_places_become_stand_ins_and_come_back() -> None:
    sub = substitute("Li Lei lives in Chengdu.", "en")
    assert sub.text == "Tom lives in Boston."
    assert sub.back == [("汤姆", "李雷"), ("波士顿", "成都")]
    assert sub.restore("汤姆住在波士顿。", "zh") == "李雷住在成都。"
    back = substitute("李雷住在成都。", "zh")
    assert back.text == "汤姆住在波士顿。"
    assert back.restore("Tom's home is in Boston; Tomas is not.", "en") == "Li Lei's home is in Chengdu; Tomas is not."


def test_a_syllable_alone_is_no_county_and_the_longer_name_wins() -> None:
    assert [f.target for f in find_names("Li is here.", "en")] == []  # 澧县 is no reading of the surname Li
    assert [f.target for f in find_names("Hong Kong is big.", "en")] == ["香港"]  # the lexicon's, not 洪空
    assert [f.target for f in find_names("Zhang Wei met Han Meimei.", "en")] == ["张伟", "韩梅梅"]


def test_a_surname_after_a_title_is_a_person_with_the_title_in_chinese_order() -> None:
    sub = substitute("Mr. Li will arrive in Chengdu; Professor Wang and Ms Zhang came.", "en")
    assert sub.text == "Tom will arrive in Boston; Mary and Ms Zhang came."  # a third person: no stand-in left
    assert sub.back == [("汤姆", "李先生"), ("波士顿", "成都"), ("玛丽", "王教授")]
    assert sub.restore("汤姆会到波士顿；玛丽来了。", "zh") == "李先生会到成都；王教授来了。"
    assert [f.target for f in find_names("Mr. Zhang Wei is here.", "en")] == ["张伟"]  # two names: a full name
    assert find_names("Mr. Smith and Dr. Who are here.", "en") == []  # no Chinese surnames
    assert [f.target for f in find_names("Ms. Han is here.", "en")] == ["韩女士"]


def test_a_surname_before_a_chinese_title_is_a_person_with_the_title_in_english_order() -> None:
    sub = substitute("李先生星期五到成都，王教授和张老师来了。", "zh")
    assert sub.text == "汤姆星期五到波士顿，玛丽和张老师来了。"  # a third person: no stand-in left
    assert sub.back == [("Tom", "Mr. Li"), ("Boston", "Chengdu"), ("Mary", "Professor Wang")]
    assert sub.restore("Tom arrives in Boston on Friday; Mary came.", "en") == \
        "Mr. Li arrives in Chengdu on Friday; Professor Wang came."
    assert [f.target for f in find_names("韩女士在吗？", "zh")] == ["Ms. Han"]
    assert [f.target for f in find_names("张医生和韩小姐", "zh")] == ["Dr. Zhang", "Miss Han"]
    assert find_names("我和老师去公园。", "zh") == []  # 和 is "and" here: a conjunction, no surname
    assert find_names("他帮一位老太太。", "zh") == []  # an old lady (老 describes), no Mrs. Lao
    assert find_names("我先生不在家。", "zh") == []  # my husband: 我 is no surname
    assert find_names("这张医生的照片", "zh") == []  # 张 counts the photo


def test_stand_ins_already_in_the_sentence_are_not_given_and_a_name_keeps_its_stand_in() -> None:
    sub = substitute("Tom met Li Lei, and Li Lei met Zhang Wei and Han Meimei.", "en")
    assert sub.text == "Tom met Mary, and Mary met Zhang Wei and Han Meimei."  # two people left for the lexicon
    assert sub.back == [("玛丽", "李雷")]
    assert substitute("I met Tom in Beijing.", "en").text == "I met Tom in Boston."  # Tom is no name to replace


def test_western_given_names_are_people_both_ways_after_the_lexicons_names(monkeypatch: pytest.MonkeyPatch) -> None:
    sub = substitute("Jim and Linda live in Chengdu.", "en")
    assert sub.text == "Tom and Mary live in Boston."
    assert sub.back == [("汤姆", "吉姆"), ("玛丽", "琳达"), ("波士顿", "成都")]  # 成都, the lexicon's, not 成都市
    assert substitute("琳达和吉姆住在成都。", "zh").restore("Tom and Mary live in Boston.", "en") == \
        "Linda and Jim live in Chengdu."
    # a lexicon name whose English is a given name is a person, whatever rjieba tags its Chinese
    monkeypatch.setattr(glossary, "names_lexicon", lambda: Glossary([Term("Kevin", "凯文")], cased=True, whole_words=True))
    assert [(f.target, f.kind) for f in find_names("Kevin is here.", "en")] == [("凯文", "person")]
    assert [f.target for f in find_names("Jimmy and jim are here.", "en")] == []  # whole words, with the capital
    # Anna spells 安娜 in pinyin by chance: a given name, so a person; Sydney, also a given name, rjieba tags a place
    monkeypatch.setattr(glossary, "names_lexicon", lambda: Glossary([Term("Anna", "安娜"), Term("Sydney", "悉尼")],
                                                                   cased=True, whole_words=True))
    monkeypatch.setattr(glossary, "given_names", lambda: Glossary([Term("Anna", "安妮娅"), Term("Sydney", "西德尼")],
                                                                 cased=True, whole_words=True))
    assert [(f.target, f.kind) for f in find_names("Anna lives in Sydney.", "en")] == [("安娜", "person"), ("悉尼", "place")]


def test_a_lexicon_name_is_of_the_kind_its_entry_says(monkeypatch: pytest.MonkeyPatch) -> None:
    # rjieba tags 柏林 and 莫斯科 as people, and Mozi spells 墨子 in pinyin as one word, as places do
    assert standins.kind_of("Berlin", "柏林") == "person" and standins.kind_of("Mozi", "墨子") == "place"
    lexicon = Glossary([Term("Berlin", "柏林", "place"), Term("Moscow", "莫斯科"), Term("Mozi", "墨子", "person")],
                       cased=True, whole_words=True)
    monkeypatch.setattr(glossary, "names_lexicon", lambda: lexicon)
    assert [(f.target, f.kind) for f in find_names("Mozi went from Berlin to Moscow.", "en")] == [
        ("墨子", "person"), ("柏林", "place"), ("莫斯科", "person")]  # without a kind: rjieba's tag
    sub = substitute("墨子从柏林去了莫斯科。", "zh")
    assert sub.text == "汤姆从波士顿去了玛丽。" and sub.restore("Tom went from Boston to Mary.", "en") == \
        "Mozi went from Berlin to Moscow."


def test_a_currency_the_model_never_learnt_is_read_as_dollars_and_comes_back() -> None:
    """"399 yuan" came back 399年 (399 years): it is read as dollars and 美元 written back as 元."""
    sub = substitute("This coat costs 399 yuan.", "en")
    assert sub.text == "This coat costs 399 dollars." and sub.back == [("美元", "元")]
    assert sub.restore("这件外套要399美元。", "zh") == "这件外套要399元。"
    assert sub.restore("这件外套要399。", "zh") == "这件外套要399。"  # not forced: nothing to write back
    rmb = substitute("Li Lei paid 20 RMB in Chengdu.", "en")
    assert rmb.text == "Tom paid 20 dollars in Boston." and ("美元", "人民币") in rmb.back
    already = substitute("I want to change 500 dollars into yuan.", "en")  # dollars already said: yuan stays
    assert already.text == "I want to change 500 dollars into yuan." and already.back == []
    price = substitute("房间一晚三百块。", "zh")  # Chinese: 元 and 块 after a number, read as 美元
    assert price.text == "房间一晚三百美元。" and price.back == [("dollars", "yuan")]
    assert price.restore("The room is three hundred dollars a night.", "en") == "The room is three hundred yuan a night."
    assert substitute("票价150元。", "zh").text == "票价150美元。"
    assert substitute("奶茶才12块一杯。", "zh").text == "奶茶才12美元一杯。"  # a price per cup
    assert substitute("我吃了两块蛋糕。", "zh").back == []  # 块 before a noun counts it
    assert substitute("我想把五百美元换成人民币。", "zh").back == []  # 美元 is said: no stand-in is free


def test_large_numbers_are_read_as_stand_ins_and_written_back_as_the_target_writes_them() -> None:
    """"3,299 yuan" came back 13299元花了319; 八百万 (800万) "about 800": each is read as 20, 30… and written back."""
    sub = substitute("The salary rose from 6,000 to 7,500 yuan.", "en", numbers=True)
    assert sub.text == "The salary rose from 20 to 30 dollars."
    assert sub.back == [("20", "6000"), ("30", "7500"), ("美元", "元")]
    assert sub.restore("工资从20美元涨到了三十美元。", "zh") == "工资从6000元涨到了7500元。"  # in digits or numerals
    assert sub.restore("工资从200美元涨到了2030美元。", "zh") == "工资从200元涨到了2030元。"  # no part of another number
    city = substitute("这个城市的人口大约800万，有20个区。", "zh", numbers=True)  # 20 is said: the next stand-in
    assert city.text == "这个城市的人口大约30，有20个区。" and city.back == [("30", "8 million")]
    assert city.restore("The city has about30 people in 20 districts.", "en") == "The city has about 8 million people in 20 districts."
    assert city.restore("Thirty people, 1.30 and 300.", "en") == "8 million people, 1.30 and 300."
    assert substitute("This coat costs 6,000 yuan.", "en").text == "This coat costs 6,000 dollars."  # numbers off
    price = substitute("这辆自行车1299元。", "zh", numbers=True)
    assert price.text == "这辆自行车20美元。" and price.restore("The bicycle is $20.", "en") == "The bicycle is 1,299 yuan."
    assert price.restore("The bicycle is $20 dollars.", "en") == "The bicycle is 1,299 yuan."  # no "yuan yuan"
    assert substitute("这辆自行车1299元。", "zh").restore("The bicycle is $1299.", "en") == "The bicycle is $1299."
    assert substitute("He was born in 1998 and has 20 cats.", "en", numbers=True).back == []  # a year stays
    many = substitute("1,000 or 2,000 or 3,000 or 4,000 or 5,000", "en", numbers=True)  # four stand-ins, then as written
    assert many.text == "20 or 30 or 50 or 40 or 5,000"
    twice = substitute("It costs 12,000 yuan, yes 12,000 yuan.", "en", numbers=True)
    assert twice.text == "It costs 20 dollars, yes 20 dollars." and twice.times == [2, 2]
    assert twice.doubled("20 20 20", "zh") and not twice.doubled("它要20美元，是的20美元。", "zh")


def test_a_sentence_without_names_is_unchanged() -> None:
    for sentence, lang in (("I like tea.", "en"), ("我喜欢茶。", "zh"), ("山上都是雪。", "zh")):
        assert substitute(sentence, lang).text == sentence and substitute(sentence, lang).back == []


class ScriptedModel(TextTranslator):
    """Translates the sentences it knows (stand-ins only) and garbles the others, as the models do."""

    KNOWN: ClassVar[dict[str, str]] = {"Tom lives in Boston.": "汤姆住在波士顿。", "I like tea.": "我喜欢茶。",
                                       "It costs 20 dollars.": "它要20美元。"}

    def __init__(self, tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
        super().__init__(None, *tokenizers, DecodeConfig(), "en", "zh")  # type: ignore[arg-type]
        self.read: list[str] = []

    def search_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        self.read += texts
        return [[Translation(self.KNOWN.get(t, "躺在牢里生活。"), -1.0, [])] for t in texts]


def test_the_translator_searches_the_stand_ins_and_writes_the_names(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    model = ScriptedModel(tiny_tokenizers)
    out = StandInTranslator(model).search_n_best(["Li Lei lives in Chengdu.", "I like tea."])
    assert model.read == ["Tom lives in Boston.", "I like tea."]
    assert [hyps[0].text for hyps in out] == ["李雷住在成都。", "我喜欢茶。"]
    assert out[0][0].tokens == tiny_tokenizers[1].encode(["李雷住在成都。"])[0]  # the tokens of what is shown
    assert out[0][0].searched == ("Tom lives in Boston.", []) and out[1][0].searched is None  # what attention reads


def test_the_translator_reads_large_numbers_as_stand_ins_where_decode_says_so(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    model = ScriptedModel(tiny_tokenizers)
    [[plain]] = StandInTranslator(model).search_n_best(["It costs 12,000 yuan."])
    [[carried]] = StandInTranslator(model).search_n_best(["It costs 12,000 yuan."], DecodeConfig(number_standins=True))
    assert model.read == ["It costs 12,000 dollars.", "It costs 20 dollars."]
    assert plain.text == "躺在牢里生活。" and carried.text == "它要12000元。"


def test_dates_and_times_read_as_a_weekday_and_noon_and_come_back_as_the_target_writes_them() -> None:
    sub = substitute("The movie starts at 7:40 p.m. on March 12.", "en", dates=True)
    assert sub.text == "The movie starts at noon on Sunday." and sub.back == [("中午", "晚上7点40分"), ("周日", "3月12日")]
    assert sub.restore("电影星期天中午开始。", "zh") == "电影3月12日晚上7点40分开始。"  # any form the model writes
    assert sub.restore("电影周日周日中午12点开始。", "zh") == "电影3月12日晚上7点40分开始。"  # a run once; noon's 12 no part
    assert sub.restore("电影周日中午十二开始。", "zh") == "电影3月12日晚上7点40分开始。"
    assert sub.lacks_a_date("电影中午开始。", "zh") and not sub.lacks_a_date("电影星期天中午开始。", "zh")  # ranked last
    assert substitute("The movie starts at 7:40 p.m. on March 12.", "en").text.endswith("7:40 p.m. on March 12.")
    back = substitute("商店周日晚上十点关门。", "zh", dates=True)  # Sunday is said: Monday stands in for no date here
    assert back.text == "商店周日中午关门。" and back.back == [("noon", "10 p.m.")]
    assert back.restore("The store closes at noon on Sunday.", "en") == "The store closes at 10 p.m. on Sunday."
    ends = substitute("它晚上十点关门。", "zh", dates=True)
    assert ends.restore("It closes at noon.", "en") == "It closes at 10 p.m."  # one point, not "p.m.."
    two = substitute("我们五月四号和五月四号都在。", "zh", dates=True)
    assert two.text == "我们周日和周日都在。" and two.times == [2]
    assert two.doubled("We are on Sunday, Sunday and Sunday.", "en") and not two.doubled("Sunday and Sunday.", "en")


def test_dates_and_times_said_in_words_read_as_stand_ins_only_where_asked_for() -> None:
    sub = substitute("The class ends at a quarter to four on the tenth of May.", "en", dates=True, words=True)
    assert sub.text == "The class ends at noon on Sunday." and sub.back == [("中午", "三点四十五分"), ("周日", "5月10日")]
    assert sub.restore("课周日中午结束。", "zh") == "课5月10日三点四十五分结束。"
    assert substitute("The class ends at a quarter to four.", "en", dates=True).back == []
    assert substitute("The class ends at a quarter to four.", "en", words=True).back == []  # with dates only


def test_clocks_alone_read_as_an_hour_only_where_asked_for() -> None:
    sub = substitute("My flight lands at 22:40 on May 4.", "en", clocks=True)
    assert sub.text == "My flight lands at six o'clock on May 4." and sub.back == [("六点", "22:40")]
    assert sub.restore("我的航班5月4日六点钟降落。", "zh") == "我的航班5月4日22:40降落。"
    both = substitute("My flight lands at 22:40 on May 4.", "en", dates=True, clocks=True)
    assert both.text == "My flight lands at six o'clock on Sunday." and both.back == [("六点", "22:40"), ("周日", "5月4日")]
    assert substitute("My flight lands at 22:40 on May 4.", "en", dates=True).text == "My flight lands at 22:40 on Sunday."
    back = substitute("会议16:30开始，6个人参加。", "zh", clocks=True)  # 6 said: seven stands in, its 16:30's 6 no matter
    assert back.text == "会议七点开始，6个人参加。" and back.restore("The meeting starts at seven, 6 people came.", "en") == (
        "The meeting starts at 16:30, 6 people came.")
    assert substitute("Six people came at 16:30 and seven at 17:30.", "en", clocks=True).text == (
        "Six people came at 16:30 and seven at 17:30.")  # six and seven said: no stand-in is free


def test_times_of_day_read_as_clocks_where_asked_for() -> None:
    """`decode.times_as_clocks`: a time's stand-in is a clock's ("six o'clock", then "seven o'clock"), free
    where the sentence without the names says no six or seven, one pool with the clocks alone."""
    sub = substitute("I work from 9 am to 5 pm.", "en", dates=True, times_as_clocks=True)
    assert sub.text == "I work from six o'clock to seven o'clock." and sub.back == [("六点", "上午9点"), ("七点", "下午5点")]
    assert sub.restore("我从六点到七点钟工作。", "zh") == "我从上午9点到下午5点工作。"
    assert substitute("I work from 9 am to 5 pm.", "en", dates=True).text == "I work from noon to midnight."
    back = substitute("博物馆下午5点关门。", "zh", dates=True, times_as_clocks=True)
    assert back.text == "博物馆六点关门。" and back.restore("The museum closes at six o'clock.", "en") == "The museum closes at 5 p.m."
    six = substitute("Six of us meet at 6 pm.", "en", dates=True, times_as_clocks=True)  # six said: seven stands in
    assert six.text == "Six of us meet at seven o'clock." and six.back == [("七点", "晚上6点")]
    shared = substitute("At 9 am the 22:40 flight was late.", "en", dates=True, clocks=True, times_as_clocks=True)
    assert shared.text == "At six o'clock the seven o'clock flight was late."  # a time and a clock: one pool


def test_the_translator_reads_dates_as_stand_ins_where_decode_says_so(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    model = ScriptedModel(tiny_tokenizers)
    model.KNOWN = {**ScriptedModel.KNOWN, "The deadline is Sunday.": "截止日期是周日。"}
    [[plain]] = StandInTranslator(model).search_n_best(["The deadline is March 31."])
    [[dated]] = StandInTranslator(model).search_n_best(["The deadline is March 31."], DecodeConfig(date_standins=True))
    assert model.read == ["The deadline is March 31.", "The deadline is Sunday."]
    assert plain.text == "躺在牢里生活。" and dated.text == "截止日期是3月31日。"
    model.KNOWN = {**model.KNOWN, "The deadline is the tenth of May.": "躺在牢里生活。"}
    [[unread]] = StandInTranslator(model).search_n_best(["The deadline is the tenth of May."], DecodeConfig(date_standins=True))
    [[worded]] = StandInTranslator(model).search_n_best(["The deadline is the tenth of May."],
                                                        DecodeConfig(date_standins=True, dates_in_words=True))
    assert unread.text == "躺在牢里生活。" and worded.text == "截止日期是5月10日。"


def test_the_dates_stand_ins_are_forced_terms_only_where_decode_says_so(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from dataclasses import replace

    from translate.inference.wrapping import with_glossaries

    english = ScriptedModel(tiny_tokenizers)
    english.decode = replace(english.decode, lexicon=True, names="standins")
    assert with_glossaries(english).inner.glossaries == (standins.STANDINS,)  # type: ignore[attr-defined]
    english.decode = replace(english.decode, date_standins=True)
    assert with_glossaries(english).inner.glossaries == (standins.STANDINS, standins.WHENS)  # type: ignore[attr-defined]
    english.decode = replace(english.decode, date_standins=False, clock_standins=True)
    assert with_glossaries(english).inner.glossaries == (standins.STANDINS, standins.CLOCK_TERMS)  # type: ignore[attr-defined]


def test_words_the_model_learnt_are_no_people_though_rjieba_tags_them_so() -> None:
    assert [f.target for f in find_names("我要咖啡，谢谢。我们明白。", "zh")] == []  # 谢谢 and 明白 are tagged nr
    assert [f.target for f in find_names("太阳升起来了。这锅墩汤闻起来真美味。", "zh")] == []  # 太阳 | 升; 汤 | 闻
    assert [f.target for f in find_names("张伟是我的老师。", "zh")] == ["Zhang Wei"]


def test_english_sources_force_no_other_name_of_the_lexicon(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from dataclasses import replace

    from translate.inference.glossary import GlossaryTranslator
    from translate.inference.wrapping import model_translator, with_glossaries

    english = ScriptedModel(tiny_tokenizers)
    english.decode = replace(english.decode, lexicon=True, names="standins")
    wrapped = with_glossaries(english)
    assert isinstance(wrapped, StandInTranslator) and isinstance(wrapped.inner, GlossaryTranslator)
    assert wrapped.inner.glossaries == (standins.STANDINS,) and model_translator(wrapped) is english
    chinese = ScriptedModel(tiny_tokenizers)
    chinese.decode, chinese.src_lang, chinese.tgt_lang = english.decode, "zh", "en"
    inner = with_glossaries(chinese).inner  # type: ignore[attr-defined]
    assert inner.glossaries == (standins.STANDINS, LEXICON)
    forced = ScriptedModel(tiny_tokenizers)
    forced.decode = replace(forced.decode, lexicon=True)
    assert isinstance(with_glossaries(forced), GlossaryTranslator) and with_glossaries(forced).glossaries == (LEXICON,)  # type: ignore[attr-defined]


def test_the_users_glossary_wins_its_people_and_places_read_as_stand_ins_in_its_forms() -> None:
    users = Glossary([Term("Chengdu Research Base", "成都研究基地"), Term("Li Lei", "李蕾"), Term("Xi'an", "西安")])
    sub = substitute("Li Lei works at the Chengdu Research Base.", "en", [users])
    assert sub.text == "Tom works at the Chengdu Research Base." and sub.back == [("汤姆", "李蕾")]  # the user's form
    assert substitute("I was born in Xi'an.", "en", [users]).back == [("波士顿", "西安")]  # a place of the user's


def test_attention_of_the_stand_ins_is_shown_on_the_names_pieces() -> None:
    """Columns: a stand-in's mass shared out over its name's characters, the rest kept; rows: a name's
    pieces take the stand-in's row; every row still sums to what it summed to."""
    from translate.inference.standins import onto_pieces
    from translate.inference.translator import Alignment

    searched = Alignment(["汤姆", "住在", "波士顿", "</s>"], ["▁Tom", "▁lives", "▁in", "▁Boston", "</s>"],
                         [[0.8, 0.1, 0.0, 0.1], [0.1, 0.9, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0], [0.0, 0.0, 1.0, 0.0],
                          [0.0, 0.0, 0.0, 1.0]])
    shown = onto_pieces(searched, ["李", "雷", "住在", "成都", "</s>"],
                        ["▁Li", "▁Lei", "▁lives", "▁in", "▁Chengdu", "</s>"])
    assert len(shown.weights) == 6 and all(len(row) == 5 for row in shown.weights)
    for row in shown.weights:
        assert sum(row) == pytest.approx(1.0)
    assert shown.weights[0] == pytest.approx([0.4, 0.4, 0.1, 0.0, 0.1])  # Tom's row, on 李 and 雷 evenly
    assert shown.weights[1] == pytest.approx(shown.weights[0])  # both pieces of the name take it
    assert shown.weights[2] == pytest.approx([0.05, 0.05, 0.9, 0.0, 0.0])
    assert shown.weights[4] == pytest.approx([0.0, 0.0, 0.0, 1.0, 0.0])  # Boston's row on 成都
    assert shown.weights[5] == pytest.approx([0.0, 0.0, 0.0, 0.0, 1.0])


class BeamModel(ScriptedModel):
    """A beam whose best translation writes the stand-in twice, as the models do for 长城上人很多。."""

    def search_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        self.read += texts
        beam = [Translation("汤姆住在波士顿，波士顿。", -1.0, []), Translation("汤姆住在波士顿。", -1.5, []),
                Translation("住在波士顿。", -2.0, [])]
        return [beam[:(decode or self.decode).n_best] for _ in texts]


def test_a_translation_that_says_a_stand_in_twice_comes_after_those_that_do_not(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    translator = StandInTranslator(BeamModel(tiny_tokenizers))
    [[best]] = translator.search_n_best(["Li Lei lives in Chengdu."])  # n_best 1 of a beam of 5
    assert best.text == "李雷住在成都。" and best.score == -1.5
    both = translator.search_n_best(["Li Lei lives in Chengdu."], DecodeConfig(beam_size=5, n_best=3))[0]
    assert [t.text for t in both] == ["李雷住在成都。", "住在成都。", "李雷住在成都，成都。"]
    sub = substitute("Chengdu is not Chengdu.", "en")  # the source says it twice: twice is right
    assert sub.times == [2] and not sub.doubled("波士顿不是波士顿。", "zh") and sub.doubled("波士顿波士顿波士顿", "zh")


def test_a_name_of_capitalised_words_without_a_kind_is_a_place_and_its_article_goes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lexicon = Glossary([*LEXICON.terms, Term("Fudan University", "复旦大学"), Term("the Great Wall", "长城"),
                        Term("Palace", "博格多汗宫"), Term("Tea", "茶")], cased=True, whole_words=True)
    monkeypatch.setattr(glossary, "names_lexicon", lambda: lexicon)
    sub = substitute("The Great Wall is far from Fudan University.", "en")
    assert sub.text == "Boston is far from London."  # both places; "The" goes with the name it named
    assert sub.restore("波士顿离伦敦很远。", "zh") == "长城离复旦大学很远。"
    assert substitute("We took photos at the Great Wall.", "en").text == "We took photos at Boston."
    assert [(f.target, f.kind) for f in find_names("Tea is good.", "en")] == [("茶", "")]  # one word: no place
    back = substitute("长城很长。", "zh")
    assert back.text == "波士顿很长。"
    assert back.restore("Boston is very long.", "en") == "The Great Wall is very long."  # still a capital
