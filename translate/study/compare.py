"""`translate compare`: train attention mechanisms under one budget and rank them by test BLEU.

Each mechanism is a named set of config overrides on top of one base config (same data, seed,
model size and budget). Finished runs are reused, so an interrupted comparison resumes.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.config.loading import apply_overrides, load_config
from translate.config.schema import RunConfig
from translate.data.corpus import load_eval_split
from translate.errors import ConfigError, TrainingError
from translate.evaluation.evaluate import translate_and_score
from translate.inference.build import load_translator
from translate.machine import describe
from translate.study.executors import Event, Executor, Sequential, terminate_as_interrupt
from translate.study.looks import alpha_per_look, looks_allowed
from translate.study.measure import evaluate_run, train_or_reuse
from translate.study.plan import fix_plan, planned
from translate.study.presets import study_presets
from translate.study.report import RunFigures, read_questions, write_report
from translate.study.status import StudyStatus
from translate.study.sweep import SWEEP_DIR, Combination, chosen_values, combinations, run_name, write_sweep_report
from translate.study.tune import (
    PRUNING,
    Outcome,
    Space,
    Tuner,
    base_values,
    choose_tuned,
    pruning_hook,
    recorded_tuning,
    tune_rounds,
    tuned_records,
    write_tune_report,
)
from translate.training.resume import changed_settings
from translate.training.trainer import Validated

logger = logging.getLogger(__name__)

BASELINE = "none"


def parse_mechanisms(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()] if text != "all" else list(study_presets())
    unknown = [n for n in names if n not in study_presets()]
    if unknown or not names:
        raise ConfigError(f"unknown mechanism(s) {', '.join(unknown) or '(none given)'}; valid: {', '.join(study_presets())}")
    return names


def _overrides(mechanism: str, seed: int, work_dir: Path, tuned: Combination) -> dict[str, Any]:
    return {**study_presets()[mechanism], **dict(tuned), "name": run_name(mechanism, tuned, seed),
            "runs_dir": str(work_dir), "train.seed": seed}


def study_run_config(base: RunConfig, mechanism: str, seed: int, work_dir: Path, tuned: Combination = ()) -> RunConfig:
    """The run of `mechanism` with `seed` (and the values a sweep chose, `tuned`); a preset that starts
    from another preset's run ("@name") gets that run's folder, trained first if not in `work_dir`."""
    overrides = _overrides(mechanism, seed, work_dir, tuned)
    start = str(overrides.get("train.init_from", ""))
    if start.startswith("@"):
        source = study_run_config(base, start[1:], seed, work_dir)
        train_or_reuse(source)
        overrides["train.init_from"] = str(source.run_dir)
    return apply_overrides(base, overrides)


# where a run was, how it logged and how fast it decoded: not what it trained or scored
WHERE_AND_HOW_FAST = frozenset({"name", "runs_dir", "device", "data.data_dir", "data.cache_dir", "train.threads",
                                "train.tensorboard", "train.log_every", "train.init_from", "decode.batch_size"})


def check_settings(base: RunConfig, mechanisms: list[str], seeds: list[int], out_dir: Path, work_dir: Path) -> None:
    """Refuse to go on with a study whose committed runs trained with other settings than this command gives
    them (a default changed since, or other --set/--config): its new runs would not be comparable with them,
    and retraining the committed ones would not reproduce them. Each run's config.yaml is the record."""
    for mechanism in mechanisms:
        for seed in seeds:
            results = out_dir / "runs" / f"{mechanism}-seed{seed}"
            if not (results / "compare.json").is_file() or not (results / "config.yaml").is_file():
                continue
            values = json.loads((results / "compare.json").read_text(encoding="utf-8")).get("values")
            tuned = tuple(values.items()) if values else chosen_values(out_dir).get(mechanism, ())
            changed = {key: pair for key, pair in changed_settings(
                load_config(results / "config.yaml"),
                apply_overrides(base, _overrides(mechanism, seed, work_dir, tuned))).items()
                if key not in WHERE_AND_HOW_FAST}
            if changed:
                raise ConfigError(
                    f"{results} trained with other settings than this command gives it: "
                    + "; ".join(f"{key} {was!r} -> {now!r}" for key, (was, now) in sorted(changed.items()))
                    + " (a default changed since, or other --set/--config values). Go on with the study as it was: "
                    + " ".join(f"--set {key}={was}" for key, (was, _) in sorted(changed.items()))
                    + "; or start another (--out).")


@dataclass(frozen=True)
class StudyRun:
    """One run of a study; `train_only`: the source of other runs' initialisation ("@name"), trained first
    so that the runs starting from it do not train it at the same time; it is not recorded."""

    mechanism: str
    seed: int
    train_only: bool = False
    tuned: Combination = ()  # values a sweep or a tuner's trial tries (sweep=True) or chose
    sweep: bool = False  # a sweep run: scored on dev only, recorded under <out>/sweep/
    trial: int | None = None  # a tuner's trial (`translate.study.tune`): its number in the mechanism's Optuna study

    @property
    def name(self) -> str:
        return run_name(self.mechanism, self.tuned, self.seed) if self.sweep else f"{self.mechanism}-seed{self.seed}"


FAULT_ENV = "TRANSLATE_STUDY_FAULT"  # a test's fault hook: "<run>" kills the worker at that run's first validation


def _fault_hook(run: StudyRun, work_dir: Path) -> Validated | None:
    if os.environ.get(FAULT_ENV) != run.name or run.train_only:
        return None
    fired = work_dir / f"{run.name}.fault-fired"
    if fired.exists():
        return None

    def die(record: dict[str, Any]) -> None:
        fired.touch()
        os._exit(17)  # as a killed worker: no cleanup, no result
    return die


@dataclass(frozen=True)
class Shipped:
    """A run's result with its result files (path under the study folder -> bytes), from a node that shares
    no disk with the driver; the driver writes them (`receive`)."""

    result: Any
    files: dict[str, bytes]


def receive(shipped: Shipped, out_dir: Path) -> Any:
    """Write a run's shipped files into the study folder, its record (compare.json, sweep.json) last."""
    for name in sorted(shipped.files, key=lambda n: Path(n).name in ("compare.json", "sweep.json")):
        target = out_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
        tmp.write_bytes(shipped.files[name])
        os.replace(tmp, target)
    return shipped.result


def execute_run(base: RunConfig, out_dir: Path, work_dir: Path, run: StudyRun, ship: bool = False) -> Any:
    """The one run function of every executor: train (or resume, or reuse) the run and record its results
    into out_dir/runs/<run>/ (compare.json last: a run is recorded once it is complete, and only once); a sweep
    run into out_dir/sweep/<run>/ (sweep.json last). With `ship`, the files go to a scratch folder and come
    back with the result (`Shipped`), for a driver on another machine."""
    if ship:
        with tempfile.TemporaryDirectory(prefix="translate-run-") as scratch:
            result = execute_run(base, Path(scratch), work_dir, run)
            return Shipped(result, {str(p.relative_to(scratch)): p.read_bytes()
                                    for p in sorted(Path(scratch).rglob("*")) if p.is_file()})
    cfg = study_run_config(base, run.mechanism, run.seed, work_dir, run.tuned)
    if run.train_only:
        train_or_reuse(cfg)
        return None
    if run.sweep:
        hook = None if run.trial is None else pruning_hook(out_dir, run.mechanism, run.trial,
                                                           from_step=cfg.train.max_steps // 2,
                                                           from_tokens=cfg.train.max_tokens // 2)
        return _sweep_run(cfg, run, out_dir / SWEEP_DIR / run.name, hook)
    return evaluate_run(cfg, run.mechanism, run.seed, out_dir / "runs" / run.name, _fault_hook(run, work_dir),
                         run.tuned)


def _sweep_run(cfg: RunConfig, run: StudyRun, results: Path, hook: Validated | None = None) -> dict[str, Any]:
    """A sweep run or a tuner's trial: trained (a trial may be pruned by `hook`), then scored on dev only
    (the test split is for the final table)."""
    summary = train_or_reuse(cfg, hook)
    results.mkdir(parents=True, exist_ok=True)
    sources, refs = load_eval_split(cfg.data, "dev")
    scored = translate_and_score(load_translator(cfg.run_dir), sources, refs, cfg.data.tgt_lang,
                                 hypotheses_path=results / "dev.hyp.txt")
    record = {"mechanism": run.mechanism, "seed": run.seed, "values": [list(pair) for pair in run.tuned],
              "dev_bleu": round(scored.report.bleu, 2), "steps": summary["state"]["step"],
              "curve": [(h["step"], h["dev_bleu"]) for h in summary["history"] if "tag" not in h], "machine": describe()}
    reason = str(summary.get("stop_reason", ""))
    record["stop_reason"] = reason
    if run.trial is not None:
        record.update(tune=True, trial=run.trial)
        if reason.startswith("pruned by the tuner"):
            record["pruned"] = reason
    (results / "sweep.json").write_text(json.dumps(record), encoding="utf-8")
    return record


def _source(mechanism: str) -> str | None:
    start = str(study_presets()[mechanism].get("train.init_from", ""))
    return start[1:] if start.startswith("@") else None


def _waves(pending: list[StudyRun], work_dir: Path) -> list[list[StudyRun]]:
    """First the runs that start from scratch (and the untrained sources of the others), then those that
    start from another run."""
    first = [r for r in pending if _source(r.mechanism) is None]
    later = [r for r in pending if _source(r.mechanism) is not None]
    sources = dict.fromkeys((str(_source(r.mechanism)), r.seed) for r in later)
    first += [StudyRun(m, s, train_only=True) for m, s in sources
              if StudyRun(m, s) not in first and not (work_dir / f"{m}-seed{s}" / "train_summary.json").is_file()]
    return [wave for wave in (first, later) if wave]


def plan(mechanisms: list[str], seeds: list[int], out_dir: Path, work_dir: Path,
         tuned: dict[str, Combination] | None = None) -> list[list[StudyRun]]:
    """The runs still to do (each with the values a sweep chose for its mechanism), in waves: those without
    results, and those recorded with other values than the sweep chooses now (a sweep grown by a value)."""
    chosen = tuned or {}
    return _waves([StudyRun(m, s, tuned=chosen.get(m, ())) for m in mechanisms for s in seeds
                   if not _recorded_as(out_dir / "runs" / f"{m}-seed{s}" / "compare.json", chosen.get(m, ()))],
                  work_dir)


def _recorded_as(path: Path, tuned: Combination) -> bool:
    """Whether a run's results exist and were trained with `tuned` (a record older than the values field counts)."""
    if not path.is_file():
        return False
    values = json.loads(path.read_text(encoding="utf-8")).get("values")
    return values is None or not tuned or values == dict(tuned)


def sweep_plan(mechanisms: list[str], seed: int, sweep: dict[str, list[str]], out_dir: Path,
               work_dir: Path) -> list[list[StudyRun]]:
    """The sweep runs still to do: every mechanism × combination, with one seed."""
    runs = [StudyRun(m, seed, tuned=c, sweep=True) for m in mechanisms for c in combinations(sweep)]
    return _waves(_without_results(runs, out_dir), work_dir)


def _without_results(runs: list[StudyRun], out_dir: Path) -> list[StudyRun]:
    """The sweep runs (or trials) with no sweep.json in out_dir/sweep/: those still to train, here or anywhere."""
    return [r for r in runs if not (out_dir / SWEEP_DIR / r.name / "sweep.json").is_file()]


@dataclass(frozen=True)
class Tuning:
    """`translate compare --tune`: `trials` per mechanism in `space` (`translate.study.tune`)."""

    trials: int
    space: Space
    from_base: bool = True  # each mechanism's first trial is the base configuration's values (`tune.base_values`)


def compare(base: RunConfig, mechanisms: list[str], seeds: list[int], out_dir: Path, work_dir: Path | None = None,
            executor: Executor | None = None, sweep: dict[str, list[str]] | None = None,
            tune: Tuning | None = None, deviate: str | None = None, until_resolved: int | None = None) -> Path:
    """Train and evaluate every mechanism × seed; write results.md/.csv/.json and PNG figures to out_dir
    from every finished run there (also those of earlier commands with other mechanisms or seeds).

    Runs (with weights) live in `work_dir` (default out_dir/runs); each run's small results (scores,
    curves, hypotheses, attention matrices; no weights) in out_dir/runs/<run>/. A run whose results
    exist is not trained again, even on a machine without its weights: a study can be committed
    and resumed elsewhere, and the tables are written from whatever has finished. The runs execute
    where `executor` says (default: one after another here); each run's state is in out_dir/status.json.
    A run that fails is reported and the others go on; the command then fails naming it. With `sweep`,
    each mechanism first trains every combination of its values with the first seed, and all its seeds
    train with the combination best on dev (translate.study.sweep); with `tune`, the values come from
    Optuna's trials instead (translate.study.tune). Before any run, the command's procedure is fixed in
    out_dir/plan.json, or a departure from the plan there recorded with its time and `deviate`'s reason
    (translate.study.plan). With `until_resolved` (the most seeds a side), seeds are then added to the
    mechanisms of the declared questions still open, one look at a time (translate.study.looks).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    work_dir = work_dir or out_dir / "runs"
    check_settings(base, mechanisms, seeds, out_dir, work_dir)
    executor = executor or Sequential()
    if sweep and tune:
        raise ConfigError("--sweep and --tune both choose values: give one")
    tuner = ({"kind": "sweep", "values": sweep} if sweep else
             {"kind": "tpe", "trials": tune.trials, "from_base": tune.from_base, "rules": "translate.study.budget.edges",
              "pruning": PRUNING,
              "space": {k: {"kind": d.kind, "low": d.low, "high": d.high} for k, d in tune.space.items()}}
             if tune else None)
    started = any((out_dir / "runs").glob("*/compare.json")) or any((out_dir / SWEEP_DIR).glob("*/sweep.json"))
    sequential = None
    if until_resolved:
        if not read_questions(out_dir):
            raise ConfigError(f"--until-resolved adds seeds to the questions a study declares; {out_dir} has no "
                              f"questions.tsv (lines: mechanism A<TAB>mechanism B<TAB>what A vs B isolates)")
        looks = looks_allowed(len(seeds), until_resolved)
        sequential = {"max_seeds": until_resolved, "planned_seeds": len(seeds), "looks": looks,
                      "alpha_per_look": alpha_per_look(looks), "correction": "Pocock's constant level per look"}
    fix_plan(out_dir, planned(base, mechanisms, seeds, read_questions(out_dir), tuner, sequential), started, deviate)
    sweeping = sweep_plan(mechanisms, seeds[0], sweep, out_dir, work_dir) if sweep else []
    known = chosen_values(out_dir) if sweep else choose_tuned(tuned_records(out_dir)) if tune else {}
    final = [f"{m}-seed{s}" for m in mechanisms for s in seeds
             if not _recorded_as(out_dir / "runs" / f"{m}-seed{s}" / "compare.json", known.get(m, ()))]
    status = StudyStatus(out_dir, executor.name, [r.name for wave in sweeping for r in wave if not r.train_only] + final)
    failed = _execute(base, out_dir, work_dir, executor, sweeping, status, len(final))
    if tune:
        failed.update(_tune(base, mechanisms, seeds[0], out_dir, work_dir, executor, status, tune, len(final)))
    tuned: dict[str, Combination] = {}
    if sweep or tune:
        tuned = write_sweep_report(out_dir, mechanisms, sweep) if sweep else write_tune_report(
            out_dir, mechanisms, tune.space if tune else {})
        for mechanism in [m for m in mechanisms if m not in tuned]:  # no sweep run or trial finished: no seed trains
            for name in [n for n in final if n.rsplit("-seed", 1)[0] == mechanism]:
                failed[name] = "none of its sweep runs finished" if sweep else "none of its trials finished"
                status.set(name, "failed", reason=failed[name])
    waves = [[r for r in wave if r.train_only or r.mechanism in tuned or not (sweep or tune)]
             for wave in plan(mechanisms, seeds, out_dir, work_dir, tuned)]
    failed.update(_execute(base, out_dir, work_dir, executor, [w for w in waves if w], status, 0))
    if any((out_dir / "runs").glob("*/compare.json")):
        write_tables(base, out_dir)
    if until_resolved and not failed:
        failed.update(_until_resolved(base, mechanisms, seeds, until_resolved, out_dir, work_dir, executor, status,
                                      tuned))
    if failed:
        raise TrainingError(f"{len(failed)} run(s) failed: " + "; ".join(f"{n} ({r})" for n, r in failed.items())
                            + f"; the others are in {out_dir}; rerun the command to try them again")
    return out_dir


def _until_resolved(base: RunConfig, mechanisms: list[str], seeds: list[int], max_seeds: int, out_dir: Path,
                    work_dir: Path, executor: Executor, status: StudyStatus,
                    tuned: dict[str, Combination]) -> dict[str, str]:
    """One look at a time: the mechanisms of the declared questions neither decided nor equivalent (at the
    look's level) get the next seed, until every question is, or its sides have `max_seeds` seeds; finished
    runs are reused, so the same command resumes. Returns the failed runs."""
    have = {m: list(seeds) for m in mechanisms}
    while True:
        pairs = json.loads((out_dir / "results.json").read_text(encoding="utf-8")).get("pairs", [])
        open_pairs = [p for p in pairs if p.get("verdict") not in ("decided", "equivalent")]
        wanted = sorted({m for p in open_pairs for m in (p["a"], p["b"]) if m in have and len(have[m]) < max_seeds})
        if not wanted:
            return {}
        seed = max(max(have[m]) for m in wanted) + 1
        for mechanism in wanted:
            have[mechanism].append(seed)
            status.set(f"{mechanism}-seed{seed}", "pending")
        logger.info("look %d: seed %d for %s", len(have[wanted[0]]) - len(seeds) + 1, seed, ", ".join(wanted))
        failed = _execute(base, out_dir, work_dir, executor,
                          [w for w in plan(wanted, [seed], out_dir, work_dir, tuned) if w], status, 0)
        write_tables(base, out_dir)
        if failed:
            return failed


def _tune(base: RunConfig, mechanisms: list[str], seed: int, out_dir: Path, work_dir: Path, executor: Executor,
          status: StudyStatus, tune: Tuning, later: int) -> dict[str, str]:
    """The tuner's rounds (`translate.study.tune.tune_rounds`): each round's trials run as sweep runs on the
    executor; returns the failed runs and their reasons."""
    first = {m: base_values(tune.space, apply_overrides(base, study_presets()[m])) for m in mechanisms} \
        if tune.from_base else None
    tuner, failed = Tuner(out_dir, tune.space, seed, first), {}

    def run_round(asked: list[tuple[str, int, Combination]]) -> dict[tuple[str, int], Outcome]:
        runs = [StudyRun(m, seed, tuned=values, sweep=True, trial=number) for m, number, values in asked]
        # a trial of an interrupted round whose results exist is told from them, even without its weights
        todo = _without_results(runs, out_dir)
        for run in runs:
            status.set(run.name, "pending" if run in todo else "done")
        failed.update(_execute(base, out_dir, work_dir, executor, _waves(todo, work_dir), status, later))
        outcomes: dict[tuple[str, int], Outcome] = {}
        for run in runs:
            path = out_dir / SWEEP_DIR / run.name / "sweep.json"
            record = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
            outcomes[(run.mechanism, int(run.trial or 0))] = (
                (None, False) if record is None else (float(record["dev_bleu"]), bool(record.get("pruned"))))
        return outcomes

    tune_rounds(tuner, mechanisms, tune.trials, executor.slots, run_round)
    return failed


def _execute(base: RunConfig, out_dir: Path, work_dir: Path, executor: Executor, waves: list[list[StudyRun]],
             status: StudyStatus, later: int) -> dict[str, str]:
    """Run the waves on the executor, keeping status.json, the tables and the log up to date (one line per
    finished run, with an estimate of the time left; `later`: runs of a later phase); returns the failed runs
    and their reasons."""
    recorded = [r.name for wave in waves for r in wave if not r.train_only]
    began, durations, started, failed = time.monotonic(), [], {}, {}

    def heard(event: Event[StudyRun]) -> None:
        run = event.task
        if event.kind == "started":
            started[run.name] = time.monotonic()
            status.set(run.name, "running", event.where)
            logger.info("== %s: %s (%s)", run.name, "training its source run" if run.train_only else "started", event.where)
        elif event.kind == "retried":
            status.set(run.name, "pending", reason=event.reason)
            logger.warning("== %s: %s; it starts again (resuming from its last checkpoint)", run.name, event.reason)
        elif event.kind == "failed":
            failed[run.name] = event.reason
            status.set(run.name, "failed", event.where, event.reason)
            logger.error("== %s failed: %s", run.name, event.reason)
        elif run.train_only:
            status.set(run.name, "done", event.where)
        else:
            if executor.ships_files:
                receive(event.result, out_dir)
            durations.append(time.monotonic() - started[run.name])
            status.set(run.name, "done", event.where)
            if not run.sweep:
                write_tables(base, out_dir)  # the tables grow as runs finish, with earlier commands' runs too
            left = len(recorded) - len(durations) - len(failed) + later
            logger.info("== %s finished (%d of %d, %.1f min); about %.0f min left", run.name, len(durations),
                        len(recorded), durations[-1] / 60, sum(durations) / len(durations) * left / executor.slots / 60)

    try:
        with terminate_as_interrupt():
            executor.run(functools.partial(execute_run, base, out_dir, work_dir, ship=executor.ships_files), waves, heard)
    except BaseException:
        for name, entry in status.runs.items():
            if entry["state"] == "running":
                status.set(name, "interrupted", entry.get("where", ""), "stopped; rerun the command to resume it")
        raise
    if durations:
        logger.info("== %d run(s) done in %.1f min", len(durations), (time.monotonic() - began) / 60)
    return failed


def rebuild_report(base: RunConfig, out_dir: Path) -> Path:
    """`translate compare --report-only`: the tables and plots (`write_tables`) and, in a tuned study,
    tune.md and tune.json, from out_dir/sweep/ and the space tune.json records."""
    write_tables(base, out_dir)
    tuning = recorded_tuning(out_dir, base)
    if tuning is not None:
        write_tune_report(out_dir, *tuning)
    return out_dir


def write_tables(base: RunConfig, out_dir: Path) -> None:
    """Rewrite the tables and plots from the results already in out_dir/runs/ (no training, no weights)."""
    found = [RunFigures.load(path) for path in (out_dir / "runs").glob("*/compare.json")]
    if not found:
        raise ConfigError(f"no finished runs in {out_dir / 'runs'} (each has a compare.json)")
    for record in sorted((out_dir / "runs").glob("*/config.yaml")):  # the direction picks the BLEU tokenizer
        direction = load_config(record).data.direction
        if direction != base.data.direction:
            raise ConfigError(f"{record} translates {direction}, this command {base.data.direction} (data.direction): "
                              f"give --direction {direction} to rewrite its tables")
    rank = {name: i for i, name in enumerate(study_presets())}
    other_sizes = frozenset(n for n, overrides in study_presets().items() if "model.hidden_size" in overrides)
    write_report(base, sorted(found, key=lambda f: (rank.get(f.mechanism, len(rank)), f.mechanism, f.seed)), out_dir,
                 other_sizes)
