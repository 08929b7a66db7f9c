"""The model card's faithfulness section (`release.faithfulness.card_lines`): each measure beside the
references' own rate, and a report written before a measure existed still renders."""

from __future__ import annotations

from translate.release.faithfulness import card_lines


def _test(**extra: object) -> dict[str, object]:
    return {"sentences": 100, "stutter": 2.0, "reference_stutter": 1.0, "negation_lost": [3, 20],
            "reference_negation_lost": 1, "numbers": [9, 10], "unattended": None, **extra}


def test_negation_added_is_a_row_beside_the_references_rate() -> None:
    lines = card_lines({"test": _test(negation_added=[4, 80], reference_negation_added=2)})
    added = [line for line in lines if line.startswith("| negation added")]
    assert added == ['| negation added: the translation negates, the source says no "not" (test) | 4 of 80 | 2 of 80 |']
    assert lines.index(added[0]) == lines.index(next(x for x in lines if x.startswith("| numbers kept"))) - 1
    assert "| negation lost: the source negates, the translation holds no negation (test) | 3 of 20 | 1 of 20 |" in lines


def test_a_report_without_negation_added_has_no_such_row() -> None:
    lines = card_lines({"test": _test()})
    assert not any(line.startswith("| negation added") for line in lines)
    assert lines[-1].startswith("| numbers kept")
