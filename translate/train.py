"""Training: batch -> loss -> backward -> clip -> step -> log -> validate -> keep best; resumable."""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import math
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from translate.checkpoint import load_checkpoint, load_trainer_state, save_checkpoint
from translate.config import RunConfig, save_config
from translate.data.batching import Batch, BatchStream
from translate.data.corpus import PreparedData, prepare_data
from translate.data.tokenizer import PAD_ID
from translate.errors import CheckpointError, TrainingError
from translate.evaluate import corpus_bleu
from translate.model import Seq2Seq, build_model
from translate.run_dir import RunFiles, average_weights, lock_run
from translate.translator import Translator

logger = logging.getLogger(__name__)


@dataclass
class TrainState:
    """Counters that make a run resumable; saved in every `last` checkpoint."""

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    seconds: float = 0.0  # wall time of training, validation included (what the time budget counts)
    step_seconds: float = 0.0  # time inside training steps only
    target_tokens: int = 0
    best_bleu: float = -1.0
    best_step: int = 0
    validations_without_gain: int = 0
    bad_losses: int = 0
    skipped_batches: int = 0
    recent_checkpoints: list[int] = field(default_factory=list)


@dataclass
class TrainResult:
    run_dir: Path
    state: TrainState
    stop_reason: str
    parameters: int
    best_bleu: float
    history: list[dict[str, Any]]


@dataclass
class LossOutput:
    loss: torch.Tensor
    nll: float  # summed over target tokens
    tokens: int


def set_seed(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def compute_loss(model: Seq2Seq, batch: Batch, label_smoothing: float) -> LossOutput:
    """Token-normalised label-smoothed cross-entropy over non-pad targets, plus any attention loss."""
    out = model(batch.src, batch.src_lens, batch.tgt_in)
    mask = batch.tgt_out != PAD_ID  # (B, T)
    # the output layer and softmax run on real tokens only: padding costs nothing
    log_probs = torch.log_softmax(model.decoder.generator(out.hidden[mask]).float(), dim=-1)  # (N, V)
    nll = -log_probs.gather(-1, batch.tgt_out[mask].unsqueeze(-1)).squeeze(-1)  # (N,)
    per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(-1)
    tokens = int(mask.sum())
    loss = per_token.sum() / max(tokens, 1)
    if out.choice_log_probs is not None and out.choice_entropies is not None:
        rewards = out.hidden.new_zeros(mask.shape).masked_scatter(mask, -nll.detach())  # (B, T)
        loss = loss + model.decoder.attention.auxiliary_loss(out.choice_log_probs, out.choice_entropies,
                                                              rewards, mask.float())
    return LossOutput(loss=loss, nll=float(nll.detach().sum()), tokens=tokens)


def lr_factor(step: int, cfg: RunConfig) -> float:
    """Linear warm-up, then inverse-sqrt / cosine / constant, floored at min_learning_rate."""
    train = cfg.train
    warm = max(train.warmup_steps, 1)
    if step < warm:
        return (step + 1) / warm
    if train.schedule == "inverse-sqrt":
        factor = math.sqrt(warm / (step + 1))
    elif train.schedule == "cosine" and train.max_steps > warm:
        factor = 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warm) / (train.max_steps - warm))))
    else:
        factor = 1.0
    return max(factor, train.min_learning_rate / train.learning_rate)


@torch.no_grad()
def dev_loss(model: Seq2Seq, stream: BatchStream) -> float:
    model.eval()
    nll, tokens = 0.0, 0
    for indices in stream.epoch_batches(0):
        out = compute_loss(model, stream.batch(indices), 0.0)
        nll, tokens = nll + out.nll, tokens + out.tokens
    model.train()
    return nll / max(tokens, 1)


def dev_bleu(translator: Translator, cfg: RunConfig, sources: list[str], refs: list[str]) -> tuple[float, list[str]]:
    decode = dataclasses.replace(cfg.decode, beam_size=cfg.train.valid_beam, n_best=1)
    hyps = translator.translate(sources, decode)
    return corpus_bleu(hyps, refs, cfg.data.tgt_lang), hyps


class Trainer:
    """Holds the pieces of one run; `run()` is the loop."""

    def __init__(self, cfg: RunConfig, data: PreparedData, model: Seq2Seq, files: RunFiles) -> None:
        self.cfg, self.data, self.model, self.files = cfg, data, model, files
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train.learning_rate,
                                           weight_decay=cfg.train.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: lr_factor(s, cfg))
        self.state = TrainState()
        self.stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, cfg.train.seed)
        self.dev_stream = BatchStream(data.dev.ids, cfg.data.batch_tokens, 1, 0)
        self.translator = Translator(model, data.src_tokenizer, data.tgt_tokenizer, cfg)
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
        self.state = TrainState(**json.loads(trainer["state"]))
        self.history = json.loads(trainer.get("history", "[]"))
        torch.set_rng_state(trainer["torch_rng"])

    def save(self, name: str, extra: dict[str, Any] | None = None, with_trainer: bool = False) -> None:
        meta = {"step": self.state.step, "epoch": self.state.epoch, **(extra or {})}
        save_checkpoint(self.files.root / name, self.cfg, self.model, self.data.src_tokenizer,
                        self.data.tgt_tokenizer, meta, self.trainer_state() if with_trainer else None)

    # ------------------------------------------------------------------ the loop
    def next_batch(self) -> Batch:
        """The batch at the saved data position (epoch, batch_in_epoch); `advance()` moves past it."""
        if self._epoch_batches is None or self._epoch_batches[0] != self.state.epoch:
            self._epoch_batches = (self.state.epoch, self.stream.epoch_batches(self.state.epoch))
        return self.stream.batch(self._epoch_batches[1][self.state.batch_in_epoch])

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
        meter = self.files.meter()
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
            meter.add(out.nll, out.tokens)
            if self.state.step % self.cfg.train.log_every == 0:
                self.files.log_progress(meter.flush(self.state, self.scheduler.get_last_lr()[0], self.cfg))
            if self.state.step % self.cfg.train.validate_every == 0:
                self.validate()
        return reason

    # ------------------------------------------------------------------ validation and checkpoints
    def validate(self, tag: str = "") -> float:
        began = time.monotonic()
        loss = dev_loss(self.model, self.dev_stream)
        sources, refs = self.data.dev.sources(self.cfg.data), self.data.dev.references(self.cfg.data)
        bleu, hyps = dev_bleu(self.translator, self.cfg, sources, refs)
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
        self.files.keep_snapshot(self.model, self.state, self.cfg.train.average_last)
        self.save("last", {"dev_bleu": bleu}, with_trainer=True)

    def finish(self) -> None:
        """Average the latest snapshots; keep the average as best if it scores higher on dev."""
        paths = self.files.snapshot_paths(self.state)
        if len(paths) < 2:
            return
        current = {k: v.clone() for k, v in self.model.state_dict().items()}
        self.model.load_state_dict(average_weights(paths), strict=False)  # tied weights are stored once
        bleu = self.validate(tag=f"average of {len(paths)}")
        if bleu > self.state.best_bleu:
            logger.info("averaged checkpoint is best: dev BLEU %.2f > %.2f", bleu, self.state.best_bleu)
            self.state.best_bleu = bleu
            self.save("best", {"dev_bleu": bleu, "averaged_steps": self.state.recent_checkpoints})
        self.model.load_state_dict(current)


@contextmanager
def _disk_errors() -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise TrainingError(f"disk full while writing ({exc.filename or 'run folder'}); free space and "
                                f"resume with --resume: the previous checkpoint is kept") from None
        raise


def train(cfg: RunConfig, resume: bool = False) -> TrainResult:
    """Train (or resume) the run `cfg.run_dir`; returns when a budget or early stopping ends it."""
    files = RunFiles(cfg.run_dir, cfg.train.tensorboard)
    with lock_run(files.root), _disk_errors():
        trainer = _make_trainer(cfg, files, resume)
        if not resume or trainer.state.step == 0:
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


def _make_trainer(cfg: RunConfig, files: RunFiles, resume: bool) -> Trainer:
    if cfg.train.threads:
        torch.set_num_threads(cfg.train.threads)
    set_seed(cfg.train.seed)
    if not resume:
        files.prepare_new()
        data = prepare_data(cfg)
        for line in data.report:
            files.log_line(line)
        model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer))
        files.log_line(f"model: {model.num_parameters():,} parameters; attention {cfg.model.attention.kind}"
                       f"/{cfg.model.attention.scorer}; {cfg.model.rnn_type} hidden {cfg.model.hidden_size}")
        return Trainer(cfg, data, model, files)
    last = files.root / "last"
    if not (last / "trainer.pt").is_file() and not (files.root / "last.old" / "trainer.pt").is_file():
        raise CheckpointError(f"cannot resume {files.root}: no last/ checkpoint with training state")
    loaded = load_checkpoint(last)
    data = prepare_data(cfg, tokenizers=(loaded.src_tokenizer, loaded.tgt_tokenizer))
    trainer = Trainer(cfg, data, loaded.model, files)
    trainer.restore(load_trainer_state(loaded.path))
    files.log_line(f"resumed at step {trainer.state.step} (epoch {trainer.state.epoch}, "
                   f"batch {trainer.state.batch_in_epoch})")
    return trainer
