"""A checkpoint's tensors as float32 NumPy arrays (int64 ones, copy attention's tables, as int64), by
the names and shapes its graphs ask for.

The safetensors header is read with every byte range checked (`translate.checkpoint.files.read_header`);
nothing here knows the model's parameter names: they come from the graphs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from translate.checkpoint.files import read_header
from translate.errors import CheckpointError

_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I64": np.int64}
TIED = {"decoder.generator.weight": "decoder.embedding.weight"}  # stored once when the output layer is tied


def _array(data: bytes, start: int, info: dict[str, Any]) -> np.ndarray:
    dtype, shape = _DTYPES[str(info["dtype"])], tuple[int, ...](info["shape"])
    begin = info["data_offsets"][0]
    raw = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=start + begin)
    if dtype is np.uint16:  # bfloat16: the upper half of a float32
        return (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)
    return raw.astype(np.int64 if dtype is np.int64 else np.float32).reshape(shape)


def load_arrays(weights: Path, wanted: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The tensors named in `wanted`, float32, after checking each shape; raises CheckpointError
    naming the first tensor that is missing or does not fit."""
    header = read_header(weights)
    found: dict[str, str] = {}
    for name, shape in sorted(wanted.items()):
        stored = name if name in header else TIED.get(name, name)
        if stored not in header:
            raise CheckpointError(f"{weights}: tensor {name!r} missing")
        info = header[stored]
        if info["dtype"] not in _DTYPES:
            raise CheckpointError(f"{weights}: {stored} has dtype {info['dtype']}; expected F32, F16, BF16 or I64")
        if tuple(info["shape"]) != tuple(shape):
            raise CheckpointError(f"{weights}: {stored} has shape {info['shape']}, config.json implies {list(shape)}")
        found[name] = stored
    data = weights.read_bytes()
    start = 8 + int.from_bytes(data[:8], "little")
    return {name: _array(data, start, header[stored]) for name, stored in found.items()}
