"""Progress of a training run: its counters (`TrainState`), and progress lines with loss, perplexity,
target tokens/s, learning rate, elapsed time and ETA."""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TrainState:
    """Counters that make a run resumable; saved in every `last` checkpoint."""

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    seconds: float = 0.0  # wall time of training, validation included (what the time budget counts)
    step_seconds: float = 0.0  # time inside training steps only
    target_tokens: int = 0
    sentence_pairs: int = 0
    best_bleu: float = -1.0
    best_step: int = 0
    validations_without_gain: int = 0
    bad_losses: int = 0
    skipped_batches: int = 0
    snapshot_steps: list[int] = field(default_factory=list)  # steps whose weights are kept for averaging
    world_size: int = 1  # data-parallel processes: batch_in_epoch counts each process's steps

    @classmethod
    def from_json(cls, text: str) -> TrainState:
        data = json.loads(text)
        if "recent_checkpoints" in data:  # the name before snapshot_steps
            data["snapshot_steps"] = data.pop("recent_checkpoints")
        return cls(**data)


def duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def eta(step: int, seconds: float, max_steps: int, max_minutes: float, tokens: int = 0,
        max_tokens: int = 0) -> float | None:
    """Seconds left until the step, time or token budget, whichever comes first (None without a budget)."""
    left = []
    if max_minutes:
        left.append(max_minutes * 60 - seconds)
    if max_steps and step:
        left.append((max_steps - step) * seconds / step)
    if max_tokens and tokens:
        left.append((max_tokens - tokens) * seconds / tokens)
    return round(max(0.0, min(left)), 1) if left else None


@dataclass
class Meter:
    """Loss and throughput since the last progress line."""

    nll: float = 0.0
    tokens: int = 0
    sentences: int = 0
    since: float = field(default_factory=time.monotonic)

    def add(self, nll: float, tokens: int, sentences: int) -> None:
        self.nll += nll
        self.tokens += tokens
        self.sentences += sentences

    def flush(self, step: int, epoch: int, seconds: float, lr: float, eta_seconds: float | None) -> dict[str, Any]:
        """The progress record since the last flush; resets the meter."""
        now = time.monotonic()
        loss = self.nll / max(self.tokens, 1)
        interval = max(now - self.since, 1e-9)
        record = {"step": step, "loss": round(loss, 4), "ppl": round(math.exp(min(loss, 50)), 2),
                  "tgt_tok_per_s": round(self.tokens / interval), "pairs_per_s": round(self.sentences / interval, 1),
                  "lr": lr, "elapsed": round(seconds, 1), "epoch": epoch, "eta": eta_seconds,
                  "interval_s": round(interval, 3)}
        self.nll, self.tokens, self.sentences, self.since = 0.0, 0, 0, now
        return record


def progress_line(record: dict[str, Any]) -> str:
    left = duration(record["eta"]) if record["eta"] is not None else "-"
    return (f"step {record['step']:>6}  loss {record['loss']:.3f}  ppl {record['ppl']:8.2f}  "
            f"{record['tgt_tok_per_s']:>6} tgt tok/s  lr {record['lr']:.2e}  "
            f"elapsed {duration(record['elapsed'])}  eta {left}")
