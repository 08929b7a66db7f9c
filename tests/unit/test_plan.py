"""plan.json: written once before a study's runs, the same plan goes on untouched, a different one is
recorded as a deviation with its time and reason, and the report's lines say both."""

from __future__ import annotations

import json
from pathlib import Path

from translate.study.plan import digest, fix_plan, plan_markdown, read_plan


def test_a_plan_is_written_once_kept_and_departures_recorded(tmp_path: Path) -> None:
    plan = {"mechanisms": ["additive", "dot"], "seeds": [1, 2, 3], "margin": 0.5}
    first = fix_plan(tmp_path, plan, started=False, clock=lambda: 0.0)
    assert first["hash"] == digest(plan) and first["before_first_run"] and first["written"] == "1970-01-01T00:00:00Z"
    assert fix_plan(tmp_path, dict(plan), started=True, clock=lambda: 60.0) == first  # the same plan: untouched
    wider = {**plan, "seeds": [1, 2, 3, 4]}
    record = fix_plan(tmp_path, wider, started=True, clock=lambda: 3600.0)
    assert record["plan"] == wider and record["hash"] == digest(wider) != first["hash"]
    [deviation] = record["deviations"]
    assert deviation == {"at": "1970-01-01T01:00:00Z", "reason": "none given", "changed": ["seeds"],
                         "was": {"seeds": [1, 2, 3]}, "now": {"seeds": [1, 2, 3, 4]}, "hash_before": first["hash"]}
    assert read_plan(tmp_path) == record
    lines = plan_markdown(tmp_path)
    assert f"sha256 `{digest(wider)}`" in lines and "before the first run" in lines
    assert "deviation at 1970-01-01T01:00:00Z: seeds changed (reason: none given" in lines


def test_a_plan_written_after_runs_says_so_and_no_plan_changes_no_report(tmp_path: Path) -> None:
    assert plan_markdown(tmp_path) == ""
    fix_plan(tmp_path, {"seeds": [1]}, started=True)
    assert "after runs had started" in plan_markdown(tmp_path)
    assert json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))["before_first_run"] is False


def test_the_hash_does_not_depend_on_key_order() -> None:
    assert digest({"a": 1, "b": [1, 2]}) == digest({"b": [1, 2], "a": 1}) != digest({"a": 1, "b": [2, 1]})
