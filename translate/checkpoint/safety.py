"""Checks on an untrusted checkpoint made before anything is built or allocated.

A checkpoint's config is data: it names sizes, never paths. Its `model.safetensors` header (JSON
before the tensors) lists every tensor's dtype, shape and byte range, so the config's sizes can be
checked against it — and both against the file size and a parameter cap — without reading a
single tensor (`translate.checkpoint.files.read_header`). The expected shapes come from building the model on PyTorch's `meta` device,
which allocates no memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from translate.checkpoint.files import read_header
from translate.config.schema import ModelConfig
from translate.errors import CheckpointError
from translate.model import build_model

_INIT_FUNCTIONS = ({torch.Tensor.normal_, torch.Tensor.uniform_, torch.Tensor.zero_, torch.Tensor.fill_}
                   | {getattr(torch.nn.init, n) for n in dir(torch.nn.init) if n.endswith("_") and n[0] != "_"})


class _SkipInit(TorchFunctionMode):
    """Weight initialisation is skipped while building on the meta device: only shapes are
    needed, and meta-tensor init goes through torch._refs, which imports torch._dynamo (slow to import)."""

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
