"""The machine a figure was measured on, in one line: CPU model, cores, PyTorch threads and version.

CPU training is deterministic on one CPU model; another model (another vendor's kernels, another
instruction set) rounds some float sums otherwise, so a study run records where it was trained."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's model name ("AMD EPYC", "Intel(R) Xeon(R) Platinum 8488C"), else the platform's processor."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return " ".join(value.split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def describe() -> str:
    """E.g. "AMD EPYC, 2 cores, 2 threads, torch 2.13.0+cpu"."""
    return f"{cpu_model()}, {os.cpu_count()} cores, {torch.get_num_threads()} threads, torch {torch.__version__}"
