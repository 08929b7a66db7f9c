"""The files of a checkpoint folder, read without PyTorch: where the checkpoint is, its meta and
artifact config (JSON, strictly data), and the safetensors header of its weights with every byte
range checked against the file. `translate.checkpoint.store` builds the model from these; the torch-free
path (`translate.inference.fast`) reads the same files the same way.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import struct
from pathlib import Path
from typing import Any

from translate.config.loading import from_dict, nest_attention
from translate.config.schema import ARTIFACT_FORMAT, ArtifactConfig
from translate.errors import CheckpointError, ConfigError
from translate.version import __version__

logger = logging.getLogger(__name__)

WEIGHTS, CONFIG, META, TRAINER = "model.safetensors", "config.json", "meta.json", "trainer.pt"
SRC_SPM, TGT_SPM = "src.spm.model", "tgt.spm.model"
READABLE_FORMATS = (1, 2, ARTIFACT_FORMAT)
MAX_PARAMETERS = 500_000_000  # 2 GB in fp32: far above any RNN this project trains
MAX_HEADER_BYTES = 16 * 1024 * 1024
# floats for weights; integers for counters kept as buffers (the soft-to-hard curriculum's update count)
DTYPE_BYTES = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4}


def read_header(weights: Path) -> dict[str, dict[str, Any]]:
    """The tensors a safetensors file declares, after checking every byte range lies inside the file."""
    if not weights.is_file():
        raise CheckpointError(f"{weights}: weights missing")
    size = weights.stat().st_size
    with open(weights, "rb") as handle:
        head = handle.read(8)
        if len(head) < 8:
            raise CheckpointError(f"{weights}: truncated or not a safetensors file (shorter than 8 bytes)")
        (length,) = struct.unpack("<Q", head)
        if length > min(MAX_HEADER_BYTES, size - 8):
            raise CheckpointError(f"{weights}: truncated or not a safetensors file (header of {length} bytes "
                                  f"in a file of {size})")
        try:
            header = json.loads(handle.read(length))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise CheckpointError(f"{weights}: truncated or not a safetensors file (header is not JSON)") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{weights}: truncated or not a safetensors file (header is not a mapping)")
    header.pop("__metadata__", None)
    data_bytes = size - 8 - length
    for name, info in header.items():
        _check_entry(weights, name, info, data_bytes)
    total = sum(math.prod(info["shape"]) for info in header.values())
    if total > MAX_PARAMETERS:
        raise CheckpointError(f"{weights}: {total:,} parameters, over the limit of {MAX_PARAMETERS:,} "
                              f"(translate.checkpoint.files.MAX_PARAMETERS)")
    return header


def _check_entry(weights: Path, name: str, info: Any, data_bytes: int) -> None:
    bad = CheckpointError(f"{weights}: truncated or not a safetensors file (tensor {name!r} is malformed)")
    if not isinstance(info, dict) or info.get("dtype") not in DTYPE_BYTES:
        raise bad
    shape, offsets = info.get("shape"), info.get("data_offsets")
    if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
        raise bad
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) for o in offsets)):
        raise bad
    begin, end = offsets
    if not 0 <= begin <= end <= data_bytes or end - begin != math.prod(shape) * DTYPE_BYTES[info["dtype"]]:
        raise CheckpointError(f"{weights}: truncated or not a safetensors file (tensor {name!r} claims bytes "
                              f"{begin}..{end}, the file holds {data_bytes})")


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


def _read_json(file: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{file.parent}: {file.name} missing; not a checkpoint written by translate") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CheckpointError(f"{file}: corrupt (not JSON)") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{file}: corrupt ({what} must be a JSON object)")
    return data


def read_meta(path: Path) -> dict[str, Any]:
    meta = _read_json(path / META, "meta")
    version = meta.get("format_version")
    if version not in READABLE_FORMATS:
        raise CheckpointError(f"{path}: checkpoint format version {version}, this translate {__version__} "
                              f"reads versions {', '.join(map(str, READABLE_FORMATS))}")
    return meta


def read_artifact(path: Path, meta: dict[str, Any], notice: bool = True) -> ArtifactConfig:
    """The artifact config; from a format-1 checkpoint, only its model/tokenizer/decode/direction parts;
    from formats 1-2, the attention settings nested by kind."""
    raw = _read_json(path / CONFIG, "config")
    if meta["format_version"] < ARTIFACT_FORMAT and notice:
        logger.warning("%s: checkpoint format %d; it loads, but re-save it as format %d with "
                       "`translate upgrade-checkpoint %s`", path, meta["format_version"], ARTIFACT_FORMAT, path)
    if meta["format_version"] == 1:
        data: dict[str, Any] = raw["data"] if isinstance(raw.get("data"), dict) else {}
        raw = {"direction": data.get("direction", "en-zh"), "format_version": ARTIFACT_FORMAT,
               **{key: raw[key] for key in ("model", "tokenizer", "decode") if key in raw}}
    model = raw.get("model")
    if meta["format_version"] < 3 and isinstance(model, dict):
        nest_attention(model.get("attention"))
        raw["format_version"] = ARTIFACT_FORMAT
    try:
        artifact = from_dict(ArtifactConfig, raw)
    except ConfigError as exc:
        raise CheckpointError(f"{path / CONFIG}: unreadable config ({exc})") from None
    # sections of other attention kinds are never read: at their defaults, as a checkpoint stores them
    return dataclasses.replace(artifact, model=dataclasses.replace(artifact.model,
                                                                   attention=artifact.model.attention.for_kind()))
