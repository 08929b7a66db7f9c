"""`translate compare --verify`: does today's code still train a study's committed runs as they were
trained? Each run is retrained (same seed, data and budget: the study's --steps and --set) up to its
first validations only, and its per-update training losses (the committed metrics.jsonl) and dev BLEU
there are compared with the committed ones. A retrain on another CPU model may round some float sums
otherwise; the verdict says so when the run was trained elsewhere.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.config.schema import RunConfig
from translate.machine import cpu_model
from translate.study.compare import check_settings, study_run_config
from translate.study.measure import train_or_reuse
from translate.study.report import RunFigures
from translate.study.sweep import chosen_values

logger = logging.getLogger(__name__)


def other_cpu(committed: RunFigures) -> str:
    """Why a retrain may differ: "" where the committed run was trained on this CPU model (or says not where)."""
    trained_on, here = committed.machine.partition(", ")[0], cpu_model()
    if not trained_on or trained_on == here:
        return ""
    return (f"; it was trained on {trained_on} and this machine has {here}: another CPU model rounds some float "
            "sums otherwise, so verify it on the CPU model it was trained on")


class _Enough(Exception):
    """The retrain has reached the validations to compare: it stops there."""


@dataclass(frozen=True)
class Verdict:
    run: str
    reproduces: bool
    detail: str


def _losses(metrics: Path, up_to: int) -> dict[int, float]:
    """Training loss by step up to a step, from a run's metrics.jsonl ({} if it has none)."""
    if not metrics.is_file():
        return {}
    records = [json.loads(line) for line in metrics.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {int(r["step"]): float(r["loss"]) for r in records if r.get("kind") == "train" and int(r["step"]) <= up_to}


def verify_run(base: RunConfig, results: Path, scratch: Path, validations: int = 1) -> Verdict:
    """Retrain the committed run in `results` into `scratch` up to its first `validations` validations."""
    committed = RunFigures.load(results / "compare.json")
    curve = [(int(step), float(bleu)) for step, bleu in committed.curve][:validations]
    if not curve:
        return Verdict(results.name, False, "its committed curve holds no validation to compare")
    tuned = chosen_values(results.parent.parent).get(committed.mechanism, ())  # a swept study's chosen values
    cfg = study_run_config(base, committed.mechanism, committed.seed, scratch, tuned)
    seen: list[tuple[int, float]] = []

    def record(entry: dict[str, Any]) -> None:
        seen.append((int(entry["step"]), float(entry["dev_bleu"])))
        if len(seen) >= len(curve):
            raise _Enough
    shutil.rmtree(cfg.run_dir, ignore_errors=True)
    try:
        train_or_reuse(cfg, record)
    except _Enough:
        pass
    last = curve[-1][0]
    expected, got = _losses(results / "metrics.jsonl", last), _losses(cfg.run_dir / "metrics.jsonl", last)
    moved = [f"training loss at step {step}: {expected[step]} -> {got.get(step)}" for step in sorted(expected)
             if got.get(step) != expected[step]]
    moved += [f"dev BLEU at step {a[0]}: {a[1]} -> {b[1] if b[0] == a[0] else f'(step {b[0]}) {b[1]}'}"
              for a, b in zip(curve, seen) if a != b]
    checked = (f"{len(expected)} logged training losses and " if expected else "") + \
        f"dev BLEU at step{'s' if len(curve) > 1 else ''} " + ", ".join(str(step) for step, _ in curve)
    if moved:
        return Verdict(results.name, False, f"differs: {moved[0]}" + (f" (and {len(moved) - 1} more)" if len(moved) > 1
                                                                       else "") + other_cpu(committed))
    return Verdict(results.name, True, f"reproduces {checked}")


def verify(base: RunConfig, mechanisms: list[str], seeds: list[int], out_dir: Path, work_dir: Path | None = None,
           validations: int = 1) -> list[Verdict]:
    """Every committed run of out_dir/runs/ among mechanisms × seeds, retrained into work_dir/verify/."""
    check_settings(base, mechanisms, seeds, out_dir, work_dir or out_dir / "runs")
    scratch = (work_dir or out_dir / "runs") / "verify"
    verdicts = []
    for mechanism in mechanisms:
        for seed in seeds:
            results = out_dir / "runs" / f"{mechanism}-seed{seed}"
            if (results / "compare.json").is_file():
                verdicts.append(verify_run(base, results, scratch, validations))
                logger.info("== %s: %s", verdicts[-1].run, verdicts[-1].detail)
    return verdicts
