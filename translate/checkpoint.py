"""Checkpoints: a directory that alone rebuilds the translator, written atomically.

    <ckpt>/model.safetensors   weights (safetensors: no code can hide in it)
    <ckpt>/config.json         the full RunConfig
    <ckpt>/meta.json           format version, package version, step, dev scores
    <ckpt>/src.spm.model, tgt.spm.model   the SentencePiece models
    <ckpt>/trainer.pt          optional: optimizer/scheduler/counters/RNG, loaded with weights_only=True

A save writes `<ckpt>.tmp`, then swaps it in with renames, so a crash at any point leaves a
loadable checkpoint (`<ckpt>` or, mid-swap, `<ckpt>.old`).
"""

from __future__ import annotations

import copy
import errno
import json
import os
import pickle
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_model, save_model

from translate import __version__
from translate.config import RunConfig, config_from_json, config_to_json
from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError, ConfigError
from translate.model import Seq2Seq, build_model

FORMAT_VERSION = 1
WEIGHTS, CONFIG, META, TRAINER = "model.safetensors", "config.json", "meta.json", "trainer.pt"
SRC_SPM, TGT_SPM = "src.spm.model", "tgt.spm.model"


@dataclass
class Loaded:
    config: RunConfig
    model: Seq2Seq
    src_tokenizer: Tokenizer
    tgt_tokenizer: Tokenizer
    meta: dict[str, Any] = field(default_factory=dict)
    path: Path = Path()


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def save_checkpoint(path: Path, cfg: RunConfig, model: Seq2Seq, src_tok: Tokenizer, tgt_tok: Tokenizer,
                    meta: dict[str, Any], trainer_state: dict[str, Any] | None = None,
                    half: bool = False) -> None:
    """Write a checkpoint directory atomically (previous one intact until the final rename)."""
    tmp, old = path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        to_save = copy.deepcopy(model).half() if half else model
        save_model(to_save, str(tmp / WEIGHTS), metadata={"format_version": str(FORMAT_VERSION)})
        _write(tmp / CONFIG, config_to_json(cfg).encode("utf-8"))
        full_meta = {"format_version": FORMAT_VERSION, "version": __version__, **meta}
        _write(tmp / META, json.dumps(full_meta, indent=1, ensure_ascii=False).encode("utf-8"))
        _write(tmp / SRC_SPM, src_tok.proto)
        _write(tmp / TGT_SPM, tgt_tok.proto)
        if trainer_state is not None:
            torch.save(trainer_state, tmp / TRAINER)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        cause = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise CheckpointError(f"could not write checkpoint {path}: {cause}; the previous checkpoint is kept "
                              f"(free space, then continue with --resume)") from None
    if path.exists():
        shutil.rmtree(old, ignore_errors=True)
        path.rename(old)
    tmp.rename(path)
    shutil.rmtree(old, ignore_errors=True)


def resolve(path: Path | str) -> Path:
    """Accept a checkpoint directory or a run directory (-> its best/ checkpoint)."""
    path = Path(path)
    for candidate in (path, path / "best", path / "last"):
        if (candidate / META).is_file() or (candidate / WEIGHTS).is_file():
            return candidate
        old = candidate.with_name(candidate.name + ".old")
        if not candidate.exists() and (old / WEIGHTS).is_file():
            return old  # a save was interrupted mid-swap: the previous checkpoint is complete
    if not path.exists():
        raise CheckpointError(f"checkpoint not found: {path}")
    raise CheckpointError(f"{path} is not a checkpoint (no {WEIGHTS}, and no best/ or last/ inside)")


def read_meta(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads((path / META).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{path}: {META} missing; not a checkpoint written by translate") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CheckpointError(f"{path / META}: corrupt (not JSON)") from None
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format version {version}, this translate {__version__} "
                              f"reads version {FORMAT_VERSION}")
    return dict(meta)


def load_checkpoint(path: Path | str) -> Loaded:
    """Rebuild config, tokenizers and model (eval mode) from a checkpoint or run directory."""
    path = resolve(path)
    meta = read_meta(path)
    try:
        cfg = config_from_json((path / CONFIG).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{path}: {CONFIG} missing") from None
    except (json.JSONDecodeError, ConfigError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path / CONFIG}: unreadable config ({exc})") from None
    src_tok, tgt_tok = Tokenizer.load(path / SRC_SPM), Tokenizer.load(path / TGT_SPM)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok))
    load_weights(model, path / WEIGHTS)
    model.eval()
    return Loaded(cfg, model, src_tok, tgt_tok, meta, path)


def load_weights(model: Seq2Seq, weights: Path) -> None:
    if not weights.is_file():
        raise CheckpointError(f"{weights}: weights missing")
    try:
        missing, unexpected = load_model(model, str(weights), strict=False)
    except (SafetensorError, OSError, ValueError) as exc:
        raise CheckpointError(f"{weights}: truncated or not a safetensors file ({exc})") from None
    except RuntimeError as exc:
        raise CheckpointError(f"{weights}: weights do not fit the configured architecture ({str(exc)[:200]})") from None
    if missing or unexpected:
        raise CheckpointError(f"{weights}: checkpoint of another architecture "
                              f"(missing {sorted(missing)[:3]}, unexpected {sorted(unexpected)[:3]})")


def load_trainer_state(path: Path) -> dict[str, Any]:
    """Load optimizer/scheduler/counters with weights_only=True: a pickle carrying code is refused."""
    file = path / TRAINER
    if not file.is_file():
        raise CheckpointError(f"{path}: no {TRAINER}; only a 'last' checkpoint can resume training")
    try:
        state = torch.load(file, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError) as exc:
        raise CheckpointError(f"{file}: refused to load (corrupt, or contains objects other than tensors "
                              f"and plain data): {str(exc).splitlines()[0][:200]}") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{file}: unexpected content")
    return state
