"""The run folder runs/<name>/: lock, logs (train.log, metrics.jsonl), progress lines, weight snapshots."""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_model

from translate.checkpoint.store import savable
from translate.errors import ConfigError, TrainingError
from translate.model import Seq2Seq
from translate.training.progress import progress_line

logger = logging.getLogger("translate.training.train")


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


@contextmanager
def disk_errors() -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise TrainingError(f"disk full while writing ({exc.filename or 'run folder'}); free space and "
                                f"resume with --resume: the previous checkpoint is kept") from None
        raise


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

    def log_record(self, record: dict[str, Any]) -> None:
        with open(self.root / "metrics.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def drop_records_after(self, step: int) -> int:
        """Remove the metrics.jsonl records of steps after `step` (what a resume from a checkpoint at `step`
        trains again, so that each step is recorded once); returns how many went. Rewritten atomically.
        TensorBoard's events of those steps are hidden the way TensorBoard provides: a purge marker at
        step + 1, after which its readers drop the older events of later steps."""
        if self._writer is not None:
            self._writer.close()
            self._writer = type(self._writer)(str(self.root / "tensorboard"), purge_step=step + 1)
        path = self.root / "metrics.jsonl"
        if not path.is_file():
            return 0
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if not line.strip() or json.loads(line).get("step", 0) <= step]
        if len(kept) < len(lines):
            partial = path.with_name(path.name + ".partial")
            partial.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
            os.replace(partial, path)
        return len(lines) - len(kept)

    def log_progress(self, record: dict[str, Any]) -> None:
        self.log_record({"kind": "train", **record})
        self._scalars("train", record)
        self.log_line(progress_line(record))

    def log_validation(self, record: dict[str, Any], samples: list[tuple[str, str, str]]) -> None:
        self.log_record({"kind": "dev", **record})
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

    def keep_snapshot(self, model: Seq2Seq, step: int, snapshot_steps: list[int], keep: int) -> list[int]:
        """Save the weights of `step` for averaging; returns the steps kept (the `keep` latest)."""
        if keep <= 1:
            return snapshot_steps
        path = self.snapshot_path(step)
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        save_model(savable(model), str(tmp))
        tmp.replace(path)
        steps = [s for s in snapshot_steps if s != step] + [step]
        for old in steps[:-keep]:
            self.snapshot_path(old).unlink(missing_ok=True)
        return steps[-keep:]

    def snapshot_paths(self, snapshot_steps: list[int]) -> list[Path]:
        return [p for p in map(self.snapshot_path, snapshot_steps) if p.is_file()]


def discard_checkpoints(root: Path) -> None:
    """Remove a run folder's checkpoints (best/, last/ and their interrupted saves), so that it trains from
    the start; its logs stay."""
    for name in ("best", "last"):
        for suffix in ("", ".old", ".tmp"):
            shutil.rmtree(root / f"{name}{suffix}", ignore_errors=True)


def average_weights(paths: list[Path]) -> dict[str, torch.Tensor]:
    """Element-wise mean of several safetensors weight files (Junczys-Dowmunt et al. 2016)."""
    total: dict[str, torch.Tensor] = {}
    for path in paths:
        for name, tensor in load_file(str(path)).items():
            total[name] = total[name] + tensor.float() if name in total else tensor.float().clone()
    return {name: tensor / len(paths) for name, tensor in total.items()}
