"""The run folder runs/<name>/: lock, logs (train.log, metrics.jsonl), progress lines, weight snapshots."""

from __future__ import annotations

import fcntl
import json
import logging
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from safetensors.torch import load_file, save_model

from translate.errors import ConfigError, TrainingError

if TYPE_CHECKING:
    from translate.config import RunConfig
    from translate.model import Seq2Seq
    from translate.train import TrainState

logger = logging.getLogger("translate.train")


@contextmanager
def lock_run(root: Path) -> Iterator[None]:
    """Hold an exclusive lock on the run folder; a second training there is refused."""
    root.mkdir(parents=True, exist_ok=True)
    handle = open(root / ".lock", "w")  # noqa: SIM115 - held open for the whole training
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise TrainingError(f"{root} is in use by another training (lock {root / '.lock'} held)") from None
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


@dataclass
class Meter:
    """Loss and throughput since the last progress line."""

    nll: float = 0.0
    tokens: int = 0
    since: float = 0.0

    def add(self, nll: float, tokens: int) -> None:
        self.nll += nll
        self.tokens += tokens

    def flush(self, state: TrainState, lr: float, cfg: RunConfig) -> dict[str, Any]:
        now = time.monotonic()
        loss = self.nll / max(self.tokens, 1)
        rate = self.tokens / max(now - self.since, 1e-9)
        record = {"step": state.step, "loss": round(loss, 4), "ppl": round(math.exp(min(loss, 50)), 2),
                  "tgt_tok_per_s": round(rate), "lr": lr, "elapsed": round(state.seconds, 1),
                  "epoch": state.epoch, "eta": _eta(state, cfg)}
        self.nll, self.tokens, self.since = 0.0, 0, now
        return record


def _eta(state: TrainState, cfg: RunConfig) -> float | None:
    """Seconds left until the step or time budget, whichever comes first (None without a budget)."""
    left = []
    if cfg.train.max_minutes:
        left.append(cfg.train.max_minutes * 60 - state.seconds)
    if cfg.train.max_steps and state.step:
        left.append((cfg.train.max_steps - state.step) * state.seconds / state.step)
    return round(max(0.0, min(left)), 1) if left else None


class RunFiles:
    def __init__(self, root: Path, tensorboard: bool = False) -> None:
        self.root = root
        self._writer: Any = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                raise ConfigError("train.tensorboard=true needs the tensorboard package: pip install tensorboard") from None
            self._writer = SummaryWriter(str(root / "tensorboard"))

    def _scalars(self, prefix: str, record: dict[str, Any]) -> None:
        if self._writer is not None:
            for key, value in record.items():
                if isinstance(value, (int, float)) and key != "step":
                    self._writer.add_scalar(f"{prefix}/{key}", value, record["step"])
            self._writer.flush()

    def prepare_new(self) -> None:
        if (self.root / "last").exists() or (self.root / "best").exists():
            raise TrainingError(f"{self.root} already holds a trained run: continue it with "
                                f"--resume {self.root}, or pick another --name")
        self.root.mkdir(parents=True, exist_ok=True)

    def log_line(self, line: str) -> None:
        logger.info(line)
        with open(self.root / "train.log", "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def _metrics(self, record: dict[str, Any]) -> None:
        with open(self.root / "metrics.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def meter(self) -> Meter:
        return Meter(since=time.monotonic())

    def log_progress(self, record: dict[str, Any]) -> None:
        self._metrics({"kind": "train", **record})
        self._scalars("train", record)
        eta = _duration(record["eta"]) if record["eta"] is not None else "-"
        self.log_line(f"step {record['step']:>6}  loss {record['loss']:.3f}  ppl {record['ppl']:8.2f}  "
                      f"{record['tgt_tok_per_s']:>6} tgt tok/s  lr {record['lr']:.2e}  "
                      f"elapsed {_duration(record['elapsed'])}  eta {eta}")

    def log_validation(self, record: dict[str, Any], samples: list[tuple[str, str, str]]) -> None:
        self._metrics({"kind": "dev", **record})
        self._scalars("dev", record)
        tag = f" [{record['tag']}]" if "tag" in record else ""
        self.log_line(f"validation{tag} at step {record['step']}: dev loss {record['dev_loss']:.3f}  "
                      f"ppl {record['dev_ppl']:.2f}  BLEU {record['dev_bleu']:.2f}  ({record['seconds']}s)")
        for src, ref, hyp in samples:
            self.log_line(f"  src: {src}\n  ref: {ref}\n  hyp: {hyp}")

    def write_json(self, name: str, data: dict[str, Any]) -> None:
        tmp = self.root / f".{name}.tmp"
        tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.root / name)

    # ------------------------------------------------------------------ snapshots for averaging
    def snapshot_path(self, step: int) -> Path:
        return self.root / "snapshots" / f"step-{step}.safetensors"

    def keep_snapshot(self, model: Seq2Seq, state: TrainState, keep: int) -> None:
        if keep <= 1:
            return
        path = self.snapshot_path(state.step)
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        save_model(model, str(tmp))
        tmp.replace(path)
        state.recent_checkpoints = [s for s in state.recent_checkpoints if s != state.step] + [state.step]
        while len(state.recent_checkpoints) > keep:
            self.snapshot_path(state.recent_checkpoints.pop(0)).unlink(missing_ok=True)

    def snapshot_paths(self, state: TrainState) -> list[Path]:
        return [p for p in map(self.snapshot_path, state.recent_checkpoints) if p.is_file()]


def average_weights(paths: list[Path]) -> dict[str, torch.Tensor]:
    """Element-wise mean of several safetensors weight files (Junczys-Dowmunt et al. 2016)."""
    total: dict[str, torch.Tensor] = {}
    for path in paths:
        for name, tensor in load_file(str(path)).items():
            total[name] = total[name] + tensor.float() if name in total else tensor.float().clone()
    return {name: tensor / len(paths) for name, tensor in total.items()}
