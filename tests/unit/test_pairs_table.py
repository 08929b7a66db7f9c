"""The report's table of pairs: each question's cells, read as a reviewer reads them."""

from __future__ import annotations

from typing import Any

from translate.study.tables import pairs_markdown


def _pair(seeds_needed: int | None) -> dict[str, Any]:
    return {"a": "additive", "b": "dot", "question": "the scoring function", "seeds": [1, 2, 3], "bleu_a": 35.55,
            "bleu_b": 35.09, "delta": 0.46, "ci_low": -1.19, "ci_high": 2.11, "p_value": 0.481, "p_holm": 0.481,
            "ci95": [-1.19, 2.11], "resolved": seeds_needed is None, "seeds_a": 3, "seeds_b": 3,
            "seed_variance_measured": True, "aso_eps_min": 0.43, "seeds_needed": seeds_needed}


def test_the_seeds_to_resolve_cell_says_when_more_seeds_cannot_resolve_a_difference() -> None:
    def last_cell(seeds_needed: int | None) -> str:
        row = pairs_markdown([_pair(seeds_needed)]).strip().splitlines()[-1]
        return row.rstrip(" |").rsplit("| ", 1)[-1]

    assert last_cell(0) == "cannot"  # never "0", which reads as "none needed"
    assert last_cell(7) == "7"
    assert last_cell(None) == "–"  # resolved
