"""A study goes on only with the settings its committed runs trained with (each run's config.yaml)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from translate.config.loading import apply_overrides, load_config, save_config
from translate.errors import ConfigError
from translate.study.compare import check_settings, study_run_config


def committed_study(out: Path, base_overrides: dict[str, object], values: dict[str, str] | None = None) -> None:
    """additive seed 1 as `translate compare` records it: compare.json (with the sweep's values) and config.yaml."""
    results = out / "runs" / "additive-seed1"
    results.mkdir(parents=True)
    tuned = tuple((values or {}).items())
    cfg = study_run_config(load_config(None, base_overrides), "additive", 1, out / "work", tuned)
    save_config(cfg, results / "config.yaml")
    (results / "compare.json").write_text(json.dumps({"values": values}), encoding="utf-8")


def test_the_same_settings_go_on_and_where_a_run_ran_does_not_count(tmp_path: Path) -> None:
    committed_study(tmp_path, {"train.max_steps": 2000, "train.threads": 2})
    base = load_config(None, {"train.max_steps": 2000, "train.threads": 1})  # threads: the last bits only
    check_settings(base, ["additive", "dot"], [1, 2], tmp_path, tmp_path / "elsewhere")  # dot: nothing committed


def test_a_changed_default_is_refused_naming_the_key_and_the_way_to_go_on(tmp_path: Path) -> None:
    committed_study(tmp_path, {"train.max_steps": 2000})
    base = load_config(None, {"train.max_steps": 2000})
    was = base.train.learning_rate
    changed_default = apply_overrides(base, {"train.learning_rate": was * 2})
    with pytest.raises(ConfigError) as error:
        check_settings(changed_default, ["additive"], [1], tmp_path, tmp_path / "work")
    message = str(error.value)
    assert "additive-seed1 trained with other settings" in message
    assert f"train.learning_rate {was!r} -> {was * 2!r}" in message and f"--set train.learning_rate={was}" in message
    with pytest.raises(ConfigError, match="train.max_steps 2000 -> 3000"):  # another budget is another study
        check_settings(load_config(None, {"train.max_steps": 3000}), ["additive"], [1], tmp_path, tmp_path / "w")


def test_a_swept_value_is_the_runs_own(tmp_path: Path) -> None:
    committed_study(tmp_path, {"train.max_steps": 2000}, values={"train.learning_rate": "4e-3"})
    check_settings(load_config(None, {"train.max_steps": 2000}), ["additive"], [1], tmp_path, tmp_path / "work")
