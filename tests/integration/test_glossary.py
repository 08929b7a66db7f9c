"""Glossaries: reading term files (errors name the line), matching terms, and translations that hold
every term of their source, in the CLI and `evaluate` (the API: tests/serve/test_api.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import TINY_DIR
from translate.checkpoint.store import save_checkpoint
from translate.cli.app import app
from translate.config.schema import RunConfig
from translate.data.quantities import numbers_kept
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.evaluation.evaluate import evaluate_checkpoint
from translate.inference.build import load_translator
from translate.inference.glossary import Glossary, GlossaryTranslator, Term, contains, term_ids, term_use
from translate.inference.translator import Translator
from translate.inference.wrapping import with_glossaries

runner = CliRunner()
SOURCES = ["I like tea.", "You are a teacher.", "Good morning.", "She is a student."]
TERMS = [("tea", "咖啡"), ("teacher", "医生"), ("student", "老师")]  # deliberately not the usual translations


def write(tmp: Path, text: str) -> Path:
    (tmp / "terms.tsv").write_text(text, encoding="utf-8")
    return tmp / "terms.tsv"


def test_a_glossary_file_skips_comments_and_names_the_line_at_fault(tmp_path: Path) -> None:
    glossary = Glossary.read(write(tmp_path, "# names\n\nBeijing\t北京\nHong Kong\t香港\textra column\n"))
    assert [(t.en, t.zh) for t in glossary.terms] == [("Beijing", "北京"), ("Hong Kong", "香港")]
    for text, message in [("Beijing\t北京\nShanghai\n", r"terms.tsv:2: expected en<TAB>zh, found no tab in 'Shanghai'"),
                          ("# x\n北京\tBeijing\n", r"terms.tsv:2: '北京' looks Chinese and 'Beijing' English"),
                          ("Beijing\t北京\nbeijing\t北平\n", r"terms.tsv:2: 'beijing' is given twice, as '北京' and as '北平'"),
                          ("Beijing\t \n", r"terms.tsv:1: a term needs both sides")]:
        with pytest.raises(ConfigError, match=message):
            Glossary.read(write(tmp_path, text))
    with pytest.raises(ConfigError, match="glossary not found: .*nope.tsv"):
        Glossary.read(tmp_path / "nope.tsv")
    (tmp_path / "latin1.tsv").write_bytes("Caf\xe9\tx\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1.tsv: not UTF-8 text \(byte 3\)"):
        Glossary.read(tmp_path / "latin1.tsv")


def test_terms_match_whole_english_words_longest_first_and_chinese_substrings() -> None:
    glossary = Glossary.from_pairs([("Peking", "北平"), ("Peking University", "北京大学"), ("tea", "茶")])
    found = glossary.matches("Peking University has TEA and teachers, Peking too.", "en")
    assert [(m.term.en, m.begin, m.end) for m in found] == [("Peking University", 0, 17), ("tea", 22, 25),
                                                             ("Peking", 40, 46)]
    assert [m.term.zh for m in glossary.matches("我在北京大学喝茶", "zh")] == ["北京大学", "茶"]
    assert contains("He went to peking university.", "Peking University", "en")
    assert not contains("Teachers", "tea", "en") and contains("喝茶", "茶", "zh")
    # a cased lexicon: a name's article is no part of it, so a capital at the start does not hide it
    names = Glossary([Term("the Great Wall", "长城"), Term("the Palace", "博格多汗宫"), Term("Palace Museum", "故宫博物院")],
                     cased=True)
    assert [(m.term.zh, m.begin) for m in names.matches("The Great Wall, the Great Wall, the great wall.", "en")] \
        == [("长城", 4), ("长城", 20)]
    assert [m.term.zh for m in names.matches("Is the Palace Museum open?", "en")] == ["故宫博物院"]
    assert names.holds("the Great Wall") and names.holds("Great Wall")


def test_chinese_term_pieces_decode_to_the_term_even_through_byte_fallback(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    zh = tiny_tokenizers[1]
    for term in ("咖啡", "老师"):
        ids = term_ids(zh, term, "zh")
        assert zh.decode([ids]) == [term] and not zh.pieces(ids)[0].startswith("▁")


def test_every_term_of_a_source_is_in_every_alternative_and_other_sentences_are_untouched(translator: Translator) -> None:
    glossary = Glossary.from_pairs(TERMS)
    decode = translator.decode.__class__(**{**translator.decode.__dict__, "beam_size": 4, "n_best": 3})
    plain = translator.translate_n_best(SOURCES, decode)
    constrained = GlossaryTranslator(translator, glossary).translate_n_best(SOURCES, decode)
    assert [contains(p[0].text, "咖啡", "zh") for p in plain] != [True, False, False, False]  # the model alone does not
    for source, n_best in zip(SOURCES, constrained):
        wanted = [m.term.zh for m in glossary.matches(source, "en")]
        assert all(contains(hyp.text, term, "zh") for hyp in n_best for term in wanted), (source, n_best)
    assert [t.text for t in constrained[2]] == [t.text for t in plain[2]]  # "Good morning." holds no term
    assert term_use(glossary, SOURCES, [n[0].text for n in constrained], "en", "zh") == (3, 3)


def test_cli_and_evaluate_use_the_glossary(tmp_path: Path, tiny_config: RunConfig, translator: Translator,
                                           tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), translator.model, *tiny_tokenizers, {"step": 1})
    terms = write(tmp_path, "".join(f"{en}\t{zh}\n" for en, zh in TERMS))
    result = runner.invoke(app, ["text", "-m", str(tmp_path / "ckpt"), "--glossary", str(terms), *SOURCES[:2]])
    assert result.exit_code == 0, result.output
    assert ["咖啡" in line for line in result.stdout.splitlines()] == [True, False]
    assert "医生" in result.stdout.splitlines()[1]
    # the fast engine translates first; the sentence that lacks its term is searched again on PyTorch
    fast = runner.invoke(app, ["text", "-m", str(tmp_path / "ckpt"), "--glossary", str(terms), "--engine", "onnx",
                               *SOURCES[:2]])
    assert fast.exit_code == 0, fast.output
    assert fast.stdout == result.stdout
    bad = runner.invoke(app, ["text", "-m", str(tmp_path / "ckpt"), "--glossary", str(write(tmp_path, "tea\n")), "hi"])
    assert bad.exit_code == 1 and "terms.tsv:1: expected en<TAB>zh" in bad.output
    evaluation, _ = evaluate_checkpoint(tmp_path / "ckpt", "dev", data_dir=str(TINY_DIR),
                                        glossary=Glossary.from_pairs(TERMS))
    assert evaluation.terms is not None and evaluation.terms[0] == evaluation.terms[1] > 0


CEDICT = """# CC-CEDICT sample
京劇 京剧 [Jing1 ju4] /Beijing opera/CL:場|场[chang3]/
京師 京师 [Jing1 shi1] /Beijing city (old)/
北京 北京 [Bei3 jing1] /Beijing, capital of People's Republic of China/Peking/
上海 上海 [Shang4 hai3] /Shanghai municipality, central east China, abbr. to 滬|沪[Hu4]/
台灣 台湾 [Tai2 wan1] /variant of 臺灣|台湾[Tai2 wan1]/
臺灣 台湾 [Tai2 wan1] /Taiwan/
成功 成功 [Cheng2 gong1] /Chenggong town in Taitung County/
成功 成功 [cheng2 gong1] /success/to succeed/
和縣 和县 [He2 xian4] /He county in Anhui/
愛瑪 爱玛 [Ai4 ma3] /Emma (name)/
瑪麗 玛丽 [Ma3 li4] /Mary (name)/
京 京 [Jing1] /abbr. for Beijing/
長城 长城 [Chang2 cheng2] /the Great Wall/
美元 美元 [Mei3 yuan2] /American dollar/US dollar/
日元 日元 [Ri4 yuan2] /Japanese yen (unit of currency)/also written 日圓|日圆/
漢江 汉江 [Han4 Jiang1] /Han River, Shaanxi/
七美 七美 [Qi1 mei3] /Qimei or Chimei township in Penghu county, Taiwan/
黃河 黄河 [Huang2 He2] /Yellow River or Huang He/
義勇軍進行曲 义勇军进行曲 [Yi4 yong3 jun1 Jin4 xing2 qu3] /March of the Volunteers, PRC national anthem/
"""


def test_the_names_lexicon_keeps_names_that_are_no_common_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from translate.data import lexicon

    (tmp_path / "cedict.txt").write_text(CEDICT, encoding="utf-8")
    pairs = list(lexicon.name_pairs(CEDICT.splitlines()))
    first: dict[str, str] = {}
    for en, zh in pairs:
        first.setdefault(zh, en)
    assert first == {
        "北京": "Beijing", "上海": "Shanghai", "台湾": "Taiwan", "和县": "He", "爱玛": "Emma", "玛丽": "Mary",
        "长城": "the Great Wall", "京师": "Beijing", "汉江": "Han River", "七美": "Qimei", "黄河": "Yellow River"}
    # "Qimei or Chimei", "Yellow River or Huang He": the other forms too, after every first form, so that a
    # Chinese name keeps its first English form and an English name (Chimei) finds its Chinese
    assert pairs[-2:] == [("Chimei", "七美"), ("Huang He", "黄河")]
    common = {"yellow", "river", "great", "wall", "march"}
    words = list(lexicon.name_pairs(CEDICT.splitlines(), lowercase=common))
    # several words that are each common, all capitalised, still make a name (the Yellow River, the Great Wall)
    assert ("Yellow River", "黄河") in words and ("the Great Wall", "长城") in words
    # unless the Chinese is a plain noun (大雪, heavy snow, before it is the solar term "Great Snow")
    without = list(lexicon.name_pairs(CEDICT.splitlines(), lowercase=common, noun=lambda zh: zh == "黄河"))
    assert ("Yellow River", "黄河") not in without and ("Huang He", "黄河") not in without  # no first form: none
    assert ("the Great Wall", "长城") in without
    # a name cut short where a longer one goes on is none: "March of the Volunteers" is no "March"
    assert "义勇军进行曲" not in {zh for _, zh in lexicon.name_pairs(CEDICT.splitlines())}
    # not 成功 (also "success"), not 京 (one character), not 京剧 (an opera), not 美元 / 日元 (currencies)
    # an English name maps to the Chinese whose whole sense it is (北京), before one it only starts (京师 "Beijing city")
    assert [zh for en, zh in lexicon.name_pairs(CEDICT.splitlines()) if en == "Beijing"] == ["北京", "京师"]
    monkeypatch.setattr(lexicon, "package_files", lambda: (tmp_path / "cedict.txt", tmp_path / "hsk.txt"))
    monkeypatch.setattr(lexicon, "jieba_frequency", lambda: {"北京": 9000, "京师": 30})  # a build-time package
    listed = lexicon.cedict_names()
    names = {zh: en for en, zh in reversed(listed)}  # each Chinese name's first English form
    assert "和县" not in names and names["北京"] == "Beijing"  # "he" is written lowercase in the training split
    assert names["七美"] == "Qimei" and ("Chimei", "七美") in listed
    assert lexicon.write_names(tmp_path / "names") == len(listed)
    written = (tmp_path / "names" / "names.tsv").read_text(encoding="utf-8")
    assert written.index("Beijing\t北京") < written.index("Beijing\t京师")  # the form far more used first
    # with the kind the dictionary's description gives, where it gives one
    assert "Beijing\t北京\tplace\n" in written and "Mary\t玛丽\tperson\n" in written and "Taiwan\t台湾\n" in written
    assert "Han River\t汉江\tplace\n" in written  # a word for a place in the name itself
    from translate.inference import glossary
    from translate.inference.glossary import names_lexicon

    monkeypatch.setattr(glossary, "names_file", lambda: tmp_path / "names" / "names.tsv")
    names_lexicon.cache_clear()  # another test's lexicon is not this one
    try:
        found = names_lexicon().matches("Tom and Mary met in Beijing, not in may or beijing.", "en")
        assert [m.term.zh for m in found] == ["玛丽", "北京"]  # English names match with their capitals only
        # 爱玛 cuts the words 爱 | 玛丽 of the sentence's segmentation; 玛丽 is a word
        assert [m.term.en for m in names_lexicon().matches("汤姆不是真的爱玛丽。", "zh")] == ["Mary"]
        assert [(m.term.zh, m.term.kind) for m in found] == [("玛丽", "person"), ("北京", "place")]
    finally:
        names_lexicon.cache_clear()


def test_a_names_kind_is_what_the_dictionary_says_it_is() -> None:
    from translate.data.lexicon import gloss_kind, name_kinds

    assert gloss_kind("Berlin, capital of Germany") == "place"  # rjieba tags 柏林 as a person
    assert gloss_kind("Suzhou prefecture level city in Jiangsu") == "place"
    assert gloss_kind("Mozi (c. 470-391 BC), founder of the Mohist School") == "person"  # one word, as places
    assert gloss_kind("Anna (name)") == "person"
    assert gloss_kind("Sophocles (496-406 BC), Greek tragedian") == "person"  # life years alone
    assert gloss_kind("Sun Quan (reigned 222-252), southern warlord and king of state of Wu") == "person"  # both
    assert gloss_kind("Tibet") == ""  # says nothing
    assert gloss_kind("Six Dynasties (220-589)") == ""  # a dynasty, not a person
    assert gloss_kind("Heisei, Japanese era name, corresponding to the reign (1989-2019) of emperor Akihito") == ""
    assert gloss_kind("Great Sichuan Earthquake (2008)") == ""
    assert gloss_kind("birthday of reigning Emperor") == ""  # a sense that starts with no name
    lines = [("華盛頓 华盛顿 [Hua2 sheng4 dun4] /Washington (name)/George Washington (1732-1799), first US president/"
              "Washington, US State/Washington, D.C. (US federal capital)/"),
             "聖誕 圣诞 [Sheng4 dan4] /Christmas/birthday of reigning Emperor/Confucius' birthday/",
             "柏林 柏林 [Bo2 lin2] /Berlin, capital of Germany/",
             "莫斯科 莫斯科 [Mo4 si1 ke1] /Moscow, capital of Russia/",
             "莫斯科 莫斯科 [mo4 si1 ke1] /a person, in a later entry/",
             "墨子 墨子 [Mo4 zi3] /Mozi (c. 470-391 BC), founder of the Mohist School/the book of Mozi/"]
    # senses that disagree say nothing (Washington, the man, the state and the capital); the first entry counts
    assert name_kinds(lines) == {"柏林": "place", "莫斯科": "place", "墨子": "person"}


def test_an_english_name_maps_to_its_form_far_more_used_and_nothing_else_moves() -> None:
    from translate.data.lexicon import MIN_COUNT, MORE_USED, most_used_first

    pairs = [("Fuzhou", "抚州"), ("Dubai", "杜拜"), ("Jilin", "吉林"), ("Fuzhou", "福州"), ("Dubai", "迪拜"),
             ("Jilin", "吉林市"), ("Facebook", "脸书"), ("Facebook", "非死不可")]
    counts = {"抚州": 54, "福州": 897, "迪拜": 113, "吉林": 89, "吉林市": 90, "非死不可": 3}
    assert MORE_USED == 2 and MIN_COUNT == 20
    assert most_used_first(pairs, counts) == [
        ("Fuzhou", "福州"), ("Dubai", "迪拜"), ("Jilin", "吉林"), ("Fuzhou", "抚州"), ("Dubai", "杜拜"),
        ("Jilin", "吉林市"), ("Facebook", "脸书"), ("Facebook", "非死不可")]  # 90 vs 89, 3 vs 0: noise
    assert most_used_first(pairs, {}) == pairs


def test_a_rare_name_ending_in_the_adverb_all_is_read_as_words() -> None:
    from translate.data.lexicon import read_as_words
    from translate.inference.glossary import names_lexicon

    counts = {"成都": 2770, "江都": 142, "花都": 51}
    assert not read_as_words("成都", counts) and not read_as_words("江都", counts)
    assert read_as_words("花都", counts) and read_as_words("上都", counts)  # 花都很漂亮: the flowers are all beautiful
    assert not read_as_words("花都区", counts) and not read_as_words("首尔", counts)
    names_lexicon.cache_clear()
    try:  # the shipped lexicon: 花都 and 上都 are no names, 长城 and 成都 are
        assert [m.term.en for m in names_lexicon().matches("花都很漂亮，长城上都是人，成都很大。", "zh")] == [
                "the Great Wall", "Chengdu"]
    finally:
        names_lexicon.cache_clear()


def test_a_later_glossary_counts_only_where_no_earlier_term_overlaps() -> None:
    from translate.inference.glossary import find_terms

    user = Glossary.from_pairs([("Beijing University", "北大")])
    names = Glossary.from_pairs([("Beijing", "北京"), ("Shanghai", "上海")], cased=True)
    found = find_terms([user, names], "From Beijing University to Shanghai.", "en")
    assert [(m.term.zh, m.begin) for m in found] == [("北大", 5), ("上海", 27)]


def test_the_names_lexicon_follows_the_model_settings_unless_told(
        tmp_path: Path, tiny_config: RunConfig, translator: Translator, tiny_tokenizers: tuple[Tokenizer, Tokenizer],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """decode.lexicon in a checkpoint turns the names lexicon on for text, file and evaluate, on either engine;
    --no-lexicon / --lexicon override it."""
    from translate.config.loading import apply_overrides
    from translate.inference import glossary

    (tmp_path / "names.tsv").write_text("I\t咖啡\n", encoding="utf-8")  # a "name", matched with its capital
    monkeypatch.setattr(glossary, "names_file", lambda: tmp_path / "names.tsv")
    glossary.names_lexicon.cache_clear()
    try:
        on, off = tmp_path / "on", tmp_path / "off"
        save_checkpoint(off, tiny_config.artifact(), translator.model, *tiny_tokenizers, {"step": 1})
        save_checkpoint(on, apply_overrides(tiny_config.artifact(), {"decode.lexicon": True}), translator.model,
                        *tiny_tokenizers, {"step": 1})
        sentence = "I like tea."

        def text(*args: str) -> str:
            result = runner.invoke(app, ["text", *args, sentence])
            assert result.exit_code == 0, result.output
            return result.stdout.strip()

        plain = text("-m", str(off))
        assert "咖啡" not in plain
        for engine in ("torch", "onnx"):
            assert "咖啡" in text("-m", str(on), "--engine", engine)
            assert text("-m", str(on), "--engine", engine, "--no-lexicon") == plain
            assert "咖啡" in text("-m", str(off), "--engine", engine, "--lexicon")
        (tmp_path / "in.txt").write_text(sentence + "\n", encoding="utf-8")
        filed = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "-m", str(on)])
        assert filed.exit_code == 0 and "咖啡" in filed.stdout
        with_names, _ = evaluate_checkpoint(on, "dev", data_dir=str(TINY_DIR))
        without, _ = evaluate_checkpoint(on, "dev", data_dir=str(TINY_DIR), lexicon=False)
        assert with_names.terms is not None and with_names.terms[0] == with_names.terms[1] > 0
        assert without.terms is None
    finally:
        glossary.names_lexicon.cache_clear()


LEXICON = [("Shangdu", "上都"), ("Beijing", "北京"), ("Peking University", "北京大学"), ("Harbin", "哈尔滨"), ("Nanjing St", "南京路"), ("Nanjing", "南京"),
           ("Skynet", "天网"), ("Emma", "爱玛"), ("Mary", "玛丽"), ("Linda", "琳达")]


@pytest.mark.parametrize(("sentence", "on_words", "on_characters"), [
    ("我们每天早上都喝茶。", [], ["上都"]),  # 早上 | 都: the place name would cut both words
    ("我晚上都在家。", [], ["上都"]),
    ("他在路上都睡着了。", [], ["上都"]),
    ("长城上都是人。", [], ["上都"]),  # 长城 | 上 | 都: whole words, but each of one character
    ("我们去北京大学。", ["北京大学"], ["北京大学"]),  # one word of the segmentation
    ("今天网速很慢。", [], ["天网"]),  # 今天 | 网速
    ("我明天要去北京看我的朋友。", ["北京"], ["北京"]),
    ("周杰是哈尔滨人。", ["哈尔滨"], ["哈尔滨"]),  # inside the one word 哈尔滨人: cuts nothing
    ("博物馆在南京路上。", ["南京"], ["南京路"]),  # 南京路 would cut 路上; the shorter name does not
    ("汤姆不是真的爱玛丽。", ["玛丽"], []),  # on characters 爱玛 and 玛丽 cross, and neither is taken
    ("我在莫斯科遇到了琳达。", ["琳达"], ["琳达"]),  # 了 | 琳 | 达: one-character words, 琳 tagged as a name's
])
def test_a_lexicon_term_matches_only_where_it_cuts_no_word(sentence: str, on_words: list[str],
                                                           on_characters: list[str]) -> None:
    terms = Glossary.from_pairs(LEXICON, cased=True).terms
    words, characters = Glossary(terms, cased=True, whole_words=True), Glossary(terms, cased=True)
    assert [m.term.zh for m in words.matches(sentence, "zh")] == on_words
    assert [m.term.zh for m in characters.matches(sentence, "zh")] == on_characters


def test_the_re_decode_avoids_the_models_own_renderings_of_a_name(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.config.schema import DecodeConfig
    from translate.inference.glossary import _inside
    from translate.inference.text_translator import TextTranslator

    en, zh = tiny_tokenizers
    inner = TextTranslator(None, zh, en, DecodeConfig(), "zh", "en")  # type: ignore[arg-type]  # no search here
    glossary = GlossaryTranslator(inner, Glossary.from_pairs(LEXICON, cased=True))
    # every capitalised word of the renderings of 北京 alone, but not the wanted term's words nor the source's
    found = glossary.unsupported_names(["Being Kyoto in Hokkaido.", "Be north, Tom."], "汤姆明天去北京。Tom", ["Beijing"])
    assert found == ["Being", "Kyoto", "Hokkaido", "Be"]
    assert glossary.unsupported_names(["Beijing."], "我在北京。", ["Beijing"]) == []
    assert not GlossaryTranslator(inner, Glossary.from_pairs(LEXICON), avoid_renderings=False).unsupported_names(
        ["Kyoto"], "北京", ["Beijing"])
    # a sequence inside a constraint is never avoided: banning ▁Be would ban ▁Be i j ing
    assert _inside([626], [626, 807, 2294, 308]) and _inside([807, 2294], [626, 807, 2294, 308])
    assert not _inside([626, 308], [626, 807, 2294, 308])


def test_sampled_translations_keep_the_lexicons_terms() -> None:
    """Sampling through the released zh-en model, whose names lexicon is on: the term's renderings are
    searched (n-best needs a search), and the sentence lacking the term (the name's stand-in) is
    re-decoded to hold it."""
    from dataclasses import replace

    from translate.inference.build import load_translator
    from translate.inference.wrapping import with_glossaries

    released = Path(__file__).resolve().parents[2] / "checkpoints" / "zh-en"
    translator = with_glossaries(load_translator(released))
    from translate.inference.standins import StandInTranslator

    # names read as stand-ins (Beijing searched as Boston), the stand-in itself a term of the search
    assert isinstance(translator, StandInTranslator) and isinstance(translator.inner, GlossaryTranslator)
    sampled = replace(translator.decode, sample=1.0, seed=1, n_best=1)
    out = translator.translate(["我明天要去北京看我的朋友。"] * 3, sampled)
    assert all("Beijing" in line for line in out), out


def test_numbers_are_kept_digit_for_digit_by_a_second_search() -> None:
    """With `keep_numbers` every number of the source is in every alternative of the released en-zh
    model's translation (which otherwise writes $45 as 五十美元), and a sentence without numbers is
    translated as before."""
    sources = ["The meeting is at 17:30.", "It costs $45.", "About 1,000 people came.", "Good morning."]
    released = load_translator("en-zh", engine="onnx")
    decode = replace(released.decode, n_best=2)
    plain = released.translate_n_best(sources, decode)
    released.decode = replace(released.decode, keep_numbers=True)
    kept = with_glossaries(released).translate_n_best(sources, decode)
    for source, n_best in zip(sources, kept):
        assert all(numbers_kept(source, hyp.text, 'zh') == numbers_kept(source, source, 'en') for hyp in n_best), (source, n_best)
    assert "1000" in kept[2][0].text  # Chinese writes no thousands commas
    assert [t.text for t in kept[3]] == [t.text for t in plain[3]]
    assert [t.text for t in kept[0]] == [t.text for t in plain[0]] or numbers_kept(sources[0], plain[0][0].text, 'zh')[0] == 0


@pytest.mark.parametrize(("text", "term", "held"), [
    ("它要45美元。", "45", True), ("它要145美元。", "45", False), ("会议17:30开始。", "17:30", True),
    ("It costs 1,000 yuan.", "1000", True), ("It is 4.5 km.", "4", False), ("I like Beijing.", "Beijing", True),
    ("这件外套三百九十九块钱。", "399", True), ("会议在下午五点半。", "17:30", True)])
def test_a_number_is_held_whole_and_without_its_thousands_commas(text: str, term: str, held: bool) -> None:
    assert contains(text, term, "zh" if "。" in text else "en") is held
