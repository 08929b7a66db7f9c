"""Checkpoints: a portable directory that alone rebuilds the translator, written atomically.

    <ckpt>/model.safetensors   weights (safetensors: no code can hide in it)
    <ckpt>/config.json         the artifact config: format version, direction, model, tokenizer, decode
    <ckpt>/meta.json           plain facts: package version, step, dev BLEU, provenance, scores
    <ckpt>/src.spm.model, tgt.spm.model   the SentencePiece models
    <ckpt>/trainer.pt          optional: optimizer/scheduler/counters/RNG, loaded with weights_only=True

Nothing about the training machine is stored, and every string in config.json and meta.json is
treated as data: loading never reads or writes a path named there, and never writes into the
checkpoint. Sizes are checked against the weights' header before anything is built
(`translate.checkpoint.safety`). A save writes `<ckpt>.tmp`, then swaps it in with renames, so a crash at
any point leaves a loadable checkpoint (`<ckpt>` or, mid-swap, `<ckpt>.old`).

Format 1 (the first release: config.json held the whole run config) still loads, with a notice;
`translate upgrade-checkpoint` rewrites it as format 2.
"""

from __future__ import annotations

import copy
import dataclasses
import errno
import json
import logging
import os
import pickle
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_model, save_model

from translate.checkpoint.files import (
    CONFIG,
    META,
    SRC_SPM,
    TGT_SPM,
    TRAINER,
    WEIGHTS,
    read_artifact,
    read_meta,
    resolve,
)
from translate.checkpoint.safety import check_weights_fit
from translate.config.loading import apply_overrides
from translate.config.schema import ARTIFACT_FORMAT, ArtifactConfig
from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError
from translate.model import Seq2Seq, build_model
from translate.version import __version__

logger = logging.getLogger(__name__)



@dataclass
class Loaded:
    artifact: ArtifactConfig
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


def _json_bytes(data: dict[str, Any]) -> bytes:
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True).encode("utf-8")


def write_atomically(path: Path, fill: Callable[[Path], None]) -> None:
    """Let `fill` write a fresh `<path>.tmp` folder, then swap it in for `path`."""
    tmp, old = path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        fill(tmp)
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


def savable(model: Seq2Seq, half: bool = False) -> Seq2Seq:
    """The model as safetensors can save it: on the CPU (on CUDA, cuDNN packs an RNN's weights into one
    buffer that safetensors refuses), in fp16 when `half`; a copy unless it already is that."""
    if not half and all(p.device.type == "cpu" for p in model.parameters()):
        return model
    copied = copy.deepcopy(model).cpu()
    return copied.half() if half else copied


def save_checkpoint(path: Path, artifact: ArtifactConfig, model: Seq2Seq, src_tok: Tokenizer, tgt_tok: Tokenizer,
                    meta: dict[str, Any], trainer_state: dict[str, Any] | None = None, half: bool = False) -> None:
    """Write a checkpoint directory atomically (previous one intact until the final rename)."""

    def fill(tmp: Path) -> None:
        save_model(savable(model, half), str(tmp / WEIGHTS), metadata={"format_version": str(ARTIFACT_FORMAT)})
        _write(tmp / CONFIG, _json_bytes(artifact.to_dict()))
        _write(tmp / META, _json_bytes({**meta, "format_version": ARTIFACT_FORMAT, "version": __version__}))
        _write(tmp / SRC_SPM, src_tok.proto)
        _write(tmp / TGT_SPM, tgt_tok.proto)
        if trainer_state is not None:
            torch.save(trainer_state, tmp / TRAINER)

    write_atomically(path, fill)


def load_checkpoint(path: Path | str, device: torch.device | None = None) -> Loaded:
    """Rebuild artifact config, tokenizers and model (eval mode) from a checkpoint or run directory."""
    path = resolve(path)
    meta = read_meta(path)
    artifact = read_artifact(path, meta)
    src_tok, tgt_tok = Tokenizer.load(path / SRC_SPM), Tokenizer.load(path / TGT_SPM)
    check_weights_fit(path / WEIGHTS, artifact.model, len(src_tok), len(tgt_tok))  # before any allocation
    model = build_model(artifact.model, len(src_tok), len(tgt_tok))
    load_weights(model, path / WEIGHTS)
    model.eval()
    if device is not None:
        model.to(device)
    return Loaded(artifact, model, src_tok, tgt_tok, meta, path)


def decoded_as(loaded: Loaded, attention: dict[str, Any]) -> Loaded:
    """The same weights under other attention settings for decoding (`model.attention.*` keys without
    the prefix, e.g. {"kind": "hard"}: a soft model read with its argmax position, or
    {"hard.marginal_decoding": "mixture"}). Every tensor of the checkpoint must find its place; only
    buffers the new attention keeps for training (a REINFORCE baseline) may start empty."""
    model_cfg = apply_overrides(loaded.artifact.model, {f"attention.{key}": value for key, value in attention.items()})
    model = build_model(model_cfg, len(loaded.src_tokenizer), len(loaded.tgt_tokenizer)).to(loaded.model.device)
    missing, unexpected = model.load_state_dict(loaded.model.state_dict(), strict=False)
    parameters = {name for name, _ in model.named_parameters()}
    if unexpected or parameters & set(missing):
        raise CheckpointError(f"{loaded.path}: its weights do not fit model.attention "
                              f"{', '.join(f'{k}={v}' for k, v in attention.items())} (unused "
                              f"{sorted(unexpected)[:3]}, missing {sorted(parameters & set(missing))[:3]})")
    artifact = dataclasses.replace(loaded.artifact, model=model_cfg)
    return dataclasses.replace(loaded, artifact=artifact, model=model.eval())


def load_weights(model: Seq2Seq, weights: Path) -> None:
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


def upgrade_checkpoint(source: Path, target: Path | None = None) -> Path:
    """Re-save a format-1 checkpoint as the current format; weights and tokenizers are copied byte for byte."""
    source = resolve(source)
    target = target or source
    meta = read_meta(source)
    artifact = read_artifact(source, meta, notice=False)
    check_weights_fit(source / WEIGHTS, artifact.model, len(Tokenizer.load(source / SRC_SPM)),
                      len(Tokenizer.load(source / TGT_SPM)))
    facts = {k: v for k, v in meta.items() if k not in ("format_version", "version")}
    facts["upgraded_from_format"] = meta["format_version"]

    def fill(tmp: Path) -> None:
        for name in (WEIGHTS, SRC_SPM, TGT_SPM):
            _write(tmp / name, (source / name).read_bytes())
        _write(tmp / CONFIG, _json_bytes(artifact.to_dict()))
        _write(tmp / META, _json_bytes({**facts, "format_version": ARTIFACT_FORMAT, "version": __version__}))
        for extra in sorted(source.iterdir()):  # model card and the like travel along
            if extra.is_file() and extra.name not in (WEIGHTS, CONFIG, META, SRC_SPM, TGT_SPM, TRAINER):
                _write(tmp / extra.name, extra.read_bytes())

    write_atomically(target, fill)
    return target
