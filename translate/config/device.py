"""The one device setting (`device: auto | cpu | cuda`) turned into a torch.device."""

from __future__ import annotations

import torch

from translate.errors import ConfigError


def resolve_device(name: str) -> torch.device:
    """auto = CUDA when available, else CPU; asking for CUDA without one is an error."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device='cuda' but no CUDA device is available; use --device cpu or auto")
    if name not in ("cpu", "cuda"):
        raise ConfigError(f"device={name!r} is invalid: choose one of auto, cpu, cuda")
    return torch.device(name)
