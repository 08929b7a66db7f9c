"""Seeds added one look at a time: each look tests at Pocock's level, so the whole procedure's size stays
near 5 % where testing every look at 5 % does not (a simulation of the procedure itself)."""

from __future__ import annotations

import pytest

from translate.errors import ConfigError
from translate.study import looks
from translate.study.tables import corrected


def test_the_looks_allowed_and_their_level() -> None:
    assert looks.looks_allowed(3, 8) == 6 and looks.alpha_per_look(6) == pytest.approx(0.0142)
    assert looks.alpha_per_look(1) == 0.05
    with pytest.raises(ConfigError, match="below the 3 planned seeds"):
        looks.looks_allowed(3, 2)
    with pytest.raises(ConfigError, match="at most 10 are corrected for"):
        looks.looks_allowed(2, 20)


def test_the_procedure_keeps_its_size_where_looking_at_five_percent_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    size = looks.sequential_size(3, 8, 0.4, 0.4, studies=2_000, seed=1)
    assert 0.02 <= size <= 0.065, size  # 3.8 % in docs/results/sequential-looks.md (20,000 studies)
    power = looks.sequential_size(3, 8, 0.4, 0.4, studies=500, seed=2, shift=0.8)
    assert power > 0.5, power
    monkeypatch.setitem(looks.POCOCK, 6, 0.05)  # every look at 5 %: the error rate grows with the looks
    naive = looks.sequential_size(3, 8, 0.4, 0.4, studies=2_000, seed=1)
    assert naive > 0.09 and naive > 2 * size, (naive, size)


def test_a_look_below_five_percent_demotes_what_it_does_not_reach() -> None:
    test = {"resolved": True, "seed_variance_measured": True, "verdict": "decided", "p_value": 0.02}
    assert corrected(test, 0.02)["verdict"] == "decided"
    assert corrected(test, 0.02, alpha=0.0142)["verdict"] == "not resolved"
    level = {"resolved": False, "seed_variance_measured": True, "verdict": "equivalent", "equivalence_p": 0.03}
    assert corrected(level, 0.9)["verdict"] == "equivalent"
    assert corrected(level, 0.9, alpha=0.0142)["verdict"] == "not resolved"
