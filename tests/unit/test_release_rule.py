"""The release rule: a candidate ships only if it is better on the decision split (BLEU with p < 0.05, or
less stutter by McNemar with BLEU within the margin), does not stutter more, and is not worse on Tatoeba
test beyond the margin; every missed condition is named."""

from __future__ import annotations

import math
import random

import pytest

from translate.errors import ConfigError
from translate.evaluation.significance import Comparison
from translate.release.rule import Paired, Split, better_by, decide, judge


def comparison(delta: float, low: float, high: float, p: float) -> Comparison:
    return Comparison(20.0 + delta, 20.0, delta, low, high, p, 1, 1, False, low > 0 or high < 0, None)


def test_a_resolved_gain_that_costs_nothing_beyond_the_margin_on_test_ships() -> None:
    verdict = judge(comparison(1.9, 0.7, 3.1, 0.002), comparison(-0.1, -0.45, 0.25, 0.6))
    assert verdict.ships and verdict.reasons == []


def test_each_missed_condition_is_named() -> None:
    unresolved = judge(comparison(1.0, -0.2, 2.2, 0.12), comparison(0.0, -0.5, 0.5, 1.0))
    assert not unresolved.ships and "p = 0.120 is not below 0.05" in unresolved.reasons[0]
    worse = judge(comparison(-0.3, -1.0, 0.4, 0.4), comparison(-1.2, -1.9, -0.5, 0.001))
    assert not worse.ships and len(worse.reasons) == 2
    assert "not better on the decision split" in worse.reasons[0] and "worse on Tatoeba test" in worse.reasons[1]
    lost_on_test = judge(comparison(2.0, 1.0, 3.0, 0.001), comparison(-0.8, -1.5, -0.1, 0.02))
    expected = "may be worse on Tatoeba test by more than 0.5 BLEU (-0.80, 95 % interval [-1.50, -0.10])"
    assert not lost_on_test.ships and lost_on_test.reasons == [expected]
    # non-inferiority: an interval reaching below -0.5 refuses although it holds zero; one above it passes
    assert not judge(comparison(1.9, 0.7, 3.1, 0.002), comparison(-0.2, -0.9, 0.5, 0.6)).ships
    assert judge(comparison(1.9, 0.7, 3.1, 0.002), comparison(-0.1, -0.45, 0.3, 0.6)).ships
    # p exactly at alpha does not ship
    assert not judge(comparison(1.0, 0.0, 2.0, 0.05), comparison(0.0, -0.5, 0.5, 1.0)).ships


def test_from_hypotheses_identical_outputs_never_ship_and_a_clear_gain_does() -> None:
    rng = random.Random(0)
    words = ["the", "cat", "dog", "sat", "on", "a", "mat", "ran", "far", "home", "quickly"]
    refs = [" ".join(rng.choice(words) for _ in range(8)) for _ in range(300)]
    decision = test = Split("x", refs, refs)
    released = [" ".join(r.split()[:4]) for r in refs]  # half of each reference
    same = decide([released], [released], [refs], [refs], decision, test, "en", samples=200)
    assert not same.ships and same.decision.p_value == 1.0
    better = [" ".join(r.split()[:7]) for r in refs]
    gain = decide([better], [released], [refs], [refs], decision, test, "en", samples=200)
    assert gain.ships and gain.decision.delta > 10 and gain.test.delta == 0.0


def test_fewer_defects_ship_with_bleu_within_the_margin_and_more_never_ship() -> None:
    """McNemar's exact test on the sentences where only one side has the defect: 12 against 1 gives p = 0.0034."""
    fewer = Paired.of([False] * 12 + [True] + [False] * 87, [True] * 12 + [False] + [False] * 87)
    assert (fewer.candidate, fewer.against, fewer.candidate_only, fewer.against_only) == (1, 12, 1, 12)
    assert abs(fewer.p_value - 2 * sum(math.comb(13, k) for k in range(2)) / 2 ** 13) < 1e-12
    assert fewer.fewer and not fewer.more
    level, held = comparison(0.3, -0.4, 1.0, 0.4), comparison(0.1, -0.4, 0.6, 0.7)
    same = Paired(5, 5, 0, 0, 100)
    assert judge(level, held, {"stutter": fewer, "numbers lost": same}).ships
    assert judge(level, held, {"stutter": same, "numbers lost": fewer}).ships
    costly = judge(comparison(-0.2, -0.9, 0.5, 0.6), held, {"stutter": fewer, "numbers lost": same})
    assert not costly.ships and costly.reasons == [
        ("stutters less often, but its BLEU on the decision split may be worse by more than 0.5 (-0.20, 95 % "
         "interval [-0.90, +0.50])")]
    more = Paired(12, 1, 12, 1, 100)
    gain = judge(comparison(1.9, 0.7, 3.1, 0.002), held, {"stutter": same, "numbers lost": more})
    assert not gain.ships and gain.reasons == [("loses numbers more often on the decision split (12 against 1 of 100 "
                                                "sentences, p = 0.003)")]
    traded = judge(level, held, {"stutter": fewer, "numbers lost": more})  # one defect for another never ships
    assert not traded.ships and "loses numbers more often" in traded.reasons[0]
    few = Paired.of([False] * 3, [True] * 3)  # 0 against 3: p = 0.25, not resolved
    unresolved = judge(level, held, {"stutter": few})
    assert not unresolved.ships and unresolved.reasons[1] == (
        "and it does not stutter less often on the decision split with p < 0.025 (0 against 3 of 3 sentences, "
        "p = 0.250)")  # BLEU and stutter: a family of two, so the smallest p must be below 0.05 / 2
    assert set(judge(level, held, {"stutter": few}).to_dict()) >= {"decision_split_stutter", "margin", "alpha",
                                                                  "holm_family"}


def test_the_defects_are_read_from_the_hypotheses() -> None:
    sources = ["It costs $45.", "He works in Beijing.", "Good morning.", "Tom doesn't love Mary.", "It's a ten-minute walk.",
               "A year has 365 days."]
    split = Split("x", sources, ["它要45美元。", "他在北京工作。", "早上好。", "汤姆不爱玛丽。", "走路要十分钟。", "一年有365天。"])
    candidate = [["它要45美元。", "他在北京工作。", "早上好。", "汤姆不爱玛丽。", "走路要十分钟。", "一年有365天。"]]
    released = [["它要五十美元。", "他工作工作。", "早上好，你早上好。",  # 早上好 twice, not in a row
                 "汤姆非常爱玛丽。",  # 非常 ("very") says no "not"
                 "它走路1010分钟。",  # a number the source does not say
                 "一年有三365天。"]]  # 365 said twice: 三 for its first piece, then the digits
    verdict = decide(candidate, released, candidate, released, split, split, "zh", samples=50)
    assert {name: (p.candidate, p.against) for name, p in verdict.defects.items()} == {
        "stutter": (0, 1), "numbers lost": (0, 1), "repeats": (0, 2), "negation lost": (0, 1), "numbers added": (0, 1),
        "numbers doubled": (0, 1), "made-up words": (0, 0),  # a Chinese target spells no English word
        "negation added": (0, 0)}
    assert "decision_split_repeats" in verdict.to_dict()


def test_a_negation_the_source_does_not_say_is_a_defect() -> None:
    split = Split("x", ["The internet is slow today.", "I dislike eggs.", "It's hot, isn't it?"],
                  ["今天网速很慢。", "我不喜欢鸡蛋。", "很热，不是吗？"])
    candidate = [["今天网速很慢。", "我不喜欢鸡蛋。", "很热，不是吗？"]]  # "dislike" says "not"; a tag asks
    released = [["我的网真不是很慢。", "我不喜欢鸡蛋。", "很热，不是吗？"]]
    verdict = decide(candidate, released, candidate, released, split, split, "zh", samples=50)
    assert (verdict.defects["negation added"].candidate, verdict.defects["negation added"].against) == (0, 1)
    assert "decision_split_negation_added" in verdict.to_dict()


def test_made_up_words_are_a_defect_of_english_translations() -> None:
    split = Split("x", ["天黑了吗？", "我喜欢他的。", "我用微信WeChat。"], ["Is it dark?", "I like his.", "I use WeChat."])
    candidate = [["Is it dark?", "I like his.", "I use WeChat."]]  # a Latin word of the source is no made-up word
    released = [["Is itn't dark?", "I like hisers.", "I use WeChat."]]
    verdict = decide(candidate, released, candidate, released, split, split, "en", samples=50)
    assert (verdict.defects["made-up words"].candidate, verdict.defects["made-up words"].against) == (0, 2)
    assert "decision_split_made-up_words" in verdict.to_dict()


def test_a_repeated_look_tests_at_alpha_over_looks_and_the_quantities_set_counts() -> None:
    """12 against 1 (p = 0.0034) resolves at 0.05 / 2 / 3 (two looks, a family of three); 7 against 0
    (p = 0.0156) does at 0.05 / 3, not at 0.025 / 3."""
    level, held, same = comparison(0.3, -0.4, 1.0, 0.4), comparison(0.1, -0.4, 0.6, 0.7), Paired(5, 5, 0, 0, 100)
    strong, weak = Paired(1, 12, 1, 12, 232), Paired(0, 7, 0, 7, 232)
    assert judge(level, held, {"stutter": same, "numbers lost, quantities set": strong}, looks=2).ships
    assert judge(level, held, {"stutter": same, "numbers lost, quantities set": weak}).ships
    again = judge(level, held, {"stutter": same, "numbers lost, quantities set": weak}, looks=2)
    assert not again.ships and again.alpha == 0.025 and again.family == 3
    assert "does not lose numbers less often on the quantities set with p < 0.00833 (0 against 7 of 232" in " ".join(
        again.reasons)
    assert again.to_dict()["quantities_set_numbers_lost"]["against_only"] == 7
    lost = judge(comparison(1.9, 0.7, 3.1, 0.002), held, {"numbers lost, quantities set": Paired(9, 0, 9, 0, 232)})
    assert not lost.ships and lost.reasons == [
        "loses numbers more often on the quantities set (9 against 0 of 232 sentences, p = 0.004)"]


def test_names_lost_on_the_names_set_are_a_defect_both_ways() -> None:
    from translate.evaluation.names import NamesSet, parse_names

    sources = ["Li Lei lives in Chengdu.", "I like Beijing.", "Good morning."]
    split = Split("x", sources, ["李雷住在成都。", "我喜欢北京。", "早上好。"])
    names_set = NamesSet(sources, split.refs, [parse_names("Li Lei=李雷; Chengdu=成都"), parse_names("Beijing=北京"), []])
    keeps, loses = [["李雷住在成都。", "我喜欢北京。", "早上好。"]], [["躺在牢里生活。", "我喜欢北京。", "早上好。"]]
    verdict = decide(keeps, loses, keeps, loses, split, split, "zh", samples=50, names=(names_set, keeps, loses))
    assert verdict.defects["names lost, names set"] == Paired(0, 1, 0, 1, 3)
    assert verdict.to_dict()["names_set_names_lost"]["against_only"] == 1
    level, held = comparison(0.0, -0.3, 0.3, 1.0), comparison(0.0, -0.3, 0.3, 1.0)
    worse = judge(level, held, {"names lost, names set": Paired(9, 0, 9, 0, 219)})
    assert not worse.ships and worse.reasons[-1] == "loses names more often on the names set (9 against 0 of 219 sentences, p = 0.004)"
    assert judge(level, held, {"names lost, names set": Paired(0, 9, 0, 9, 219)}).ships


def test_the_tests_of_being_better_are_one_family_corrected_by_holm() -> None:
    """Seven tests (BLEU and six defects): 6 against 0 (p = 0.031) passes alone at 0.05 but not as the best of
    seven (0.05 / 7 = 0.0071); 0 against 50 passes, and then the next is tested at 0.05 / 6 (step-down)."""
    level, held = comparison(0.3, -0.4, 1.0, 0.4), comparison(0.1, -0.4, 0.6, 0.7)
    same, weak, strong = Paired(5, 5, 0, 0, 100), Paired(0, 6, 0, 6, 100), Paired(0, 50, 0, 50, 100)
    between = Paired(0, 8, 0, 8, 100)  # p = 0.0078: below 0.05 / 6, not below 0.05 / 7
    six = ["stutter", "numbers lost", "repeats", "negation lost", "numbers lost, quantities set", "names lost, names set"]
    alone = judge(level, held, {"stutter": weak})
    assert alone.family == 2 and not alone.ships  # 0.031 against 0.05 / 2
    assert judge(level, held, {"stutter": weak}, correction="none").ships  # the rule before the correction
    family = dict.fromkeys(six, same)
    assert not judge(level, held, {**family, "negation lost": weak}).ships
    assert not judge(level, held, {**family, "negation lost": between}).ships
    assert judge(level, held, {**family, "repeats": strong, "negation lost": between}).ships
    assert better_by(level, {**family, "repeats": strong, "negation lost": between}, 0.05) == (
        ["repeats", "negation lost"], 7)
    assert better_by(comparison(1.9, 0.7, 3.1, 0.001), family, 0.05) == (["BLEU"], 7)  # 0.001 < 0.05 / 7
    assert better_by(comparison(1.9, 0.7, 3.1, 0.01), family, 0.05) == ([], 7)
    assert better_by(comparison(-1.9, -3.1, -0.7, 0.001), family, 0.05) == ([], 7)  # worse is never better


def test_a_candidate_planned_for_some_tests_is_judged_better_by_those_alone() -> None:
    """A setting against negation lost, named before the decision: 6 against 0 (p = 0.031) is tested at 0.05
    alone; BLEU or another defect cannot then make it better, and every defect still may not be worse."""
    level, held = comparison(0.3, -0.4, 1.0, 0.4), comparison(0.1, -0.4, 0.6, 0.7)
    same, weak = Paired(5, 5, 0, 0, 100), Paired(0, 6, 0, 6, 100)
    defects = {"stutter": same, "repeats": same, "negation lost": weak}
    planned = judge(level, held, defects, tests=["negation lost"])
    assert planned.ships and planned.family == 1 and planned.to_dict()["tests_for_better"] == ["negation lost"]
    assert not judge(level, held, defects).ships  # the whole family of four: 0.031 against 0.05 / 4
    other = judge(comparison(1.9, 0.7, 3.1, 0.001), held, {**defects, "negation lost": same}, tests=["negation lost"])
    assert not other.ships and other.reasons[0] == "not better by the tests it is for (negation lost)"
    worse = judge(level, held, {**defects, "repeats": Paired(9, 0, 9, 0, 100)}, tests=["negation lost"])
    assert not worse.ships and "repeats itself more often" in worse.reasons[0]
    with pytest.raises(ConfigError, match="must be among"):
        judge(level, held, defects, tests=["names lost, names set"])  # the names set was not read


def test_the_decisions_table_says_what_the_verdict_says() -> None:
    """`translate decide -o` writes the table of docs/results/decisions.md beside the verdict's JSON."""
    from translate.release.record import verdict_table

    sources = ["It's a ten-minute walk.", "He works in Beijing."]
    split = Split("x", sources, ["走路要十分钟。", "他在北京工作。"])
    candidate, released = [["走路要十分钟。", "他在北京工作。"]], [["它走路1010分钟。", "他工作工作。"]]
    verdict = decide(candidate, released, candidate, released, split, split, "zh", samples=50, tests=["numbers added"])
    record = {**verdict.to_dict(), "candidate": {"decision": candidate}}
    lines = verdict_table(record, "released", "no number added").splitlines()
    assert lines[0].startswith("| | decision split (2) BLEU | Tatoeba test BLEU | stutter | numbers lost |")
    header = [cell.strip() for cell in lines[0].split("|")]
    released_row = [cell.strip() for cell in lines[2].split("|")]
    candidate_row = [cell.strip() for cell in lines[3].split("|")]
    at = header.index("numbers added")
    assert (released_row[at], candidate_row[at]) == ("1", "0")
    assert (released_row[header.index("stutter")], candidate_row[header.index("stutter")]) == ("1", "0")
    assert lines[-1] == ("Verdict: " + ("ships" if verdict.ships else "does not ship: " + "; ".join(verdict.reasons))
                         + " (tests for being better: numbers added; Holm over 1).")
