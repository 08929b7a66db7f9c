"""The model on ONNX Runtime: the exported encoder and decoder step (`translate.inference.export`)
fed with a checkpoint's own weights, one sentence at a time, without importing PyTorch."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from translate.errors import CheckpointError
from translate.inference.fast.layout import ENCODER, MEMORY, STATE, STEP
from translate.inference.fast.weights import load_arrays


@dataclass
class FastContext:
    """What search carries between steps: the decoder state (one row per hypothesis) and the
    sentence's encoder memory (one row, repeated to the hypotheses when a step needs it)."""

    state: tuple[np.ndarray, ...]  # hidden (layers, N, H), cell (layers, N, H), feed (N, H)
    memory: tuple[np.ndarray, ...]  # keys, values, mask: one row
    rows: dict[int, tuple[np.ndarray, ...]] = field(default_factory=dict)  # the memory repeated to N rows, by N

    def select(self, indices: np.ndarray) -> FastContext:
        hidden, cell, feed = self.state
        return FastContext((hidden[:, indices], cell[:, indices], feed[indices]), self.memory, self.rows)

    def memory_rows(self, rows: int) -> tuple[np.ndarray, ...]:
        """The memory for `rows` hypotheses of this sentence (repeated once per row count, then reused)."""
        if rows not in self.rows:
            self.rows[rows] = tuple(np.repeat(value, rows, axis=0) for value in self.memory) if rows > 1 else self.memory
        return self.rows[rows]


class _Graph:
    """One ONNX Runtime session and the weights its parameter inputs take."""

    def __init__(self, path: Path, runtime_inputs: tuple[str, ...], weights: Path, threads: int) -> None:
        import onnxruntime as ort
        from onnxruntime.capi.onnxruntime_pybind11_state import Fail, InvalidGraph, InvalidProtobuf, NoSuchFile

        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except (Fail, InvalidGraph, InvalidProtobuf, NoSuchFile) as exc:
            raise CheckpointError(f"{path}: unreadable graph ({exc}); delete it to derive it again") from None
        inputs = {i.name: i.shape for i in self.session.get_inputs()}
        self.names = [name for name in runtime_inputs if name in inputs]  # the exporter drops unused inputs
        wanted = {name: tuple(shape) for name, shape in inputs.items() if name not in runtime_inputs}
        if not all(isinstance(d, int) for shape in wanted.values() for d in shape):
            raise CheckpointError(f"{path}: a parameter input without a fixed shape; delete it to derive it again")
        self.weights = load_arrays(weights, wanted)

    def run(self, values: dict[str, np.ndarray]) -> list[Any]:
        outputs: list[Any] = self.session.run(None, {**self.weights, **{name: values[name] for name in self.names}})
        return outputs


class FastSeq2Seq:
    def __init__(self, graphs: Path, weights: Path, threads: int = 1) -> None:
        self.encoder = _Graph(graphs / ENCODER, ("src", "src_lens"), weights, threads)
        self.decoder = _Graph(graphs / STEP, ("prev", *STATE, *MEMORY), weights, threads)

    def encode(self, ids: list[int]) -> FastContext:
        """Piece ids of one source sentence (ending with EOS) -> the decoding context."""
        out = self.encoder.run({"src": np.array([ids], dtype=np.int64), "src_lens": np.array([len(ids)], dtype=np.int64)})
        return FastContext(tuple(out[:3]), tuple(out[3:]))

    def step(self, tokens: np.ndarray, ctx: FastContext) -> tuple[np.ndarray, FastContext]:
        """tokens (N,) -> log-probabilities (N, V) float32 and the next context."""
        memory = dict(zip(MEMORY, ctx.memory_rows(len(tokens))))
        out = self.decoder.run({"prev": tokens.astype(np.int64), **dict(zip(STATE, ctx.state)), **memory})
        return out[0], FastContext(tuple(out[1:]), ctx.memory, ctx.rows)
