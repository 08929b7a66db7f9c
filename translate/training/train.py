"""Starting, resuming and finishing a run: one process, or one per torchrun worker (data-parallel)."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from translate.checkpoint.files import TRAINER
from translate.checkpoint.store import Loaded, load_checkpoint, load_trainer_state
from translate.config.device import resolve_device
from translate.config.loading import load_config, save_config
from translate.config.schema import RunConfig
from translate.data.corpus import PreparedData, prepare_data
from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError, TranslateError
from translate.model import build_model
from translate.training.distributed import Dist, from_environment, threads_per_process
from translate.training.progress import TrainState
from translate.training.resume import check_resume, init_source
from translate.training.run_dir import RunFiles, discard_checkpoints, disk_errors, lock_run
from translate.training.signals import StopSignals, stop_signals
from translate.training.trainer import Trainer, Validated

logger = logging.getLogger(__name__)


@dataclass
class TrainResult:
    run_dir: Path
    state: TrainState
    stop_reason: str
    parameters: int
    best_bleu: float
    history: list[dict[str, Any]]


def set_seed(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def train(cfg: RunConfig, resume: bool = False, on_validation: Validated | None = None) -> TrainResult:
    """Train (or resume) the run `cfg.run_dir`; returns when a budget or early stopping ends it.
    Under torchrun every process calls this; only the main one writes to the run folder.
    `on_validation` gets each periodic validation's record (step, dev_bleu, ...) after its checkpoints
    are saved; an exception it raises ends the run there (one process only: the others would wait)."""
    files = RunFiles(cfg.run_dir, cfg.train.tensorboard)
    dist = from_environment(resolve_device(cfg.device).type)
    try:
        with lock_run(files.root) if dist.main else contextlib.nullcontext(), disk_errors(), stop_signals() as signals:
            return _train(cfg, resume, files, dist, on_validation, signals)
    finally:
        dist.close()


def _train(cfg: RunConfig, resume: bool, files: RunFiles, dist: Dist, on_validation: Validated | None,
           signals: StopSignals) -> TrainResult:
    if resume:
        trainer = _resume_trainer(cfg, files, dist)
    else:
        cfg, init = init_source(cfg)
        trainer = _new_trainer(cfg, files, init, dist)
    trainer.on_validation, trainer.signals = on_validation, signals
    if dist.main:
        save_config(cfg, files.root / "config.yaml")
    try:
        reason = trainer.run()
    except KeyboardInterrupt:
        if dist.main and trainer.between_updates:
            trainer.save("last", {"interrupted": True}, with_trainer=True)
            files.log_line(f"interrupted at step {trainer.state.step}; resume with: translate train --resume {files.root}")
        elif dist.main:
            files.log_line(f"interrupted during the update after step {trainer.state.step} (a second stop signal): "
                           f"no checkpoint written, {_kept(files.root)}")
        raise
    if dist.main:
        _finish(trainer, reason)
    dist.barrier()
    return TrainResult(files.root, trainer.state, reason, trainer.model.num_parameters(), trainer.state.best_bleu,
                       trainer.history)


def train_or_resume(cfg: RunConfig, on_validation: Validated | None = None) -> TrainResult:
    """Resume the run when its folder holds training state, else train it from the start: a folder whose
    process died after the first best/ checkpoint and before the first last/ one holds no state to resume."""
    resume = resumable(cfg.run_dir)
    if not resume:
        discard_checkpoints(cfg.run_dir)
    logger.info("== %s: %s", cfg.name, "resuming" if resume else "training")
    return train(cfg, resume=resume, on_validation=on_validation)


def resumable(run_dir: Path) -> bool:
    """Whether the run folder holds training state to resume from (last/, or last.old/ when a save was
    interrupted mid-swap)."""
    return any((run_dir / name / TRAINER).is_file() for name in ("last", "last.old"))


def _kept(run_dir: Path) -> str:
    if resumable(run_dir):
        return f"resume from the last checkpoint with: translate train --resume {run_dir}"
    return "none was written before: train the run again"


def _finish(trainer: Trainer, reason: str) -> None:
    """The main process: a last validation, averaging, the final checkpoint and the summary."""
    if not trainer.history or trainer.history[-1]["step"] != trainer.state.step:
        trainer.validate()  # the final weights always get a dev score
    averaged = trainer.finish()
    trainer.save("last", {"stop_reason": reason}, with_trainer=True)
    state, files = trainer.state, trainer.files
    where = (f"the average of steps {', '.join(map(str, averaged))}" if averaged  # best_step stays the last gain
             else f"step {state.best_step}")
    files.log_line(f"stopped: {reason}; best dev BLEU {state.best_bleu:.2f}: {where}")
    files.write_json("train_summary.json", {"stop_reason": reason, "parameters": trainer.model.num_parameters(),
                                            "state": dataclasses.asdict(state), "history": trainer.history})


def _threads(cfg: RunConfig, dist: Dist) -> None:
    """train.threads, else the cores shared among the processes on this machine."""
    if cfg.train.threads or dist.active:
        torch.set_num_threads(cfg.train.threads or threads_per_process(dist.local_world))


def _prepared(cfg: RunConfig, dist: Dist, tokenizers: tuple[Tokenizer, Tokenizer] | None) -> PreparedData:
    """The main process prepares (and caches) the data first; the others then read the cache. When the
    main one refuses the data or tokenizer settings, every process learns it from one collective: the
    main one reports the error, the others leave quietly (exit 1), so it is printed once, as without
    torchrun, instead of a traceback per process."""
    data, failure = None, None
    if dist.main:
        try:
            data = prepare_data(cfg.data, cfg.tokenizer, tokenizers)
        except TranslateError as exc:
            failure = exc
    if dist.any(failure is not None):
        if failure is not None:
            raise failure
        raise SystemExit(1)
    return data if data is not None else prepare_data(cfg.data, cfg.tokenizer, tokenizers)


def _new_trainer(cfg: RunConfig, files: RunFiles, init: Loaded | None, dist: Dist) -> Trainer:
    _threads(cfg, dist)
    set_seed(cfg.train.seed)
    if dist.main:
        files.prepare_new()
    dist.barrier()
    data = _prepared(cfg, dist, None if init is None else (init.src_tokenizer, init.tgt_tokenizer))
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer)) if init is None else init.model
    for feature in model.decoder.features:  # what a feature learns from the vocabularies (copy: which pieces both hold)
        feature.setup(data.src_tokenizer, data.tgt_tokenizer, cfg.data.tgt_lang)
    if dist.active:
        torch.manual_seed(cfg.train.seed + dist.rank)  # same initial weights, different dropout per process
    own_attention = " (attention: this run's model.attention)" if cfg.train.init_attention == "config" else ""
    lines = [*data.report, *([(f"fine-tuning {init.path} (step {init.meta.get('step')}): its weights, tokenizers "
                              f"and model settings{own_attention}")] if init is not None else []),
             (f"model: {model.num_parameters():,} parameters; attention {cfg.model.mechanism}; "
              f"{cfg.model.rnn_type} hidden {cfg.model.hidden_size}"),
             *([f"data-parallel: {dist.world} processes"] if dist.active else [])]
    for line in lines if dist.main else []:
        files.log_line(line)
    return Trainer(cfg, data, model, files, dist)


def _resume_trainer(cfg: RunConfig, files: RunFiles, dist: Dist) -> Trainer:
    """Rebuild the run from last/: refuse changed model/data settings, apply and record the rest."""
    _threads(cfg, dist)
    last = files.root / "last"
    if not resumable(files.root):
        raise CheckpointError(f"cannot resume {files.root}: no last/ checkpoint with training state")
    changes = check_resume(load_config(files.root / "config.yaml"), cfg)
    loaded = load_checkpoint(last)
    stored = loaded.artifact.to_dict()["model"]  # what a checkpoint keeps of the model settings (its kind's only)
    if stored != cfg.artifact().to_dict()["model"] or loaded.artifact.direction != cfg.data.direction:
        raise CheckpointError(f"{loaded.path}: its model or direction differs from {files.root / 'config.yaml'}; "
                              f"the run folder was edited by hand")
    saved = load_trainer_state(loaded.path)
    check_world_size(TrainState.from_json(saved["state"]), dist.world)
    data = _prepared(cfg, dist, (loaded.src_tokenizer, loaded.tgt_tokenizer))
    trainer = Trainer(cfg, data, loaded.model, files, dist)
    trainer.restore(saved)
    trainer.state.world_size = dist.world
    if dist.active:
        torch.manual_seed(cfg.train.seed + dist.rank + trainer.state.step)
    if any(key.startswith("train.") for key in changes):
        trainer.apply_optimizer_settings()
    if dist.main:
        dropped = files.drop_records_after(trainer.state.step)  # trained again from here: recorded once
        for key, (old, new) in changes.items():
            files.log_line(f"resume: {key} changed from {old!r} to {new!r}")
        files.log_record({"kind": "resume", "step": trainer.state.step, "changes": {k: list(v) for k, v in changes.items()}})
        files.log_line(f"resumed at step {trainer.state.step} (epoch {trainer.state.epoch}, "
                       f"batch {trainer.state.batch_in_epoch})"
                       + (f"; {dropped} metrics.jsonl records of later steps dropped (they train again)" if dropped else ""))
    return trainer


def check_world_size(state: TrainState, world: int) -> None:
    """The saved data position counts each process's steps: another number of processes resumes
    elsewhere, unless the run stopped at an epoch boundary."""
    if state.world_size != world and state.batch_in_epoch != 0:
        raise CheckpointError(f"the run was trained with {state.world_size} process(es) and stopped inside an epoch; "
                              f"resume it with {state.world_size} (torchrun --nproc-per-node {state.world_size}), "
                              f"not {world}")
