"""`translate compare`: train attention mechanisms side by side and rank them (translate.study)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from translate.cli.common import (
    ConfigOpt,
    DataDirOpt,
    DirectionOpt,
    SetOpt,
    handle_errors,
    quiet_datasets,
    resolve_config,
)
from translate.errors import ConfigError
from translate.study.presets import study_presets

MechanismsOpt = Annotated[str, typer.Option(
    help=f"Comma-separated presets of the study (translate/study/presets.py), or 'all': {', '.join(study_presets())}.")]
ListOpt = Annotated[bool, typer.Option("--list", help="Print the presets, one per line (the registry's order), and exit.")]
OutOpt = Annotated[Path, typer.Option(help=(
    "Output folder: tables, plots and each run's small results (scores, curves, hypotheses, attention matrices; "
    "no weights), safe to commit."))]
WorkOpt = Annotated[Path | None, typer.Option(help="Where the runs themselves (with weights) go; default <out>/runs.")]
ReportOnlyOpt = Annotated[bool, typer.Option(
    "--report-only", help="Only rewrite the tables and plots from the finished runs in <out>/runs/ (and, after --tune, "
    "tune.md and tune.json from its trials).")]
VerifyOpt = Annotated[bool, typer.Option(
    "--verify", help=("Retrain each finished run in <out>/runs/ (of --mechanisms and --seeds; study budget and --set) up "
                      "to its first validation and say whether its training losses and dev BLEU reproduce the committed "
                      "ones; exit 1 if one does not."))]
SweepOpt = Annotated[list[str] | None, typer.Option(
    "--sweep", metavar="KEY=V1,V2,...", help=(
        "Tune each mechanism on dev first: train every combination of the swept values (repeat the option for several "
        "keys) with the first seed, then all seeds with the combination best on dev BLEU. The test split is read only "
        "for the final table. E.g. --sweep train.learning_rate=5e-4,1e-3,2e-3"))]
TuneOpt = Annotated[int | None, typer.Option(
    "--tune", metavar="N", min=1, help=(
        "Tune each mechanism on dev first with Optuna's TPE sampler: N trials per mechanism, each one run of the study's "
        "budget with the first seed (the same budget in updates for every mechanism), values drawn from --space; then "
        "all seeds train with the best trial's values. tune.md shows every trial, the expected best dev BLEU after n "
        "trials and the values chosen at an edge of their range. Resumes from <out>/tune/optuna.db."))]
SpaceOpt = Annotated[list[str] | None, typer.Option(
    "--space", metavar="KEY=KIND:LOW:HIGH", help=(
        "--tune's search space, KIND log, float or int (repeat for several keys); default: "
        "train.learning_rate=log:1e-4:1e-2, data.batch_tokens=int:300:2400, model.dropout=float:0.1:0.5, "
        "train.warmup_steps=int:0:1000"))]
TuneBaseOpt = Annotated[bool, typer.Option(
    "--tune-base/--no-tune-base", help=(
        "--tune's first trial for each mechanism is the configuration's own values (clipped into --space), so the "
        "tuner's choice is never worse on dev than training without it; it counts as one of the N trials. Applies "
        "when a mechanism's trials begin (a resumed study keeps its first trial)."))]
JobsOpt = Annotated[int, typer.Option(min=1, help=(
    "Runs at a time, each in its own worker process; the cores are shared among them (train.threads per run, if set). "
    "A study gives the same results with any --jobs for the same threads per run."))]
ExecutorOpt = Annotated[str, typer.Option(
    "--executor", metavar="local|ray", help=(
        "local: runs in this process (--jobs 1) or in --jobs worker processes; ray: each run a task of a Ray cluster "
        "(--address, else a Ray started here), asking for train.threads CPUs (default 1) and --gpus-per-run; results "
        "come back to --out without a shared disk. Ray: pip install 'translate\\[ray]'."))]
AddressOpt = Annotated[str | None, typer.Option(help="The Ray cluster to use (e.g. 127.0.0.1:6379); --executor ray.")]
GpusOpt = Annotated[float, typer.Option(
    "--gpus-per-run", min=0.0, help="GPU fraction each run asks Ray for: 0.25 packs four runs on one GPU; --executor ray.")]
BudgetTokensOpt = Annotated[int | None, typer.Option(min=1, help=(
    "Training budget per run, in target tokens (train.max_tokens): the same data for every batch size, so a "
    "tuned batch cannot buy more of it. Needed with --tune when the space holds data.batch_tokens; with --steps "
    "too, the update cap is a safety net."))]
UntilResolvedOpt = Annotated[bool, typer.Option("--until-resolved", help=(
    "After the planned seeds, add one seed at a time to the mechanisms of the declared questions (questions.tsv) "
    "that are neither decided nor equivalent, until each is or its sides have --max-seeds; every look tests at "
    "Pocock's level for the looks allowed, so looking again does not inflate the error rate."))]
MaxSeedsOpt = Annotated[int, typer.Option(min=2, help="With --until-resolved: the most seeds a side.")]
DeviateOpt = Annotated[str | None, typer.Option(metavar="REASON", help=(
    "Why this command departs from the study's plan (plan.json, written before its first run): recorded with "
    "the change and its time, and listed in every report. Without it a change is recorded as 'none given'."))]
StatusOpt = Annotated[bool, typer.Option(
    "--status", help="List every run of the study in --out (pending, running where, done, failed and why, interrupted) "
                     "and exit.")]


@handle_errors
def compare(mechanisms: MechanismsOpt = "all", list_presets: ListOpt = False,
            minutes: Annotated[float | None, typer.Option(help="Training budget per run, in minutes.")] = None,
            steps: Annotated[int | None, typer.Option(help="Training budget per run, in updates.")] = None,
            budget_tokens: BudgetTokensOpt = None,
            seeds: Annotated[str, typer.Option(help="Comma-separated seeds; several give mean ± std.")] = "1",
            out: OutOpt = Path("runs/compare"), work: WorkOpt = None, report_only: ReportOnlyOpt = False,
            verify: VerifyOpt = False, sweep: SweepOpt = None, tune: TuneOpt = None, space: SpaceOpt = None,
            tune_base: TuneBaseOpt = True,
            jobs: JobsOpt = 1,
            executor: ExecutorOpt = "local", address: AddressOpt = None, gpus_per_run: GpusOpt = 0.0,
            status: StatusOpt = False, config: ConfigOpt = None, set_: SetOpt = None, data_dir: DataDirOpt = None,
            direction: DirectionOpt = None, deviate: DeviateOpt = None, until_resolved: UntilResolvedOpt = False,
            max_seeds: MaxSeedsOpt = 8) -> None:
    """Train each attention mechanism with the same data, seed, size and budget; rank them by test BLEU.

    Writes results.md/.csv/.json (test BLEU and chrF mean ± std over seeds, 95 % bootstrap intervals,
    p-values against `none` and against the best, attention entropy and sharpness, BLEU by source
    length), bleu.png, dev_bleu_curves.png, bleu_by_length.png and heatmaps.png. Rerun the same
    command to resume: runs whose results exist in <out>/runs/ are reused, even without their weights.
    With --jobs N, N runs train at a time in worker processes (a worker that dies has its run resumed in
    another); --status lists each run's state from another terminal. A failed run is reported, the others
    go on, and the command exits 1 naming it.

    Example:
      translate compare --steps 6000 --mechanisms none,additive,dot \\
        --seeds 1,2,3 --out docs/compare-study --work runs/compare-study
      translate compare --budget-tokens 6000000 --mechanisms additive,dot --tune 12 --seeds 1,2,3 --jobs 2 --out docs/tuned
      translate compare --status --out docs/compare-study
    """
    if list_presets:
        typer.echo("\n".join(study_presets()))
        return
    if status:
        from translate.study.status import status_table

        typer.echo(status_table(out))
        return
    from translate.study.compare import compare as run_compare
    from translate.study.compare import parse_mechanisms, rebuild_report

    if report_only and verify:
        raise typer.BadParameter("--verify retrains runs; --report-only trains none: give one", param_hint="'--verify'")
    if report_only:
        quiet_datasets()
        result_dir = rebuild_report(resolve_config(config, set_, data_dir=data_dir, direction=direction), out)
        typer.echo((result_dir / "results.md").read_text(encoding="utf-8"))
        return
    if minutes is None and steps is None and budget_tokens is None:
        raise typer.BadParameter("give a budget: --minutes, --steps or --budget-tokens",
                                 param_hint="--minutes/--steps/--budget-tokens")
    seed_list, names = _seeds(seeds), parse_mechanisms(mechanisms)
    quiet_datasets()
    cfg = resolve_config(config, set_, data_dir=data_dir, direction=direction, max_minutes=minutes, max_steps=steps,
                         max_tokens=budget_tokens)
    if verify:
        _verify(cfg, names, seed_list, out, work)
        return
    from translate.study.sweep import parse_sweep

    result_dir = run_compare(cfg, names, seed_list, out, work, _executor(executor, jobs, cfg.train.threads, address,
                                                                         gpus_per_run),
                             parse_sweep(sweep or [], cfg) or None, _tuning(tune, space, cfg, tune_base),
                             deviate=deviate, until_resolved=max_seeds if until_resolved else None)
    typer.echo((result_dir / "results.md").read_text(encoding="utf-8"))
    typer.echo(f"tables and plots in {result_dir}")


def _tuning(trials: int | None, space: list[str] | None, cfg: Any, from_base: bool = True) -> Any:
    """--tune and --space as the study's Tuning (None without --tune)."""
    from translate.study.compare import Tuning
    from translate.study.tune import DEFAULT_SPACE, parse_space

    if trials is None:
        if space:
            raise typer.BadParameter("--space is the search space of --tune: give --tune N too", param_hint="'--space'")
        return None
    searched = parse_space(space or DEFAULT_SPACE, cfg)
    if "data.batch_tokens" in searched and not cfg.train.max_tokens:
        raise typer.BadParameter("the space searches data.batch_tokens: give the budget in tokens (--budget-tokens), "
                                 "so that a larger batch cannot buy more training data than a smaller one",
                                 param_hint="'--budget-tokens'")
    return Tuning(trials, searched, from_base)


def _seeds(text: str) -> list[int]:
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise typer.BadParameter(f"'{text}': expected comma-separated integers", param_hint="--seeds") from None


def _verify(cfg: Any, names: list[str], seeds: list[int], out: Path, work: Path | None) -> None:
    """--verify: say whether the committed runs reproduce; exit 1 if one does not."""
    from translate.study.verify import verify as run_verify

    verdicts = run_verify(cfg, names, seeds, out, work)
    for verdict in verdicts:
        typer.echo(f"{verdict.run}: {verdict.detail}")
    if not verdicts:
        raise typer.BadParameter(f"no finished runs of these mechanisms and seeds in {out / 'runs'}", param_hint="--verify")
    if not all(v.reproduces for v in verdicts):
        raise typer.Exit(1)


def _executor(kind: str, jobs: int, threads: int, address: str | None, gpus: float) -> Any:
    """Where a study's runs execute: here one after another, in `jobs` local worker processes, or on Ray."""
    from translate.study.executors import LocalWorkers, RayCluster, Sequential

    if kind not in ("local", "ray"):
        raise typer.BadParameter(f"'{kind}': choose local or ray", param_hint="'--executor'")
    if kind == "local" and (address or gpus):
        raise typer.BadParameter("--address and --gpus-per-run are for --executor ray", param_hint="'--executor'")
    if kind == "ray":
        if jobs != 1:
            raise typer.BadParameter("Ray runs as many runs at a time as the cluster has room for; drop --jobs",
                                     param_hint="'--jobs'")
        return RayCluster(address, threads or 1, gpus)
    if jobs == 1:
        return Sequential()
    return LocalWorkers(jobs, threads or max(1, (os.cpu_count() or 1) // jobs))


StudiesArg = Annotated[list[Path], typer.Argument(help="Study folders (what translate compare --out wrote), e.g. docs/compare-*.")]
WriteOpt = Annotated[Path | None, typer.Option(help=(
    "Replace the generated block of this Markdown file (between its orderings markers) instead of printing."))]


@handle_errors
def summary(studies: StudiesArg, write: WriteOpt = None) -> None:
    """What the studies say, generated from their results.json alone: per study its direction, runs stopped by
    patience and by their cap, and each declared question decided (which side, by how much, Holm p),
    equivalent (within the margin) or not resolved (with the seeds 80 % power needs). The README's orderings
    are this text; a test compares them.

    Examples:
      translate summary docs/compare-*
      translate summary docs/compare-* --write README.md
    """
    from translate.study.summary import block, committed_block

    generated = block(studies)
    if write is None:
        typer.echo(generated)
        return
    text = write.read_text(encoding="utf-8")
    old = committed_block(text)
    if old is None:
        raise ConfigError(f"{write}: holds no generated block (its markers); add them where the summary goes")
    write.write_text(text.replace(old, generated), encoding="utf-8")
    typer.echo(f"wrote the summary of {len(studies)} studies into {write}")
