"""The release rule's size by simulation of the rule itself (`release.size`): each test at 5 % lets a
candidate no better than the released model ship too often once many sentences move; Holm's correction, or
the one test a plan names, keeps it at 5 % or below, and the planned test keeps its power."""

from __future__ import annotations

from translate.release.size import SCENARIOS, ships_share

STUDIES = 1500  # Monte Carlo SE about 0.6 points at 5 %


def test_the_corrected_rule_keeps_its_size_and_the_uncorrected_one_did_not() -> None:
    many = next(s for s in SCENARIOS if s.name == "many sentences move")
    uncorrected = ships_share(many, STUDIES, "none", seed=1)
    holm = ships_share(many, STUDIES, "holm", seed=1)
    planned = ships_share(many, STUDIES, "holm", seed=1, tests=("repeats",))
    assert uncorrected > 0.08  # seven tests at 5 % each: about 12 %
    assert holm <= 0.05 and planned <= 0.05 + 2 * (0.05 * 0.95 / STUDIES) ** 0.5


def test_a_candidate_planned_for_its_defect_keeps_the_power_that_holm_over_all_costs() -> None:
    decoding = SCENARIOS[0]
    planned = ships_share(decoding, STUDIES, "holm", 2, "repeats", 2.0, ("repeats",))
    holm = ships_share(decoding, STUDIES, "holm", 2, "repeats", 2.0)
    uncorrected = ships_share(decoding, STUDIES, "none", 2, "repeats", 2.0)
    assert holm < planned and abs(planned - uncorrected) < 0.05
    assert ships_share(decoding, STUDIES, "holm", 2) < planned  # no defect rarer: it seldom ships
