"""Checks on an untrusted checkpoint made before anything is built or allocated.

A checkpoint's config is data: it names sizes, never paths. Its `model.safetensors` header (JSON
before the tensors) lists every tensor's dtype, shape and byte range, so the config's sizes can be
checked against it — and both against the file size and a parameter cap — without reading a
single tensor. The expected shapes come from building the model on PyTorch's `meta` device,
which allocates no memory.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from translate.config import ModelConfig
from translate.errors import CheckpointError
from translate.model import build_model

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
                              f"(translate.safety.MAX_PARAMETERS)")
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


_INIT_FUNCTIONS = ({torch.Tensor.normal_, torch.Tensor.uniform_, torch.Tensor.zero_, torch.Tensor.fill_}
                   | {getattr(torch.nn.init, n) for n in dir(torch.nn.init) if n.endswith("_") and n[0] != "_"})


class _SkipInit(TorchFunctionMode):
    """Weight initialisation is skipped while building on the meta device: shapes are all we need,
    and meta-tensor init goes through torch._refs, which imports torch._dynamo (about 1.5 s)."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func in _INIT_FUNCTIONS:
            return args[0] if args else (kwargs or {}).get("tensor")
        return func(*args, **(kwargs or {}))


def expected_shapes(cfg: ModelConfig, src_vocab: int, tgt_vocab: int) -> tuple[dict[str, list[int]], list[set[str]]]:
    """Tensor shapes the config implies, and groups of names that share one tensor (tied weights)."""
    with torch.device("meta"), _SkipInit():
        model = build_model(cfg, src_vocab, tgt_vocab)
    shapes = {name: list(t.shape) for name, t in model.state_dict(keep_vars=True).items()}
    groups: dict[int, set[str]] = {}
    for name, tensor in model.state_dict(keep_vars=True).items():
        groups.setdefault(id(tensor), set()).add(name)
    return shapes, [g for g in groups.values() if len(g) > 1]


def check_weights_fit(weights: Path, cfg: ModelConfig, src_vocab: int, tgt_vocab: int) -> None:
    """Raise CheckpointError naming the first tensor whose shape the config does not explain."""
    header = read_header(weights)
    shapes, tied = expected_shapes(cfg, src_vocab, tgt_vocab)
    for name, info in sorted(header.items()):
        if name not in shapes:
            raise CheckpointError(f"{weights}: checkpoint of another architecture (unexpected tensor {name!r}; "
                                  f"config.json describes a different model)")
        if info["shape"] != shapes[name]:
            raise CheckpointError(f"{weights}: weights do not fit the configured architecture: {name} has shape "
                                  f"{info['shape']}, config.json implies {shapes[name]}")
    for name in sorted(set(shapes) - set(header)):
        if not any(name in group and group & set(header) for group in tied):
            raise CheckpointError(f"{weights}: checkpoint of another architecture (tensor {name!r} missing)")
