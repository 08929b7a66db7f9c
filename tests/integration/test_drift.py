"""Training cannot drift unnoticed: a tiny model trained from a fixed seed on the tiny corpus for a few
dozen updates gives the per-update losses and final-weight checksums committed in drift.json beside
this file.

A change that moves training (an initialisation, a default, the order of the data, the optimiser)
updates drift.json in the same commit, on purpose:

    TRANSLATE_UPDATE_DRIFT=1 python -m pytest tests/integration/test_drift.py

Tolerance: another CPU model (or another thread count) rounds some float sums otherwise. Between 1 and
2 threads on one machine the logged losses were equal and the checksums moved by 4e-8 (relative), so a
loss may move by LOSS_TOLERANCE (two units of its logged fourth decimal) and a checksum by
CHECKSUM_TOLERANCE (relative); a changed initialisation moves them by far more (the second test).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import tiny_overrides
from translate.config.loading import load_config
from translate.training import train as train_module
from translate.training.train import train

COMMITTED = Path(__file__).with_name("drift.json")
UPDATES = 30
LOSS_TOLERANCE = 2e-4  # absolute, per logged loss
CHECKSUM_TOLERANCE = 1e-5  # relative to the committed checksum


def drift_figures(tmp: Path, threads: int = 1) -> dict[str, Any]:
    """Per-update training losses (metrics.jsonl, 4 decimals) and two checksums of the final weights."""
    cfg = load_config(None, tiny_overrides(tmp, **{"train.log_every": 1, "train.max_steps": UPDATES,
                                                   "train.validate_every": 1000, "train.seed": 7}))
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        train(cfg)
    finally:
        torch.set_num_threads(before)
    records = [json.loads(line) for line in (cfg.run_dir / "metrics.jsonl").read_text(encoding="utf-8").splitlines()]
    losses = [r["loss"] for r in records if r.get("kind") == "train"]
    weights = load_file(str(cfg.run_dir / "last" / "model.safetensors"))
    tensors = [weights[name].double() for name in sorted(weights)]
    return {"updates": UPDATES, "losses": losses,
            "weight_abs_sum": float(sum(t.abs().sum() for t in tensors)),
            "weight_square_sum": float(sum((t * t).sum() for t in tensors))}


def differences(figures: dict[str, Any], committed: dict[str, Any]) -> list[str]:
    """What moved beyond the tolerance, in words ("" for nothing)."""
    if len(figures["losses"]) != len(committed["losses"]):
        return [f"{len(figures['losses'])} losses logged, {len(committed['losses'])} committed"]
    moved = [f"loss at update {i + 1}: {c} -> {f}" for i, (f, c) in enumerate(zip(figures["losses"], committed["losses"]))
             if abs(f - c) > LOSS_TOLERANCE]
    moved += [f"{key}: {committed[key]:.6f} -> {figures[key]:.6f}" for key in ("weight_abs_sum", "weight_square_sum")
              if abs(figures[key] - committed[key]) > CHECKSUM_TOLERANCE * abs(committed[key])]
    return moved


def test_training_reproduces_the_committed_losses_and_weights(tmp_path: Path) -> None:
    figures = drift_figures(tmp_path)
    if os.environ.get("TRANSLATE_UPDATE_DRIFT") == "1":
        COMMITTED.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        pytest.skip(f"{COMMITTED.name} rewritten: commit it with the change that moved training")
    moved = differences(figures, json.loads(COMMITTED.read_text(encoding="utf-8")))
    assert not moved, ("training moved (if on purpose: TRANSLATE_UPDATE_DRIFT=1 and commit drift.json):\n"
                       + "\n".join(moved[:10]))


def test_a_changed_initialisation_is_noticed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is not blind: the same training with the decoder's weight matrices initialised 1 % larger
    (as a changed default initialisation would) moves beyond the tolerance."""
    build = train_module.build_model

    def scaled(*args: Any, **kwargs: Any) -> Any:
        model = build(*args, **kwargs)
        with torch.no_grad():
            for name, parameter in model.named_parameters():
                if name.startswith("decoder.") and parameter.dim() == 2:
                    parameter.mul_(1.01)
        return model

    monkeypatch.setattr(train_module, "build_model", scaled)
    moved = differences(drift_figures(tmp_path), json.loads(COMMITTED.read_text(encoding="utf-8")))
    assert sum(m.startswith("loss at update") for m in moved) >= UPDATES // 2  # most losses, and both checksums
    assert any(m.startswith("weight_abs_sum") for m in moved) and any(m.startswith("weight_square_sum") for m in moved)
