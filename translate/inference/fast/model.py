"""The model on ONNX Runtime: the exported encoder and decoder step (`translate.inference.export`)
fed with a checkpoint's own weights, sentences in batches, without importing PyTorch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from translate.errors import CheckpointError
from translate.inference.fast.layout import COPY_IDS, ENCODER, MEMORY, STATE, STEP
from translate.inference.fast.weights import load_arrays
from translate.tokens import PAD_ID


@dataclass(frozen=True)
class FastContext:
    """What search carries between steps, one row per live hypothesis: the decoder state and the
    encoder memory of the hypothesis's sentence."""

    state: tuple[np.ndarray, ...]  # STATE: hidden, cell (layers, N, H), feed (N, H), attended (N, S), coverage (N, S, d)
    memory: tuple[np.ndarray, ...]  # keys, values (N, ...), mask (N, S); copy attention: copy_ids (N, S)

    def select(self, rows: np.ndarray) -> FastContext:
        return FastContext(self._state(rows), tuple(value[rows] for value in self.memory))

    def reorder(self, rows: np.ndarray) -> FastContext:
        """Rows that stay with their sentence: the memory rows are the same."""
        return FastContext(self._state(rows), self.memory)

    def _state(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        hidden, cell, *per_row = self.state
        return hidden[:, rows], cell[:, rows], *(value[rows] for value in per_row)

    def attended(self) -> np.ndarray:
        """(N, S): the attention each source position received so far; 1 on padding (nothing to cover)."""
        return np.where(self.memory[2], self.state[3], np.float32(1))


class _Graph:
    """One ONNX Runtime session and the weights its parameter inputs take."""

    def __init__(self, path: Path, runtime_inputs: tuple[str, ...], weights: Path, threads: int) -> None:
        import onnxruntime as ort
        from onnxruntime.capi.onnxruntime_pybind11_state import Fail, InvalidGraph, InvalidProtobuf, NoSuchFile

        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        options.log_severity_level = 3
        # no arena: ONNX Runtime then frees a large batch's buffers instead of keeping the largest it saw
        # (beam 5 over the test split: peak RSS 605-615 MB instead of 690-703 MB, the same wall time)
        options.enable_cpu_mem_arena = False
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
        self.decoder = _Graph(graphs / STEP, ("prev", *STATE, *MEMORY, COPY_IDS), weights, threads)

    def encode(self, sources: list[list[int]]) -> FastContext:
        """Piece ids of source sentences (each ending with EOS) -> the decoding context, one row each."""
        width = max(len(ids) for ids in sources)
        src = np.full((len(sources), width), PAD_ID, dtype=np.int64)
        for row, ids in enumerate(sources):
            src[row, :len(ids)] = ids
        out = self.encoder.run({"src": src, "src_lens": np.array([len(ids) for ids in sources], dtype=np.int64)})
        return FastContext(tuple(out[:len(STATE)]), tuple(out[len(STATE):]))

    def step(self, tokens: np.ndarray, ctx: FastContext) -> tuple[np.ndarray, FastContext]:
        """tokens (N,) -> log-probabilities (N, V) float32 (V + S with copy attention) and the next context."""
        out = self.decoder.run({"prev": tokens.astype(np.int64), **dict(zip(STATE, ctx.state)),
                                **dict(zip((*MEMORY, COPY_IDS), ctx.memory))})
        return out[0], FastContext(tuple(out[1:]), ctx.memory)
