"""Restoring a committed study: its runs retrained where the files they were committed without (hypotheses,
attention matrices) are missing, kept only where the retrain reproduces the committed scores."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.machine import cpu_model
from translate.study.compare import check_settings, evaluate_run, rebuild_report, study_run_config
from translate.study.report import RunFigures, lacking_files
from translate.study.sweep import chosen_values
from translate.training.trainer import Validated

logger = logging.getLogger(__name__)


RESTORED_FILES = ("dev.hyp.txt", "test.hyp.txt", "attention.json", "config.yaml")
REPRODUCED = ("steps", "best_step", "dev_bleu", "test_bleu", "test_chrf")  # equal, or a retrain is another model


class NotReproduced(Exception):
    """A retrain's dev BLEU left the committed curve: it is another model, no use training it on."""


def follow_curve(curve: list[tuple[float, float]]) -> Validated:
    """A validation hook that stops a retrain at the first step of the committed curve whose dev BLEU differs."""
    expected = {int(step): float(bleu) for step, bleu in curve}

    def check(record: dict[str, Any]) -> None:
        step, bleu = int(record["step"]), float(record["dev_bleu"])
        if step in expected and bleu != expected[step]:
            raise NotReproduced(f"dev BLEU {expected[step]} -> {bleu} at step {step}")
    return check


def other_cpu(committed: RunFigures) -> str:
    """Why a retrain may differ: "" where the committed run was trained on this CPU model (or says not where)."""
    trained_on, here = committed.machine.partition(", ")[0], cpu_model()
    if not trained_on or trained_on == here:
        return ""
    return (f"; it was trained on {trained_on} and this machine has {here}: another CPU model rounds some float "
            "sums otherwise, so restore it on the CPU model it was trained on")


def restore(base: RunConfig, mechanisms: list[str], seeds: list[int], out_dir: Path, work_dir: Path | None = None) -> list[str]:
    """Retrain the finished runs of out_dir/runs/ whose hypotheses or attention matrices are missing (a study
    committed before they were kept) and add those files, provided the retrain reproduces the committed
    scores (same seed, data, budget and training code: CPU training is deterministic); returns the runs
    restored. A run already trained in work_dir (e.g. by the code of the study's time) is evaluated, not retrained.

    The committed compare.json stays (its minutes and speeds are the original run's). A retrain that scores
    otherwise is another model: its files stay in work_dir/<run>/restored/ and a ConfigError names it once
    the other runs are done. One whose dev BLEU leaves the committed curve stops at that validation, and its
    folder moves to work_dir/<run>.not-reproduced/ (a later restore trains it afresh)."""
    work_dir = work_dir or out_dir / "runs"
    check_settings(base, mechanisms, seeds, out_dir, work_dir)
    restored, differing = [], []
    for mechanism in mechanisms:
        for seed in seeds:
            results = out_dir / "runs" / f"{mechanism}-seed{seed}"
            if not (results / "compare.json").is_file():
                continue
            committed = RunFigures.load(results / "compare.json")
            if not lacking_files(committed, results):
                continue
            cfg = study_run_config(base, mechanism, seed, work_dir, chosen_values(out_dir).get(mechanism, ()))
            scratch = cfg.run_dir / "restored"
            try:
                again = evaluate_run(cfg, mechanism, seed, scratch, follow_curve(committed.curve))
            except NotReproduced as error:
                aside = cfg.run_dir.with_name(f"{cfg.run_dir.name}.not-reproduced")
                shutil.rmtree(aside, ignore_errors=True)
                cfg.run_dir.rename(aside)
                logger.error("== %s: the retrain is another model (%s); stopped there, its run moved to %s%s",
                             results.name, error, aside, other_cpu(committed))
                differing.append(results.name)
                continue
            changed = [f"{k} {getattr(committed, k)} -> {getattr(again, k)}" for k in REPRODUCED
                       if getattr(committed, k) != getattr(again, k)]
            if changed:
                logger.error("== %s: the retrain is another model (%s); its files are in %s%s", results.name,
                             ", ".join(changed), scratch, other_cpu(committed))
                differing.append(results.name)
                continue
            for name in RESTORED_FILES:
                if (scratch / name).is_file():
                    shutil.copyfile(scratch / name, results / name)
            restored.append(results.name)
            logger.info("== %s: reproduced (test BLEU %.2f); %s added", results.name, again.test_bleu,
                        ", ".join(n for n in RESTORED_FILES if (results / n).is_file()))
            rebuild_report(base, out_dir)
    if differing:
        raise ConfigError(f"retraining did not reproduce the committed scores of {', '.join(differing)} "
                          f"(same seed and budget as in {out_dir / 'runs'}? see the log); nothing added for them")
    return restored
