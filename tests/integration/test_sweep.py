"""`translate compare --sweep`: each mechanism tuned on dev, its seeds trained with its best values; the
test split read only for the final table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.study import compare as compare_module
from translate.study.compare import compare
from translate.study.sweep import choose, combinations, label, parse_sweep, run_name


def test_sweep_values_are_checked_and_named(tiny_config: RunConfig) -> None:
    sweep = parse_sweep(["train.learning_rate=5e-4, 1e-3", "model.dropout=0.1,0.3"], tiny_config)
    assert sweep == {"train.learning_rate": ["5e-4", "1e-3"], "model.dropout": ["0.1", "0.3"]}
    assert [label(c) for c in combinations(sweep)] == ["learning_rate=5e-4,dropout=0.1", "learning_rate=5e-4,dropout=0.3",
                                                       "learning_rate=1e-3,dropout=0.1", "learning_rate=1e-3,dropout=0.3"]
    assert run_name("additive", (("model.dropout", "0.1"), ("model.attention.dropout", "0")), 2) == \
        "additive~model.dropout=0.1,model.attention.dropout=0-seed2"  # the same last part: whole keys
    assert run_name("additive", (), 1) == "additive-seed1"
    for spec, message in (("train.learning_rate", "expected KEY=V1,V2"), ("train.learnin_rate=1", "did you mean"),
                          ("train.learning_rate=fast", "expected a number"), ("train.seed=1,2", "set by the study"),
                          ("model.dropout=0.1", None)):
        if message is None:
            with pytest.raises(ConfigError, match="given twice"):
                parse_sweep([spec, spec], tiny_config)
            continue
        with pytest.raises(ConfigError, match=message):
            parse_sweep([spec], tiny_config)


def test_the_choice_is_made_on_dev_even_where_test_would_choose_otherwise() -> None:
    sweep = {"train.learning_rate": ["5e-4", "1e-3", "2e-3"]}

    def record(mechanism: str, lr: str, dev: float, test: float) -> dict[str, Any]:
        return {"mechanism": mechanism, "values": [["train.learning_rate", lr]], "dev_bleu": dev, "test_bleu": test}

    records = [record("additive", "5e-4", 30.0, 35.0), record("additive", "1e-3", 31.0, 33.0),
               record("additive", "2e-3", 29.0, 34.0),
               record("dot", "5e-4", 28.0, 30.0), record("dot", "1e-3", 28.0, 31.0),  # a tie: the first listed
               record("dot", "9e-9", 99.0, 99.0)]  # another sweep's run in the folder: not a choice
    assert choose(records, sweep) == {"additive": (("train.learning_rate", "1e-3"),),
                                      "dot": (("train.learning_rate", "5e-4"),)}


@pytest.mark.slow
def test_a_swept_study_trains_every_seed_with_the_values_best_on_dev(tmp_path: Path, tiny_config: RunConfig,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    load = compare_module.load_eval_split
    monkeypatch.setattr(compare_module, "load_eval_split", lambda cfg, split: read.append(split) or load(cfg, split))
    report = compare_module.write_sweep_report

    at_choice: list[list[str]] = []

    def after_the_sweep(*args: Any) -> Any:
        at_choice.append(list(read))  # the splits read before the choice
        return report(*args)
    monkeypatch.setattr(compare_module, "write_sweep_report", after_the_sweep)
    out, work = tmp_path / "study", tmp_path / "work"
    sweep = {"train.learning_rate": ["0.01", "0.003"]}
    compare(tiny_config, ["none", "additive"], [1, 2], out, work, sweep=sweep)
    assert at_choice[0] and set(at_choice[0]) == {"dev"}  # the sweep scored on dev and never read the test split
    table = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    assert table["combinations"] == ["learning_rate=0.01", "learning_rate=0.003"]
    for mechanism in ("none", "additive"):
        dev = table["dev_bleu"][mechanism]
        best = max(table["combinations"], key=lambda c: (dev[c], -table["combinations"].index(c)))
        assert f"learning_rate={table['chosen'][mechanism]['train.learning_rate']}" == best
        for seed in (1, 2):  # every seed trained with the chosen value; seed 1 is the sweep's own run
            config = yaml.safe_load((out / "runs" / f"{mechanism}-seed{seed}" / "config.yaml").read_text(encoding="utf-8"))
            assert str(config["train"]["learning_rate"]) == table["chosen"][mechanism]["train.learning_rate"]
            assert config["name"] == f"{mechanism}~{best}-seed{seed}"
    assert sorted(p.name for p in work.iterdir() if p.is_dir()) == sorted(
        [f"{m}~learning_rate={lr}-seed1" for m in ("none", "additive") for lr in ("0.01", "0.003")]
        + [f"{m}~{'learning_rate=' + table['chosen'][m]['train.learning_rate']}-seed2" for m in ("none", "additive")])
    results = (out / "results.md").read_text(encoding="utf-8")
    assert "Each mechanism tuned on dev over train.learning_rate" in results and (out / "sweep.md").is_file()
    # two values searched: every choice lies at an edge, and the report says so; one curve point per trial
    assert set(table["at_edge"]) == {"none", "additive"} and "Widen the range" in (out / "sweep.md").read_text(encoding="utf-8")
    for mechanism, curve in table["expected_best"].items():
        scores = list(table["dev_bleu"][mechanism].values())
        assert len(curve) == 2 and curve[0] == pytest.approx(sum(scores) / 2, abs=0.01) and curve[1] <= max(scores) + 0.01
    rows = json.loads((out / "results.json").read_text(encoding="utf-8"))["rows"]
    assert [(r["mechanism"], r["seeds"]) for r in rows] == [("none", 2), ("additive", 2)]
    # resuming: nothing is trained again
    stamps = {p: p.stat().st_mtime_ns for p in [*out.glob("runs/*/compare.json"), *out.glob("sweep/*/sweep.json")]}
    assert len(stamps) == 8
    read.clear()
    compare(tiny_config, ["none", "additive"], [1, 2], out, work, sweep=sweep)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps and at_choice[1] == []
    # a grown sweep whose new value wins for one mechanism: that mechanism's seeds train again with it
    first_choice = {m: tuple(v.items()) for m, v in table["chosen"].items()}
    grown = {"train.learning_rate": ["0.01", "0.003", "0.02"]}

    def additive_picks_the_new_value(*args: Any) -> Any:
        report(*args)
        return {"none": first_choice["none"], "additive": (("train.learning_rate", "0.02"),)}
    monkeypatch.setattr(compare_module, "write_sweep_report", additive_picks_the_new_value)
    compare(tiny_config, ["none", "additive"], [1, 2], out, work, sweep=grown)
    for seed in (1, 2):
        record = json.loads((out / "runs" / f"additive-seed{seed}" / "compare.json").read_text(encoding="utf-8"))
        assert record["values"] == {"train.learning_rate": "0.02"}
        none = out / "runs" / f"none-seed{seed}" / "compare.json"
        assert none.stat().st_mtime_ns == stamps[none]  # its choice stands: not trained again
