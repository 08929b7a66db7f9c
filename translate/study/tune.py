"""Tuning with an existing tuner (`translate compare --tune N`): each mechanism gets N trials of its
own, each trial a run trained for the study's budget (so every mechanism gets the same budget in
updates) with values that Optuna's TPE sampler (Bergstra et al. 2011) asks
for in a search space, scored on **dev** only. The best trial's values are what all the mechanism's
seeds then train with, as with `--sweep`; the test split is read only for the final table.

Why Optuna: its ask-and-tell interface lets the study's own executors (this process, local workers,
a Ray cluster) run the trials, so a trial is a run like any other (resumed, recorded, shipped), and
its storage is one SQLite file in the study folder that resumes with it. Ray Tune would take over the
scheduling of runs that `translate compare` already does.

Trials are asked in rounds, as many at a time as the executor runs (`slots`); a run's dev BLEU is told
to the mechanism's Optuna study once it finishes. An interrupted round resumes: a trial asked but not
told is run again with its own values (its run resumes from its last checkpoint). The sampler is
seeded per mechanism, so the same command asks the same values. A mechanism's first trial is the base
configuration's own values (`base_values`, clipped into the space; `translate compare --no-tune-base` leaves
it out): the tuner's choice is then never a setting worse on dev than the one a user would train without it.
The first third of a mechanism's trials (that one included) are drawn at random (`startup_trials`), the rest
by TPE from the trials told so far.

Weak trials stop early: at each of its validations from half the budget on, a trial reports its
(greedy) dev BLEU to Optuna's successive-halving pruner (`pruning_hook`, in the worker that trains it),
which stops it where it falls below the best third of the trials that reached that step before it; under
a budget in tokens, half the tokens and steps of a thousand target tokens, so a trial is compared with
others at equal data, whatever its batch size. A pruned trial is told as such
and never chosen; the updates it did not train are the pruner's saving. Runs shipped to a Ray node
that shares no disk with the study are not pruned (the storage is a file of the study folder).

Each trial leaves `<out>/sweep/<mechanism>~<values>-seed<n>/sweep.json` like a sweep run, marked
`"tune": true`; `<out>/tune.json` and `tune.md` hold every trial, the choices, the expected best dev
BLEU after n trials (Dodge et al. 2019) and the values chosen within 10 % of a bound of their range,
on the scale the range is drawn on (log for `log`, linear for `int` and `float`;
`translate.study.budget.edges`): a range to widen before calling the mechanism tuned, unless that bound
is also the end of what the configuration accepts (dropout 0, warm-up 0: `Dimension.ends`), where nothing
lies beyond it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.study.budget import edges, expected_best_curve
from translate.study.status import stopped_by
from translate.study.sweep import Combination, budget_lines, read_records

TUNE_DB = "optuna.db"
KINDS = ("log", "float", "int")


@dataclass(frozen=True)
class Dimension:
    """One key's range: `log` (log-uniform, positive), `float` (uniform) or `int` (uniform integers);
    `ends` names the bounds ("lower", "upper") beyond which the configuration accepts no value."""

    kind: str
    low: float
    high: float
    ends: frozenset[str] = frozenset()

    def format(self, value: float) -> str:
        """The value as the run's configuration gets it (3 significant digits, integers exact)."""
        return str(round(value)) if self.kind == "int" else f"{value:.3g}"


Space = dict[str, Dimension]

# the default search space: the learning rate over two decades, batch size, dropout, warm-up
DEFAULT_SPACE = ["train.learning_rate=log:1e-4:1e-2", "data.batch_tokens=int:300:2400", "model.dropout=float:0.1:0.5",
                 "train.warmup_steps=int:0:1000"]


def parse_space(specs: list[str], base: RunConfig) -> Space:
    """["train.learning_rate=log:1e-4:1e-2", ...] -> {key: Dimension}; both bounds are checked against the config."""
    space: Space = {}
    for spec in specs:
        key, sep, rest = spec.partition("=")
        parts = rest.split(":")
        key = key.strip()
        if not sep or not key or len(parts) != 3 or parts[0] not in KINDS:
            raise ConfigError(f"--space '{spec}': expected KEY=KIND:LOW:HIGH with KIND one of {', '.join(KINDS)} "
                              "(e.g. train.learning_rate=log:1e-4:1e-2)")
        try:
            low, high = float(parts[1]), float(parts[2])
        except ValueError:
            raise ConfigError(f"--space '{spec}': the bounds must be numbers") from None
        if not low < high or (parts[0] == "log" and low <= 0):
            raise ConfigError(f"--space '{spec}': needs LOW < HIGH" + (" and LOW > 0 on a log scale" if parts[0] == "log" else ""))
        if key in space:
            raise ConfigError(f"--space: {key} is given twice")
        if key in ("train.seed", "name", "runs_dir"):
            raise ConfigError(f"--space: {key} is set by the study itself")
        dimension = Dimension(parts[0], low, high)
        for bound in (low, high):
            apply_overrides(base, {key: dimension.format(bound)})  # an unknown key or a bad value names itself here
        space[key] = Dimension(parts[0], low, high, domain_ends(key, dimension, base))
    return space


def domain_ends(key: str, dimension: Dimension, base: RunConfig) -> frozenset[str]:
    """The bounds of a range beyond which the key accepts nothing: the nearest value past the bound (one
    step for an int, a hair for a float) fails the key's own check (dropout below 0), not another key's
    (the learning rate below `train.min_learning_rate` is a range to widen with that key)."""
    step = 1.0 if dimension.kind == "int" else 1e-9 * max(1.0, abs(dimension.low), abs(dimension.high))
    ends = set()
    for side, beyond in (("lower", dimension.low - step), ("upper", dimension.high + step)):
        try:
            apply_overrides(base, {key: str(round(beyond)) if dimension.kind == "int" else repr(beyond)})
        except ConfigError as error:
            if str(error).startswith(f"{key}="):  # `schema._check` names the key at fault first
                ends.add(side)
    return frozenset(ends)


def base_values(space: Space, base: RunConfig) -> dict[str, float]:
    """The base configuration's value of each key of the space, clipped into its range (an int range gets an int)."""
    values: dict[str, float] = {}
    for key, dimension in space.items():
        node: Any = base
        for part in key.split("."):
            node = getattr(node, part)
        value = min(max(float(node), dimension.low), dimension.high)
        values[key] = round(value) if dimension.kind == "int" else value
    return values


def _sampler_seed(mechanism: str, seed: int) -> int:
    return seed * 1_000_003 + int(hashlib.sha256(mechanism.encode()).hexdigest()[:8], 16)


class Tuner:
    """The mechanisms' Optuna studies in `<out>/tune/optuna.db`: `ask` the next trials' values, `tell`
    their dev BLEU; trials asked and not yet told are asked again (their values) first. A mechanism in
    `first` gets those values as its first trial (enqueued when its study is created)."""

    def __init__(self, out_dir: Path, space: Space, seed: int,
                 first: dict[str, dict[str, float]] | None = None) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna, self.space, self.seed, self.first = optuna, space, seed, first or {}
        folder = out_dir / "tune"
        folder.mkdir(parents=True, exist_ok=True)
        self.storage = f"sqlite:///{folder / TUNE_DB}"

    def study(self, mechanism: str, trials: int = 0) -> Any:
        """The mechanism's Optuna study, its sampler seeded by the mechanism, the study's seed and the number
        of trials so far: the same history asks the same next values, and no two rounds repeat a draw.
        Of a budget of `trials`, the first `startup_trials(trials)` are drawn at random, the rest by TPE."""
        study = self.optuna.create_study(study_name=mechanism, storage=self.storage, direction="maximize",
                                         load_if_exists=True, pruner=pruner())
        if mechanism in self.first and not study.get_trials(deepcopy=False):
            study.enqueue_trial(self.first[mechanism])
        asked = len(study.get_trials(deepcopy=False))
        study.sampler = self.optuna.samplers.TPESampler(seed=_sampler_seed(mechanism, self.seed) + asked,
                                                        n_startup_trials=startup_trials(trials))
        return study

    def combination(self, params: dict[str, Any]) -> Combination:
        return tuple((key, self.space[key].format(params[key])) for key in self.space)

    def ask(self, mechanism: str, trials: int, wanted: int) -> list[tuple[int, Combination]]:
        """Up to `wanted` trials to run now: those asked before and never told, then new ones, within `trials` in all."""
        study = self.study(mechanism, trials)
        states = self.optuna.trial.TrialState
        open_ = [t for t in study.get_trials(deepcopy=False) if t.state == states.RUNNING]
        out = [(t.number, self.combination(t.params)) for t in open_][:wanted]
        while len(out) < wanted and sum(t.state != states.WAITING for t in study.get_trials(deepcopy=False)) < trials:
            trial = study.ask({key: self._distribution(d) for key, d in self.space.items()})
            out.append((trial.number, self.combination(trial.params)))
        return out

    def _distribution(self, dimension: Dimension) -> Any:
        distributions = self.optuna.distributions
        if dimension.kind == "int":
            return distributions.IntDistribution(int(dimension.low), int(dimension.high))
        return distributions.FloatDistribution(dimension.low, dimension.high, log=dimension.kind == "log")

    def tell(self, mechanism: str, number: int, dev_bleu: float | None, pruned: bool = False) -> None:
        """A trial's dev BLEU (None: it failed; `pruned`: the pruner stopped it)."""
        study, states = self.study(mechanism), self.optuna.trial.TrialState
        if pruned:
            study.tell(number, state=states.PRUNED, skip_if_finished=True)
        elif dev_bleu is None:
            study.tell(number, state=states.FAIL, skip_if_finished=True)
        else:
            study.tell(number, dev_bleu, skip_if_finished=True)

    def done(self, mechanism: str) -> int:
        """Trials told (finished, pruned or failed)."""
        states = self.optuna.trial.TrialState
        return sum(t.state in (states.COMPLETE, states.PRUNED, states.FAIL)
                   for t in self.study(mechanism).get_trials(deepcopy=False))


def startup_trials(trials: int) -> int:
    """Random trials before TPE models the history: a third of the budget (4 of 12). Optuna's default of
    10 would leave a budget of 12 nearly all random search."""
    return max(1, trials // 3)


PRUNING = ("successive halving (Optuna's SuccessiveHalvingPruner, reduction factor 3, min_resource auto) from "
           "half the budget on; under a budget in tokens, at equal target tokens trained (steps of 1,000)")


def pruner() -> Any:
    """Successive halving (Jamieson & Talwalkar 2016; Li et al. 2018): at rungs of reported steps, a trial
    continues only among the best third of the trials that reached that rung."""
    import optuna

    return optuna.pruners.SuccessiveHalvingPruner(min_resource="auto", reduction_factor=3)


def pruning_hook(out_dir: Path, mechanism: str, number: int, from_step: int = 0,
                 from_tokens: int = 0) -> Callable[[dict[str, Any]], str | None] | None:
    """The validation hook of a trial's run (`translate.training.trainer.Validated`): report the dev BLEU
    at that step to the trial and return a stop reason when the pruner prunes it; None where the study's
    storage is not on this disk. Validations before `from_step` are not reported, so no trial is pruned
    before it: the study passes half its budget, where a slow start (a long warm-up, a low learning
    rate) no longer reads as a weak trial. Under a budget in tokens (`from_tokens`, half of it), the
    pruner's steps are thousands of target tokens trained (`pruning_step`), not updates: trials of other
    batch sizes are compared at equal data, as the budget counts it."""
    database = out_dir / "tune" / TUNE_DB
    if not database.is_file():
        return None

    def report(record: dict[str, Any]) -> str | None:
        import optuna

        at = pruning_step(record, bool(from_tokens))
        if at < (from_tokens // TOKENS_PER_STEP if from_tokens else from_step):
            return None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.load_study(study_name=mechanism, storage=f"sqlite:///{database}", pruner=pruner())
        frozen = next((t for t in study.get_trials(deepcopy=False) if t.number == number), None)
        if frozen is None or frozen.state != optuna.trial.TrialState.RUNNING:
            return None
        trial = optuna.trial.Trial(study, frozen._trial_id)
        trial.report(float(record["dev_bleu"]), at)
        if trial.should_prune():
            data = f", {int(record['target_tokens']):,} target tokens" if from_tokens else ""
            return f"pruned by the tuner at update {record['step']}{data} (greedy dev BLEU {record['dev_bleu']})"
        return None
    return report


TOKENS_PER_STEP = 1000  # under a token budget, one step of the pruner is this many target tokens trained


def pruning_step(record: dict[str, Any], by_tokens: bool) -> int:
    """Where a validation stands for the pruner: its update, or (`by_tokens`) the thousands of target
    tokens trained by then (a record without them, from before they were recorded, stands at its update)."""
    if by_tokens and "target_tokens" in record:
        return int(record["target_tokens"]) // TOKENS_PER_STEP
    return int(record["step"])


Outcome = tuple[float | None, bool]  # a trial's dev BLEU (None: failed) and whether the pruner stopped it


def tune_rounds(tuner: Tuner, mechanisms: list[str], trials: int, slots: int,
                run_round: Callable[[list[tuple[str, int, Combination]]], dict[tuple[str, int], Outcome]]) -> None:
    """Ask, run and tell until every mechanism has `trials` trials told: each round asks up to `slots`
    trials over the mechanisms (in turn) and `run_round` trains them, returning each one's outcome."""
    while True:
        asked: list[tuple[str, int, Combination]] = []
        per_mechanism = max(1, math.ceil(slots / max(1, len(mechanisms))))
        for mechanism in mechanisms:
            left = trials - tuner.done(mechanism)
            if left > 0:
                asked += [(mechanism, n, c) for n, c in tuner.ask(mechanism, trials, min(left, per_mechanism))]
        if not asked:
            return
        results = run_round(asked)
        for mechanism, number, _ in asked:
            score, pruned = results.get((mechanism, number), (None, False))
            tuner.tell(mechanism, number, score, pruned)


def tuned_records(out_dir: Path, pruned: bool = False) -> list[dict[str, Any]]:
    """The trials' records (those the pruner stopped only with `pruned`)."""
    return [r for r in read_records(out_dir) if r.get("tune") and (pruned or not r.get("pruned"))]


def choose_tuned(records: list[dict[str, Any]]) -> dict[str, Combination]:
    """Each mechanism's trial with the best dev BLEU (a tie: the earlier trial). Only dev counts."""
    best: dict[str, tuple[float, int, Combination]] = {}
    for record in records:
        key = (float(record["dev_bleu"]), -int(record.get("trial", 0)), tuple((k, str(v)) for k, v in record["values"]))
        if record["mechanism"] not in best or key[:2] > best[record["mechanism"]][:2]:
            best[record["mechanism"]] = key
    return {mechanism: entry[2] for mechanism, entry in best.items()}


def drawn_ranges(out_dir: Path, space: Space) -> dict[str, list[dict[str, Any]]]:
    """For each key, the ranges its trials were drawn from, as Optuna's storage records them, with the
    trial numbers of each mechanism: more than one range where the space was widened during the study."""
    import optuna

    path = out_dir / "tune" / TUNE_DB
    if not path.is_file():
        return {}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{path}"
    found: dict[str, dict[tuple[float, float], dict[str, list[int]]]] = {}
    for summary in optuna.get_all_study_summaries(storage):
        for trial in optuna.load_study(study_name=summary.study_name, storage=storage).get_trials(deepcopy=False):
            for key, distribution in trial.distributions.items():
                if key in space and isinstance(distribution, (optuna.distributions.FloatDistribution,
                                                              optuna.distributions.IntDistribution)):
                    bounds = (float(distribution.low), float(distribution.high))
                    found.setdefault(key, {}).setdefault(bounds, {}).setdefault(summary.study_name, []).append(trial.number)
    return {key: [{"low": low, "high": high, "trials": {m: sorted(n) for m, n in sorted(by.items())}}
                  for (low, high), by in sorted(ranges.items(), key=lambda item: min(min(n) for n in item[1].values()))]
            for key, ranges in found.items()}


def _numbers(numbers: list[int]) -> str:
    """[0, 1, 2, 5] -> "0–2, 5"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def widening_lines(drawn: dict[str, list[dict[str, Any]]], space: Space) -> list[str]:
    """tune.md's account of a space widened during the study: each key drawn from more than one range."""
    lines = []
    for key, ranges in drawn.items():
        if len(ranges) > 1:
            parts = []
            for r in ranges:
                numbers = sorted({n for found in r["trials"].values() for n in found})
                parts.append(f"{space[key].format(r['low'])} – {space[key].format(r['high'])} in trials {_numbers(numbers)}")
            lines.append(f"- {key}: " + "; ".join(parts))
    if not lines:
        return []
    return ["", "The space was widened during the study (choices within 10 % of a bound); the trials drew:", "", *lines]


def write_tune_report(out_dir: Path, mechanisms: list[str], space: Space) -> dict[str, Combination]:
    """tune.json and tune.md from the finished trials; returns each mechanism's choice."""
    records = tuned_records(out_dir)
    chosen = choose_tuned(records)
    by_mechanism: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(records, key=lambda r: int(r.get("trial", 0))):
        by_mechanism.setdefault(record["mechanism"], []).append(record)
    pruned: dict[str, list[dict[str, Any]]] = {}
    for record in sorted((r for r in tuned_records(out_dir, pruned=True) if r.get("pruned")), key=lambda r: int(r["trial"])):
        pruned.setdefault(record["mechanism"], []).append(record)
    names = [m for m in mechanisms if m in by_mechanism] + sorted(set(by_mechanism) - set(mechanisms))
    searched = {key: [d.format(d.low), d.format(d.high)] for key, d in space.items()}
    curves = {m: [round(v, 2) for v in expected_best_curve([r["dev_bleu"] for r in by_mechanism[m]])] for m in names}
    log = {key: d.kind == "log" for key, d in space.items()}  # each range read on the scale it was drawn on
    near_bound = {m: edges(dict(chosen[m]), searched, log) for m in names if m in chosen}
    at_edge = {m: {k: side for k, side in sides.items() if side not in space[k].ends} for m, sides in near_bound.items()}
    at_end = {m: {k: side for k, side in sides.items() if side in space[k].ends} for m, sides in near_bound.items()}
    drawn = drawn_ranges(out_dir, space)
    (out_dir / "tune.json").write_text(json.dumps({
        "space": {key: {"kind": d.kind, "low": d.low, "high": d.high} for key, d in space.items()},
        "drawn": {key: ranges for key, ranges in drawn.items() if len(ranges) > 1},
        "trials": {m: [{"trial": r.get("trial"), "values": dict(r["values"]), "dev_bleu": r["dev_bleu"],
                        "steps": r.get("steps"), **({"stop_reason": r["stop_reason"]} if "stop_reason" in r else {})}
                       for r in by_mechanism[m]] for m in names},
        "pruned": {m: [{"trial": r["trial"], "values": dict(r["values"]), "steps": r.get("steps"), "reason": r["pruned"]}
                       for r in found] for m, found in pruned.items()},
        "chosen": {m: dict(chosen[m]) for m in names if m in chosen}, "expected_best": curves,
        "at_edge": {m: sides for m, sides in at_edge.items() if sides},
        "at_domain_end": {m: sides for m, sides in at_end.items() if sides}}, indent=1) + "\n", encoding="utf-8")
    lines = [("Tuned on dev with Optuna's TPE sampler (`translate compare --tune`; each trial one run of the study's "
              "budget, the study's first seed). The search space:"), "",
             "| key | scale | range |", "|---|---|---|"]
    lines += [f"| {key} | {d.kind} | {d.format(d.low)} – {d.format(d.high)} |" for key, d in space.items()]
    lines += widening_lines(drawn, space)
    for m in names:
        stopped = f"; {len(pruned[m])} more pruned early: trials {', '.join(str(r['trial']) for r in pruned[m])}" \
            if pruned.get(m) else ""
        lines += ["", (f"**{m}** ({len(by_mechanism[m])} trials trained in full{stopped}; the best, in bold, is what "
                       "every seed trains with):"), "",
                  "| trial | " + " | ".join(space) + " | updates | stopped by | dev BLEU |",
                  "|---|" + "---|" * (len(space) + 3)]
        for r in by_mechanism[m]:
            values = dict(r["values"])
            best = m in chosen and tuple((k, str(v)) for k, v in r["values"]) == chosen[m]
            score = f"**{r['dev_bleu']:.2f}**" if best else f"{r['dev_bleu']:.2f}"
            steps = f"{int(r['steps']):,}" if r.get("steps") is not None else "–"
            lines.append(f"| {r.get('trial')} | " + " | ".join(str(values.get(k, "")) for k in space)
                         + f" | {steps} | {stopped_by(r.get('stop_reason'))} | {score} |")
    lines += budget_lines(curves, names, at_edge, at_end)
    (out_dir / "tune.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return chosen


def recorded_tuning(out_dir: Path, base: RunConfig) -> tuple[list[str], Space] | None:
    """The mechanisms and the search space that out_dir/tune.json records, as `write_tune_report` takes them
    (None without a tune.json): `translate compare --report-only` writes tune.md and tune.json again from
    the trials, under the rules of this version (the edge rule, the budget curves)."""
    path = out_dir / "tune.json"
    if not path.is_file():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        dimensions = {key: Dimension(str(d["kind"]), float(d["low"]), float(d["high"]))
                      for key, d in saved["space"].items()}
        mechanisms = [str(m) for m in saved["trials"]]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ConfigError(f"{path}: not a tune.json written by `translate compare --tune` ({error!r})") from None
    space = {key: Dimension(d.kind, d.low, d.high, domain_ends(key, d, base)) for key, d in dimensions.items()}
    return mechanisms, space
