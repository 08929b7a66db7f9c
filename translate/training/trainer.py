"""The training loop: batch -> loss -> backward -> clip -> step -> log -> validate -> keep best; data-parallel
when torchrun started several processes."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from translate.checkpoint.store import save_checkpoint
from translate.config.device import resolve_device
from translate.config.schema import RunConfig
from translate.data.batch import Batch
from translate.data.batching import BatchStream
from translate.data.corpus import PreparedData
from translate.data.sampling import SubwordSampler
from translate.errors import TrainingError
from translate.evaluation.metrics import corpus_bleu
from translate.inference.translator import Translator
from translate.model import Seq2Seq
from translate.training.distributed import Dist
from translate.training.loss import LossOutput, compute_loss, dev_loss, lr_factor
from translate.training.progress import Meter, TrainState, eta
from translate.training.run_dir import RunFiles, average_weights
from translate.training.signals import StopSignals

logger = logging.getLogger("translate.training.train")
# a hook on each validation's record; a string it returns stops training there, with that reason (a tuner's pruner)
Validated = Callable[[dict[str, Any]], "str | None"]


def make_optimizer(model: Seq2Seq, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with the fused kernel (one op for all parameters), where available."""
    try:
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, fused=True)
    except (RuntimeError, TypeError):  # a device or torch without the fused kernel
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


class Trainer:
    """Holds the pieces of one run; `run()` is the loop."""

    def __init__(self, cfg: RunConfig, data: PreparedData, model: Seq2Seq, files: RunFiles, dist: Dist | None = None) -> None:
        dist = dist or Dist()
        self.cfg, self.data, self.files, self.dist = cfg, data, files, dist
        self.device = resolve_device(cfg.device)
        if dist.active and self.device.type == "cuda":
            self.device = torch.device("cuda", dist.local_rank)
        self.model = model.to(self.device)
        # data-parallel: gradients are averaged over processes in backward (hard/none may skip parameters)
        self.forward = None if not dist.active else torch.nn.parallel.DistributedDataParallel(
            self.model, find_unused_parameters=cfg.model.attention.kind in ("hard", "none"))
        self.optimizer = make_optimizer(model, cfg.train.learning_rate, cfg.train.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: lr_factor(s, self.cfg.train))
        self.state = TrainState(world_size=dist.world)
        sampler = (SubwordSampler(data.src_tokenizer, data.tgt_tokenizer, cfg.data.subword_alpha, cfg.data.max_tokens,
                                  cfg.train.seed + dist.rank) if cfg.data.subword_alpha else None)
        self.stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, cfg.train.seed, sampler)
        self.dev_stream = BatchStream(data.dev.ids, cfg.data.batch_tokens, 1, 0)
        self.translator = Translator(model, data.src_tokenizer, data.tgt_tokenizer, cfg.decode,
                                     cfg.data.src_lang, cfg.data.tgt_lang)
        self.history: list[dict[str, Any]] = []
        # called with each validation's record once its checkpoints are written (main process); may raise to stop
        self.on_validation: Validated | None = None
        self.asked_to_stop: str | None = None  # a reason the validation hook gave
        self.signals = StopSignals()  # Ctrl-C / SIGTERM, held until the update under way is complete
        # False from the start of an update to the end of its validation: a KeyboardInterrupt then (a second
        # signal, which does not wait) leaves a state no checkpoint may hold (some optimizer moments written)
        self.between_updates = True
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
            self._epoch_batches = (self.state.epoch, self.dist.shard(self.stream.epoch_batches(self.state.epoch)))
        return self.stream.batch(self._epoch_batches[1][self.state.batch_in_epoch]).to(self.device)

    def advance(self) -> None:
        self.state.batch_in_epoch += 1
        assert self._epoch_batches is not None
        if self.state.batch_in_epoch >= len(self._epoch_batches[1]):
            self.state.epoch += 1
            self.state.batch_in_epoch = 0

    def train_step(self, batch: Batch) -> LossOutput | None:
        with self.autocast():
            out = compute_loss(self.model, batch, self.cfg.train.label_smoothing, self.forward)
        finite = bool(torch.isfinite(out.loss))
        if self.dist.active:  # normalise by the global token count; skip together if any process saw NaN
            tokens, sentences, nll, bad = self.dist.all_sum([out.tokens, out.sentences, out.nll, 0.0 if finite else 1.0])
            finite = bad == 0
            out = LossOutput(out.loss * (out.tokens * self.dist.world / max(tokens, 1.0)), nll, int(tokens), int(sentences))
        if not finite:
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

    def autocast(self) -> torch.autocast:
        """bf16 autocast for the forward pass and loss (backward runs outside it), per train.amp."""
        amp = self.cfg.train.amp
        enabled = amp == "bf16" or (amp == "auto" and self.device.type == "cuda")
        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=enabled)

    def stop_reason(self, started: float, start_seconds: float) -> str | None:
        train = self.cfg.train
        if train.max_steps and self.state.step >= train.max_steps:
            return f"reached train.max_steps={train.max_steps}"
        if train.max_minutes and start_seconds + time.monotonic() - started >= train.max_minutes * 60:
            return f"reached the time budget of {train.max_minutes:g} minutes"
        if train.max_epochs and self.state.epoch >= train.max_epochs:
            return f"reached train.max_epochs={train.max_epochs}"
        if train.max_tokens and self.state.target_tokens * self.dist.world >= train.max_tokens:
            return f"reached train.max_tokens={train.max_tokens:,} target tokens"
        if train.patience and self.state.validations_without_gain >= train.patience:
            return f"early stopping: no dev BLEU gain in {train.patience} validations"
        return self.asked_to_stop

    def run(self) -> str:
        meter, started, start_seconds = Meter(), time.monotonic(), self.state.seconds
        self.model.train()
        with self.signals.held():
            return self._loop(meter, started, start_seconds)

    def _loop(self, meter: Meter, started: float, start_seconds: float) -> str:
        train = self.cfg.train
        while not (reason := self._stop(started, start_seconds)):
            step_began = time.monotonic()
            self.between_updates = False
            out = self.train_step(self.next_batch())
            self.state.step_seconds += time.monotonic() - step_began
            self.advance()  # only after the step: an interrupted step is redone on resume
            self.state.seconds = start_seconds + time.monotonic() - started
            if out is None:
                self.between_updates = True
                continue
            meter.add(out.nll, out.tokens, out.sentences)
            if self.state.step % train.log_every == 0 and self.dist.main:
                left = eta(self.state.step, self.state.seconds, train.max_steps, train.max_minutes,
                           self.state.target_tokens * self.dist.world, train.max_tokens)
                self.files.log_progress(meter.flush(self.state.step, self.state.epoch, self.state.seconds,
                                                    float(self.scheduler.get_last_lr()[0]), left))
            if self.state.step % train.validate_every == 0:
                if self.dist.main:
                    self.validate()
                self.dist.barrier()  # the other processes wait for validation and checkpoints
                meter.since = time.monotonic()  # progress rates exclude validation
            self.between_updates = True
        return reason

    def _stop(self, started: float, start_seconds: float) -> str | None:
        """Every process stops at the same step: when one has a reason (early stopping is decided by
        the main process, the only one that validates), all do; when one got a stop signal, all raise
        KeyboardInterrupt there, between two updates."""
        reason = self.stop_reason(started, start_seconds)
        flags = [float(reason is not None), float(self.signals.received is not None)]
        any_reason, any_signal = (v > 0 for v in self.dist.all_sum(flags))
        if any_signal:
            self.signals.raise_if_received()
            raise KeyboardInterrupt("a stop signal to another process")
        if any_reason and reason is None:
            reason = "stopped with the main process"
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
                  "target_tokens": self.state.target_tokens * self.dist.world, "dev_loss": round(loss, 4), "dev_ppl": round(math.exp(min(loss, 50)), 2), "dev_bleu": round(bleu, 2),
                  "seconds": round(time.monotonic() - began, 1), **({"tag": tag} if tag else {})}
        self.history.append(record)
        self.files.log_validation(record, [(sources[i], refs[i], hyps[i]) for i in (0, len(sources) // 2, -1)])
        if not tag:
            self.after_validation(bleu)
            if self.on_validation is not None:
                self.asked_to_stop = self.on_validation(record) or self.asked_to_stop
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

    def finish(self) -> list[int]:
        """Average the latest snapshots; keep the average as best if it scores higher on dev. Returns
        the averaged steps when the average became best (else [])."""
        paths = self.files.snapshot_paths(self.state.snapshot_steps)
        if len(paths) < 2:
            return []
        current = {k: v.clone() for k, v in self.model.state_dict().items()}
        averaged = {k: v.to(self.device) for k, v in average_weights(paths).items()}
        self.model.load_state_dict(averaged, strict=False)  # tied weights are stored once
        bleu = self.validate(tag=f"average of {len(paths)}")
        if bleu > self.state.best_bleu:
            logger.info("averaged checkpoint is best: dev BLEU %.2f > %.2f", bleu, self.state.best_bleu)
            self.state.best_bleu = bleu
            self.save("best", {"dev_bleu": bleu, "averaged_steps": self.state.snapshot_steps})
            self.model.load_state_dict(current)
            return list(self.state.snapshot_steps)
        self.model.load_state_dict(current)
        return []
