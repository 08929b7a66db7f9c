"""`translate compare --tune`: Optuna's TPE trials asked and told around the study's own runs, the same
trial budget for every mechanism, resumable, and the seeds trained with the values best on dev."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.study import compare as compare_module
from translate.study.compare import Tuning, compare, rebuild_report
from translate.study.sweep import Combination
from translate.study.tune import (
    DEFAULT_SPACE,
    Dimension,
    Outcome,
    Tuner,
    base_values,
    choose_tuned,
    drawn_ranges,
    parse_space,
    pruning_hook,
    recorded_tuning,
    startup_trials,
    tune_rounds,
    widening_lines,
    write_tune_report,
)


def test_the_search_space_is_checked_and_the_default_spans_two_decades_of_learning_rate(tiny_config: RunConfig) -> None:
    space = parse_space(DEFAULT_SPACE, tiny_config)
    assert space["train.learning_rate"] == Dimension("log", 1e-4, 1e-2)
    assert space["data.batch_tokens"].kind == "int" and set(space) == {
        "train.learning_rate", "data.batch_tokens", "model.dropout", "train.warmup_steps"}
    assert Dimension("log", 1e-4, 1e-2).format(0.0012345) == "0.00123" and Dimension("int", 1, 9).format(4.6) == "5"
    for spec, message in (("train.learning_rate=1e-4:1e-2", "expected KEY=KIND:LOW:HIGH"),
                          ("train.learning_rate=cubic:1:2", "expected KEY=KIND:LOW:HIGH"),
                          ("train.learning_rate=log:0:1e-2", "LOW > 0 on a log scale"),
                          ("train.learning_rate=float:2:1", "needs LOW < HIGH"),
                          ("train.learnin_rate=log:1e-4:1e-2", "did you mean"),
                          ("model.dropout=float:0.1:1.5", "model.dropout"),  # the bound fails the config's own check
                          ("train.seed=int:1:5", "set by the study"), ("model.dropout=float:a:b", "must be numbers")):
        with pytest.raises(ConfigError, match=message):
            parse_space([spec], tiny_config)
    with pytest.raises(ConfigError, match="given twice"):
        parse_space(["model.dropout=float:0.1:0.5"] * 2, tiny_config)


def test_a_bound_the_key_cannot_pass_is_not_a_range_to_widen(tmp_path: Path, tiny_config: RunConfig) -> None:
    """Dropout 0 and warm-up 0 end what the config accepts: a choice there is reported, not sent to be widened.
    A bound that only another key holds (the learning rate at train.min_learning_rate) stays widenable."""
    specs = ["train.learning_rate=log:1e-4:3e-2", "data.batch_tokens=int:300:4000", "model.dropout=float:0:0.6",
             "train.warmup_steps=int:0:2000"]
    config = apply_overrides(tiny_config, {"train.min_learning_rate": "1e-4"})
    space = parse_space(specs, config)
    assert {key: set(d.ends) for key, d in space.items()} == {
        "train.learning_rate": set(), "data.batch_tokens": set(), "model.dropout": {"lower"},
        "train.warmup_steps": {"lower"}}
    assert parse_space(["model.dropout=float:0.05:0.6"], config)["model.dropout"].ends == frozenset()
    trials = [("0.004", "600", "0.3", "300", 20.0), ("0.00847", "3923", "0.0206", "488", 35.6)]
    for number, (lr, batch, dropout, warmup, bleu) in enumerate(trials):
        folder = tmp_path / "sweep" / f"dot-trial{number}"
        folder.mkdir(parents=True)
        values = [["train.learning_rate", lr], ["data.batch_tokens", batch], ["model.dropout", dropout],
                  ["train.warmup_steps", warmup]]
        (folder / "sweep.json").write_text(json.dumps({"mechanism": "dot", "seed": 1, "values": values, "dev_bleu": bleu,
                                                       "steps": 2000, "tune": True, "trial": number}), encoding="utf-8")
    write_tune_report(tmp_path, ["dot"], space)
    table = json.loads((tmp_path / "tune.json").read_text(encoding="utf-8"))
    assert table["at_edge"] == {"dot": {"data.batch_tokens": "upper"}}
    assert table["at_domain_end"] == {"dot": {"model.dropout": "lower"}}
    note = (tmp_path / "tune.md").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    assert note == ("At an edge of the searched range, where the best may lie beyond it: dot (batch_tokens at the upper "
                    "end). Widen the range before calling these mechanisms tuned. At the end of what the configuration "
                    "accepts, where nothing lies beyond: dot (dropout at the lower end).")


def test_tune_md_says_how_each_trial_stopped(tmp_path: Path, tiny_config: RunConfig) -> None:
    """A trial stopped by patience converged; one stopped by its budget did not, and the table says so."""
    space = parse_space(["train.learning_rate=log:1e-4:3e-2"], tiny_config)
    reasons = ["early stopping: no dev BLEU gain in 4 validations", "reached train.max_tokens=15,000,000 target tokens",
               None]
    for number, reason in enumerate(reasons):
        folder = tmp_path / "sweep" / f"dot-trial{number}"
        folder.mkdir(parents=True)
        record = {"mechanism": "dot", "seed": 1, "values": [["train.learning_rate", f"0.00{number + 1}"]],
                  "dev_bleu": 30.0 + number, "steps": 12500 * (number + 1), "tune": True, "trial": number,
                  **({"stop_reason": reason} if reason is not None else {})}
        (folder / "sweep.json").write_text(json.dumps(record), encoding="utf-8")
    write_tune_report(tmp_path, ["dot"], space)
    lines = (tmp_path / "tune.md").read_text(encoding="utf-8").splitlines()
    head = lines.index("| trial | train.learning_rate | updates | stopped by | dev BLEU |")
    assert lines[head + 2:head + 5] == ["| 0 | 0.001 | 12,500 | patience | 30.00 |",
                         "| 1 | 0.002 | 25,000 | reached train.max_tokens=15,000,000 target tokens (not converged) | 31.00 |",
                         "| 2 | 0.003 | 37,500 | not recorded | **32.00** |"]
    trials = json.loads((tmp_path / "tune.json").read_text(encoding="utf-8"))["trials"]["dot"]
    assert [t.get("stop_reason") for t in trials] == reasons[:2] + [None]


def test_a_choice_is_at_an_edge_on_the_scale_its_range_is_drawn_on(tmp_path: Path, tiny_config: RunConfig) -> None:
    """An `int` range is drawn uniformly, so its upper 10 % of 300-8,000 starts at 7,230 tokens, not at the
    5,761 of a log scale; a `log` range is read on its log scale."""
    space = parse_space(["train.learning_rate=log:1e-4:3e-2", "data.batch_tokens=int:300:8000"], tiny_config)
    folder = tmp_path / "sweep" / "none-trial0"
    folder.mkdir(parents=True)
    values = [["train.learning_rate", "0.018"], ["data.batch_tokens", "5897"]]
    (folder / "sweep.json").write_text(json.dumps({"mechanism": "none", "seed": 1, "values": values, "dev_bleu": 31.0,
                                                   "steps": 2000, "tune": True, "trial": 0}), encoding="utf-8")
    write_tune_report(tmp_path, ["none"], space)
    assert json.loads((tmp_path / "tune.json").read_text(encoding="utf-8"))["at_edge"] == {
        "none": {"train.learning_rate": "upper"}}


def _objective(values: Combination) -> float:
    """A smooth dev score whose best learning rate is 3e-3 (log scale)."""
    lr = float(dict(values)["train.learning_rate"])
    return 30.0 - 4.0 * (math.log10(lr) - math.log10(3e-3)) ** 2


def test_every_mechanism_gets_its_trials_tpe_finds_the_optimum_and_the_same_command_asks_the_same(tmp_path: Path) -> None:
    space = {"train.learning_rate": Dimension("log", 1e-4, 1e-2)}
    rounds: list[int] = []

    def run_round(asked: list[tuple[str, int, Combination]]) -> dict[tuple[str, int], Outcome]:
        rounds.append(len(asked))
        return {(m, n): (_objective(values), False) for m, n, values in asked}

    for folder in ("a", "b"):
        tune_rounds(Tuner(tmp_path / folder, space, seed=1), ["additive", "dot"], 24, 4, run_round)
    a, b = Tuner(tmp_path / "a", space, 1), Tuner(tmp_path / "b", space, 1)
    assert a.done("additive") == a.done("dot") == 24 and max(rounds) <= 4  # at most `slots` trials at a time
    asked_a = [t.params for t in a.study("dot").get_trials()]
    assert asked_a == [t.params for t in b.study("dot").get_trials()]  # seeded: the same values again
    assert asked_a != [t.params for t in a.study("additive").get_trials()]  # each mechanism its own draws
    best = max(a.study("additive").get_trials(), key=lambda t: t.value).params["train.learning_rate"]
    assert 1.5e-3 < best < 6e-3  # TPE found the optimum's neighbourhood in 24 trials


def test_a_budget_of_12_draws_4_at_random_and_asks_tpe_for_the_rest(tmp_path: Path) -> None:
    assert [startup_trials(n) for n in (1, 3, 12, 30)] == [1, 1, 4, 10]
    space = {"train.learning_rate": Dimension("log", 1e-4, 1e-2)}
    tune_rounds(Tuner(tmp_path, space, seed=3), ["dot"], 12, 1,
                lambda asked: {(m, n): (_objective(v), False) for m, n, v in asked})
    study = Tuner(tmp_path, space, 3).study("dot", 12)
    assert len(study.get_trials()) == 12 and study.sampler._n_startup_trials == 4  # TPE asks trials 5-12


def test_a_space_widened_during_the_study_is_told_trial_by_trial(tmp_path: Path) -> None:
    narrow = {"train.learning_rate": Dimension("log", 1e-4, 1e-2)}
    wide = {"train.learning_rate": Dimension("log", 1e-4, 3e-2)}

    def run_round(asked: list[tuple[str, int, Combination]]) -> dict[tuple[str, int], Outcome]:
        return {(m, n): (_objective(v), False) for m, n, v in asked}

    tune_rounds(Tuner(tmp_path, narrow, 1), ["additive", "dot"], 3, 2, run_round)
    assert widening_lines(drawn_ranges(tmp_path, narrow), narrow) == []  # one range: nothing to tell
    tune_rounds(Tuner(tmp_path, wide, 1), ["additive", "dot"], 5, 2, run_round)
    drawn = drawn_ranges(tmp_path, wide)["train.learning_rate"]
    assert [(r["low"], r["high"]) for r in drawn] == [(1e-4, 1e-2), (1e-4, 3e-2)]
    assert drawn[1]["trials"] == {"additive": [3, 4], "dot": [3, 4]}
    assert widening_lines(drawn_ranges(tmp_path, wide), wide)[-1] == (
        "- train.learning_rate: 0.0001 – 0.01 in trials 0–2; 0.0001 – 0.03 in trials 3–4")


def test_the_first_trial_is_the_base_configuration_clipped_into_the_space(tmp_path: Path, tiny_config: RunConfig) -> None:
    space = parse_space(["train.learning_rate=log:1e-4:1e-2", "data.batch_tokens=int:700:900",
                         "model.dropout=float:0.1:0.5"], tiny_config)
    config = apply_overrides(tiny_config, {"train.learning_rate": "2e-3", "data.batch_tokens": "600", "model.dropout": "0.3"})
    base = base_values(space, config)
    assert base == {"train.learning_rate": 2e-3, "data.batch_tokens": 700, "model.dropout": 0.3}  # 600 clipped up
    assert isinstance(base["data.batch_tokens"], int)
    told: list[tuple[str, int, Combination]] = []

    def run_round(asked: list[tuple[str, int, Combination]]) -> dict[tuple[str, int], Outcome]:
        told.extend(asked)
        return {(m, n): (_objective(v), False) for m, n, v in asked}

    tune_rounds(Tuner(tmp_path, space, 1, first={"dot": base}), ["additive", "dot"], 3, 2, run_round)
    dot = sorted((n, v) for m, n, v in told if m == "dot")
    assert len(dot) == 3 and dot[0] == (0, (("train.learning_rate", "0.002"), ("data.batch_tokens", "700"),
                                            ("model.dropout", "0.3")))  # within the budget of 3, not on top of it
    assert all(v != dot[0][1] for n, v in dot[1:])  # then the sampler's own draws
    additive = sorted((n, v) for m, n, v in told if m == "additive")
    assert len(additive) == 3 and additive[0][1] != dot[0][1]  # no base values given: drawn
    one = tmp_path / "one"
    tune_rounds(Tuner(one, space, 1, first={"dot": base}), ["dot"], 1, 1, run_round)
    assert [t.params for t in Tuner(one, space, 1).study("dot").get_trials()] == [base]  # a budget of 1: the base


def test_an_interrupted_round_resumes_with_the_trials_it_had_asked(tmp_path: Path) -> None:
    space = {"train.learning_rate": Dimension("log", 1e-4, 1e-2)}
    asked_first: list[tuple[str, int, Combination]] = []

    def interrupted(asked: list[tuple[str, int, Combination]]) -> dict[tuple[str, int], Outcome]:
        asked_first.extend(asked)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tune_rounds(Tuner(tmp_path, space, 1), ["additive"], 3, 2, interrupted)
    again: list[tuple[str, int, Combination]] = []

    def resumed(asked: list[tuple[str, int, Combination]]) -> dict[tuple[str, int], Outcome]:
        again.extend(asked)
        return {(m, n): (None, False) if n == 0 else (_objective(v), False) for m, n, v in asked}  # 0 fails: told too

    tune_rounds(Tuner(tmp_path, space, 1), ["additive"], 3, 2, resumed)
    assert again[:2] == asked_first and len(again) == 3  # the open trials first, with their own values
    assert Tuner(tmp_path, space, 1).done("additive") == 3


def test_a_trial_that_finished_before_an_interruption_is_told_from_its_results_without_its_weights(
        tmp_path: Path, tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study resumed on another machine (its work folder gone) trains only the trials without results."""
    from translate.study.executors import Sequential
    from translate.study.status import StudyStatus

    out, work = tmp_path / "study", tmp_path / "elsewhere"
    tuning = Tuning(2, parse_space(["train.learning_rate=log:1e-3:3e-2"], tiny_config), from_base=False)
    [(first, values)] = Tuner(out, tuning.space, 1).ask("additive", 2, 1)  # asked; the round was interrupted
    finished = compare_module.StudyRun("additive", 1, tuned=values, sweep=True, trial=first).name
    (out / "sweep" / finished).mkdir(parents=True)
    (out / "sweep" / finished / "sweep.json").write_text(json.dumps({"dev_bleu": 12.5}), encoding="utf-8")
    trained: list[str] = []

    def execute(base: RunConfig, out_dir: Path, work_dir: Path, executor: Any, waves: list[list[Any]],
                status: StudyStatus, later: int) -> dict[str, str]:
        for run in [r for wave in waves for r in wave]:
            trained.append(run.name)
            (out_dir / "sweep" / run.name).mkdir(parents=True)
            (out_dir / "sweep" / run.name / "sweep.json").write_text(json.dumps({"dev_bleu": 3.0}), encoding="utf-8")
        return {}
    monkeypatch.setattr(compare_module, "_execute", execute)
    status = StudyStatus(out, "sequential", [])
    assert compare_module._tune(tiny_config, ["additive"], 1, out, work, Sequential(), status, tuning, 0) == {}
    assert len(trained) == 1 and finished not in trained  # only the trial asked after it
    told = {t.number: t.value for t in Tuner(out, tuning.space, 1).study("additive").get_trials()}
    assert told == {first: 12.5, first + 1: 3.0}


def test_a_trial_whose_dev_curve_falls_behind_is_pruned_and_never_chosen(tmp_path: Path) -> None:
    """Trials report each validation's dev BLEU through the training hook; successive halving stops one
    that falls below the best third at a rung, and the tuner tells it as pruned."""
    import optuna

    tuner = Tuner(tmp_path, {"train.learning_rate": Dimension("log", 1e-4, 1e-2)}, 1)
    asked = tuner.ask("additive", 10, 4)
    for number, _ in asked[:3]:  # three trials, each better than the last, complete their curves
        hook = pruning_hook(tmp_path, "additive", number)
        assert hook is not None
        assert [hook({"step": step, "dev_bleu": bleu + number}) for step, bleu in ((500, 20), (1000, 25), (1500, 30))] \
            == [None, None, None]
        tuner.tell("additive", number, 30.0 + number)
    weak = pruning_hook(tmp_path, "additive", asked[3][0])
    assert weak is not None
    reasons = [weak({"step": step, "dev_bleu": 1.0}) for step in (500, 1000, 1500)]
    assert reasons[0] is not None and reasons[0].startswith("pruned by the tuner at update 500")
    tuner.tell("additive", asked[3][0], None, pruned=True)
    states = [t.state for t in tuner.study("additive").get_trials()]
    assert states == [optuna.trial.TrialState.COMPLETE] * 3 + [optuna.trial.TrialState.PRUNED]
    assert tuner.done("additive") == 4 and pruning_hook(tmp_path / "elsewhere", "additive", 0) is None
    # the study's first rung at half its budget: a slow start is not reported, so not pruned
    slow = tuner.ask("additive", 10, 1)[0][0]
    late = pruning_hook(tmp_path, "additive", slow, from_step=1000)
    assert late is not None and late({"step": 500, "dev_bleu": 1.0}) is None
    assert str(late({"step": 1000, "dev_bleu": 1.0})).startswith("pruned by the tuner at update 1000")
    reported = next(t for t in tuner.study("additive").get_trials() if t.number == slow).intermediate_values
    assert reported == {1000: 1.0}


def test_under_a_token_budget_trials_are_compared_at_equal_data(tmp_path: Path) -> None:
    """With the budget in tokens, the pruner's steps are thousands of target tokens, from half the token
    budget on: a large batch's early lead in updates is no lead, and a small batch is not pruned for
    having seen less data at the same update."""
    from translate.study.tune import pruning_step

    assert pruning_step({"step": 500, "target_tokens": 1_200_000}, True) == 1200
    assert pruning_step({"step": 500, "target_tokens": 1_200_000}, False) == 500
    assert pruning_step({"step": 500}, True) == 500  # a record from before the tokens were recorded
    tuner = Tuner(tmp_path, {"data.batch_tokens": Dimension("int", 300, 2400)}, 1)
    asked = tuner.ask("dot", 10, 4)
    for number, _ in asked[:3]:  # three large-batch trials: 2,000 target tokens an update
        hook = pruning_hook(tmp_path, "dot", number, from_tokens=4_000_000)
        assert hook is not None
        assert hook({"step": 1000, "target_tokens": 2_000_000, "dev_bleu": 25.0}) is None  # before half the budget
        assert [hook({"step": step, "target_tokens": 2000 * step, "dev_bleu": 28.0 + step / 1000})
                for step in (2000, 3000, 4000)] == [None, None, None]
        tuner.tell("dot", number, 32.0)
    reported = next(t for t in tuner.study("dot").get_trials() if t.number == asked[0][0]).intermediate_values
    assert reported == {4000: 30.0, 6000: 31.0, 8000: 32.0}  # thousands of tokens, not updates
    # a small batch, 500 target tokens an update: at update 4,000 it has seen a quarter of their data, and
    # is weaker there than they were at update 4,000; it is compared where they had seen as much
    small = pruning_hook(tmp_path, "dot", asked[3][0], from_tokens=4_000_000)
    assert small is not None
    assert small({"step": 4000, "target_tokens": 2_000_000, "dev_bleu": 20.0}) is None  # not reported yet
    assert small({"step": 8000, "target_tokens": 4_000_000, "dev_bleu": 30.5}) is None
    reason = small({"step": 16000, "target_tokens": 8_000_000, "dev_bleu": 20.0})
    assert reason is not None and reason.startswith("pruned by the tuner at update 16000, 8,000,000 target tokens")


def test_the_choice_is_the_best_trial_on_dev() -> None:
    records = [{"mechanism": "dot", "trial": 0, "values": [["train.learning_rate", "0.001"]], "dev_bleu": 20.0},
               {"mechanism": "dot", "trial": 1, "values": [["train.learning_rate", "0.003"]], "dev_bleu": 22.0},
               {"mechanism": "dot", "trial": 2, "values": [["train.learning_rate", "0.005"]], "dev_bleu": 22.0},
               {"mechanism": "dot", "trial": 3, "values": [["train.learning_rate", "0.009"]], "dev_bleu": 9.0,
                "pruned": "pruned by the tuner at update 500 (greedy dev BLEU 9.0)"}]
    assert choose_tuned(records) == {"dot": (("train.learning_rate", "0.003"),)}  # a tie: the earlier trial
    # (choose_tuned sees what tuned_records gives it: the trials trained in full, never a pruned one)


@pytest.mark.slow
def test_a_tuned_study_trains_its_seeds_with_the_best_trial(tmp_path: Path, tiny_config: RunConfig,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    load = compare_module.load_eval_split
    monkeypatch.setattr(compare_module, "load_eval_split", lambda cfg, split: read.append(split) or load(cfg, split))
    report = compare_module.write_tune_report
    at_choice: list[list[str]] = []

    def after_the_trials(*args: Any) -> Any:
        at_choice.append(list(read))
        return report(*args)
    monkeypatch.setattr(compare_module, "write_tune_report", after_the_trials)
    out, work = tmp_path / "study", tmp_path / "work"
    tuning = Tuning(3, parse_space(["train.learning_rate=log:1e-3:3e-2"], tiny_config))
    compare(tiny_config, ["additive"], [1, 2], out, work, tune=tuning)
    assert at_choice[0] and set(at_choice[0]) == {"dev"}  # the trials scored on dev and never read the test split
    table = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    trials = table["trials"]["additive"]
    assert [t["trial"] for t in trials] == [0, 1, 2] and len(table["expected_best"]["additive"]) == 3
    lr = Dimension("log", 1e-3, 3e-2)
    assert trials[0]["values"]["train.learning_rate"] == lr.format(min(max(tiny_config.train.learning_rate, 1e-3), 3e-2))
    best = max(trials, key=lambda t: (t["dev_bleu"], -t["trial"]))
    assert table["chosen"]["additive"] == best["values"]
    for seed in (1, 2):
        config = yaml.safe_load((out / "runs" / f"additive-seed{seed}" / "config.yaml").read_text(encoding="utf-8"))
        assert str(config["train"]["learning_rate"]) == best["values"]["train.learning_rate"]
    assert "Optuna's TPE sampler" in (out / "tune.md").read_text(encoding="utf-8")
    stamps = {p: p.stat().st_mtime_ns for p in [*out.glob("runs/*/compare.json"), *out.glob("sweep/*/sweep.json")]}
    assert len(stamps) == 5
    compare(tiny_config, ["additive"], [1, 2], out, work, tune=tuning)  # resuming: nothing trains again
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    with pytest.raises(ConfigError, match="--sweep and --tune both choose values"):
        compare(tiny_config, ["additive"], [1], out, work, sweep={"model.dropout": ["0.1"]}, tune=tuning)
    # `--report-only` writes tune.md and tune.json again, from the trials and the space tune.json records
    written = {name: (out / name).read_text(encoding="utf-8") for name in ("tune.md", "tune.json")}
    (out / "tune.md").unlink()
    (out / "tune.json").write_text(json.dumps({**table, "at_edge": {"additive": {"model.dropout": "upper"}}}),
                                   encoding="utf-8")
    rebuild_report(tiny_config, out)
    assert {name: (out / name).read_text(encoding="utf-8") for name in written} == written


def test_a_tune_json_that_is_not_one_is_named(tmp_path: Path, tiny_config: RunConfig) -> None:
    assert recorded_tuning(tmp_path, tiny_config) is None  # no tune.json: a study without --tune
    (tmp_path / "tune.json").write_text(json.dumps({"space": {"train.learning_rate": {"kind": "log"}}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"tune\.json: not a tune\.json written by `translate compare --tune`"):
        recorded_tuning(tmp_path, tiny_config)
