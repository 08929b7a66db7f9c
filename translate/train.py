"""Training: batch -> loss -> backward -> clip -> step -> log -> validate -> keep best; resumable."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from translate.checkpoint import Loaded, load_checkpoint, load_trainer_state, save_checkpoint
from translate.config import RunConfig
from translate.config_io import load_config, save_config
from translate.data.batch import Batch
from translate.data.batching import BatchStream
from translate.data.corpus import PreparedData, prepare_data
from translate.device import resolve_device
from translate.errors import CheckpointError, TrainingError
from translate.loss import LossOutput, compute_loss, dev_loss, lr_factor
from translate.metrics import corpus_bleu
from translate.model import Seq2Seq, build_model
from translate.progress import Meter, TrainState, eta
from translate.resume import check_resume, init_source
from translate.run_dir import RunFiles, average_weights, disk_errors, lock_run
from translate.translator import Translator

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


def make_optimizer(model: Seq2Seq, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with the fused kernel (one op for all parameters: +3 % pairs/s on 2 CPU threads), where available."""
    try:
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, fused=True)
    except (RuntimeError, TypeError):  # a device or torch without the fused kernel
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


class Trainer:
    """Holds the pieces of one run; `run()` is the loop."""

    def __init__(self, cfg: RunConfig, data: PreparedData, model: Seq2Seq, files: RunFiles) -> None:
        self.cfg, self.data, self.files = cfg, data, files
        self.device = resolve_device(cfg.device)
        self.model = model.to(self.device)
        self.optimizer = make_optimizer(model, cfg.train.learning_rate, cfg.train.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: lr_factor(s, self.cfg.train))
        self.state = TrainState()
        self.stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, cfg.train.seed)
        self.dev_stream = BatchStream(data.dev.ids, cfg.data.batch_tokens, 1, 0)
        self.translator = Translator(model, data.src_tokenizer, data.tgt_tokenizer, cfg.decode,
                                     cfg.data.src_lang, cfg.data.tgt_lang)
        self.history: list[dict[str, Any]] = []
        self._epoch_batches: tuple[int, list[list[int]]] | None = None

    # ------------------------------------------------------------------ state in and out
    def trainer_state(self) -> dict[str, Any]:
        return {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                "state": json.dumps(dataclasses.asdict(self.state)), "torch_rng": torch.get_rng_state(),
                "history": json.dumps(self.history)}

    def restore(self, trainer: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(trainer["optimizer"])
        self.scheduler.load_state_dict(trainer["scheduler"])
        self.state = TrainState.from_json(trainer["state"])
        self.history = json.loads(trainer.get("history", "[]"))
        torch.set_rng_state(trainer["torch_rng"])

    def apply_optimizer_settings(self) -> None:
        """Make a changed learning rate / weight decay take effect over the restored optimizer state."""
        lr = self.cfg.train.learning_rate
        self.scheduler.base_lrs = [lr for _ in self.optimizer.param_groups]
        for group in self.optimizer.param_groups:
            group["initial_lr"], group["weight_decay"] = lr, self.cfg.train.weight_decay
            group["lr"] = lr * lr_factor(self.scheduler.last_epoch, self.cfg.train)

    def save(self, name: str, extra: dict[str, Any] | None = None, with_trainer: bool = False) -> None:
        meta = {"step": self.state.step, "epoch": self.state.epoch, "provenance": self.provenance(), **(extra or {})}
        save_checkpoint(self.files.root / name, self.cfg.artifact(), self.model, self.data.src_tokenizer,
                        self.data.tgt_tokenizer, meta, self.trainer_state() if with_trainer else None)

    def provenance(self) -> dict[str, Any]:
        """Plain facts about the training, for meta.json (never read back as paths or settings)."""
        data = self.cfg.data
        corpus = data.hf_name or (Path(data.data_dir).name if data.data_dir else "tatoeba-cmn-eng (bundled)")
        return {"run": self.cfg.name, "corpus": corpus, "train_split": data.train, "train_pairs": len(self.stream),
                "updates": self.state.step, "training_minutes": round(self.state.seconds / 60, 1),
                "target_tokens": self.state.target_tokens, "seed": self.cfg.train.seed}

    # ------------------------------------------------------------------ the loop
    def next_batch(self) -> Batch:
        """The batch at the saved data position (epoch, batch_in_epoch); `advance()` moves past it."""
        if self._epoch_batches is None or self._epoch_batches[0] != self.state.epoch:
            self._epoch_batches = (self.state.epoch, self.stream.epoch_batches(self.state.epoch))
        return self.stream.batch(self._epoch_batches[1][self.state.batch_in_epoch]).to(self.device)

    def advance(self) -> None:
        self.state.batch_in_epoch += 1
        assert self._epoch_batches is not None
        if self.state.batch_in_epoch >= len(self._epoch_batches[1]):
            self.state.epoch += 1
            self.state.batch_in_epoch = 0

    def train_step(self, batch: Batch) -> LossOutput | None:
        out = compute_loss(self.model, batch, self.cfg.train.label_smoothing)
        if not torch.isfinite(out.loss):
            self.state.bad_losses += 1
            self.state.skipped_batches += 1
            self.optimizer.zero_grad(set_to_none=True)
            if self.state.bad_losses >= self.cfg.train.max_bad_losses:
                raise TrainingError(f"loss was NaN/inf for {self.state.bad_losses} batches in a row at step "
                                    f"{self.state.step}; lower train.learning_rate (now {self.cfg.train.learning_rate})")
            logger.warning("non-finite loss at step %d: batch skipped", self.state.step)
            return None
        self.state.bad_losses = 0
        self.optimizer.zero_grad(set_to_none=True)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.train.clip_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.state.step += 1
        self.state.target_tokens += out.tokens
        self.state.sentence_pairs += out.sentences
        return out

    def stop_reason(self, started: float, start_seconds: float) -> str | None:
        train = self.cfg.train
        if train.max_steps and self.state.step >= train.max_steps:
            return f"reached train.max_steps={train.max_steps}"
        if train.max_minutes and start_seconds + time.monotonic() - started >= train.max_minutes * 60:
            return f"reached the time budget of {train.max_minutes:g} minutes"
        if train.max_epochs and self.state.epoch >= train.max_epochs:
            return f"reached train.max_epochs={train.max_epochs}"
        if train.patience and self.state.validations_without_gain >= train.patience:
            return f"early stopping: no dev BLEU gain in {train.patience} validations"
        return None

    def run(self) -> str:
        meter, train = Meter(), self.cfg.train
        started, start_seconds = time.monotonic(), self.state.seconds
        self.model.train()
        while not (reason := self.stop_reason(started, start_seconds)):
            step_began = time.monotonic()
            out = self.train_step(self.next_batch())
            self.state.step_seconds += time.monotonic() - step_began
            self.advance()  # only after the step: an interrupted step is redone on resume
            self.state.seconds = start_seconds + time.monotonic() - started
            if out is None:
                continue
            meter.add(out.nll, out.tokens, out.sentences)
            if self.state.step % train.log_every == 0:
                left = eta(self.state.step, self.state.seconds, train.max_steps, train.max_minutes)
                self.files.log_progress(meter.flush(self.state.step, self.state.epoch, self.state.seconds,
                                                    self.scheduler.get_last_lr()[0], left))
            if self.state.step % train.validate_every == 0:
                self.validate()
                meter.since = time.monotonic()  # progress rates exclude validation
        return reason

    # ------------------------------------------------------------------ validation and checkpoints
    def validate(self, tag: str = "") -> float:
        began = time.monotonic()
        loss = dev_loss(self.model, self.dev_stream, self.device)
        sources, refs = self.data.dev.sources(self.cfg.data), self.data.dev.references(self.cfg.data)
        decode = dataclasses.replace(self.cfg.decode, beam_size=self.cfg.train.valid_beam, n_best=1)
        hyps = self.translator.translate(sources, decode)
        bleu = corpus_bleu(hyps, refs, self.cfg.data.tgt_lang)
        record = {"step": self.state.step, "epoch": self.state.epoch, "minutes": round(self.state.seconds / 60, 2),
                  "dev_loss": round(loss, 4), "dev_ppl": round(math.exp(min(loss, 50)), 2), "dev_bleu": round(bleu, 2),
                  "seconds": round(time.monotonic() - began, 1), **({"tag": tag} if tag else {})}
        self.history.append(record)
        self.files.log_validation(record, [(sources[i], refs[i], hyps[i]) for i in (0, len(sources) // 2, -1)])
        if not tag:
            self.after_validation(bleu)
        return bleu

    def after_validation(self, bleu: float) -> None:
        improved = bleu > self.state.best_bleu
        if improved:
            self.state.best_bleu, self.state.best_step = bleu, self.state.step
            self.state.validations_without_gain = 0
            self.save("best", {"dev_bleu": bleu})
        else:
            self.state.validations_without_gain += 1
        self.state.snapshot_steps = self.files.keep_snapshot(self.model, self.state.step, self.state.snapshot_steps,
                                                             self.cfg.train.average_last)
        self.save("last", {"dev_bleu": bleu}, with_trainer=True)

    def finish(self) -> None:
        """Average the latest snapshots; keep the average as best if it scores higher on dev."""
        paths = self.files.snapshot_paths(self.state.snapshot_steps)
        if len(paths) < 2:
            return
        current = {k: v.clone() for k, v in self.model.state_dict().items()}
        averaged = {k: v.to(self.device) for k, v in average_weights(paths).items()}
        self.model.load_state_dict(averaged, strict=False)  # tied weights are stored once
        bleu = self.validate(tag=f"average of {len(paths)}")
        if bleu > self.state.best_bleu:
            logger.info("averaged checkpoint is best: dev BLEU %.2f > %.2f", bleu, self.state.best_bleu)
            self.state.best_bleu = bleu
            self.save("best", {"dev_bleu": bleu, "averaged_steps": self.state.snapshot_steps})
        self.model.load_state_dict(current)


def train(cfg: RunConfig, resume: bool = False) -> TrainResult:
    """Train (or resume) the run `cfg.run_dir`; returns when a budget or early stopping ends it."""
    files = RunFiles(cfg.run_dir, cfg.train.tensorboard)
    with lock_run(files.root), disk_errors():
        if resume:
            trainer = _resume_trainer(cfg, files)
        else:
            cfg, init = init_source(cfg)
            trainer = _new_trainer(cfg, files, init)
        save_config(cfg, files.root / "config.yaml")
        try:
            reason = trainer.run()
        except KeyboardInterrupt:
            trainer.save("last", {"interrupted": True}, with_trainer=True)
            files.log_line(f"interrupted at step {trainer.state.step}; resume with: translate train --resume {files.root}")
            raise
        if not trainer.history or trainer.history[-1]["step"] != trainer.state.step:
            trainer.validate()  # the final weights always get a dev score
        trainer.finish()
        trainer.save("last", {"stop_reason": reason}, with_trainer=True)
        files.log_line(f"stopped: {reason}; best dev BLEU {trainer.state.best_bleu:.2f} at step {trainer.state.best_step}")
        result = TrainResult(files.root, trainer.state, reason, trainer.model.num_parameters(),
                             trainer.state.best_bleu, trainer.history)
        files.write_json("train_summary.json", {"stop_reason": reason, "parameters": result.parameters,
                                                "state": dataclasses.asdict(trainer.state), "history": trainer.history})
        return result


def _new_trainer(cfg: RunConfig, files: RunFiles, init: Loaded | None = None) -> Trainer:
    if cfg.train.threads:
        torch.set_num_threads(cfg.train.threads)
    set_seed(cfg.train.seed)
    files.prepare_new()
    data = prepare_data(cfg, tokenizers=None if init is None else (init.src_tokenizer, init.tgt_tokenizer))
    for line in data.report:
        files.log_line(line)
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer)) if init is None else init.model
    if init is not None:
        files.log_line(f"fine-tuning {init.path} (step {init.meta.get('step')}): its weights, tokenizers and model settings")
    files.log_line(f"model: {model.num_parameters():,} parameters; attention {cfg.model.attention.kind}"
                   f"/{cfg.model.attention.scorer}; {cfg.model.rnn_type} hidden {cfg.model.hidden_size}")
    return Trainer(cfg, data, model, files)


def _resume_trainer(cfg: RunConfig, files: RunFiles) -> Trainer:
    """Rebuild the run from last/: refuse changed model/data settings, apply and record the rest."""
    if cfg.train.threads:
        torch.set_num_threads(cfg.train.threads)
    last = files.root / "last"
    if not (last / "trainer.pt").is_file() and not (files.root / "last.old" / "trainer.pt").is_file():
        raise CheckpointError(f"cannot resume {files.root}: no last/ checkpoint with training state")
    changes = check_resume(load_config(files.root / "config.yaml"), cfg)
    loaded = load_checkpoint(last)
    if loaded.artifact.model != cfg.model or loaded.artifact.direction != cfg.data.direction:
        raise CheckpointError(f"{loaded.path}: its model or direction differs from {files.root / 'config.yaml'}; "
                              f"the run folder was edited by hand")
    data = prepare_data(cfg, tokenizers=(loaded.src_tokenizer, loaded.tgt_tokenizer))
    trainer = Trainer(cfg, data, loaded.model, files)
    trainer.restore(load_trainer_state(loaded.path))
    if any(key.startswith("train.") for key in changes):
        trainer.apply_optimizer_settings()
    for key, (old, new) in changes.items():
        files.log_line(f"resume: {key} changed from {old!r} to {new!r}")
    files.log_record({"kind": "resume", "step": trainer.state.step, "changes": {k: list(v) for k, v in changes.items()}})
    files.log_line(f"resumed at step {trainer.state.step} (epoch {trainer.state.epoch}, "
                   f"batch {trainer.state.batch_in_epoch})")
    return trainer
