"""The model on ONNX Runtime: the exported encoder and decoder step (`translate.inference.export`)
fed with a checkpoint's own weights, sentences in batches, without importing PyTorch. The decoder
state and the memory travel by the names the graphs list in graphs.json, whatever decoder features
the model has."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from translate.errors import CheckpointError
from translate.inference.fast.layout import BASE_STATE, ENCODER, GRAPHS_JSON, LAYERED, MEMORY, STEP
from translate.inference.fast.weights import load_arrays
from translate.tokens import PAD_ID


@dataclass(frozen=True)
class FastContext:
    """What search carries between steps, one row per live hypothesis: the decoder state and the
    encoder memory of the hypothesis's sentence, by name (`translate.inference.export`)."""

    state: dict[str, np.ndarray]  # hidden, cell (layers, N, H), feed (N, H), attended (N, S), then the features'
    memory: dict[str, np.ndarray]  # keys, values (N, ...), mask (N, S), then the features' fixed values (N, S, ...)

    def select(self, rows: np.ndarray) -> FastContext:
        return FastContext(self._state(rows), {name: value[rows] for name, value in self.memory.items()})

    def reorder(self, rows: np.ndarray) -> FastContext:
        """Rows that stay with their sentence: the memory rows are the same."""
        return FastContext(self._state(rows), self.memory)

    def _state(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return {name: value[:, rows] if name in LAYERED else value[rows] for name, value in self.state.items()}

    def attended(self) -> np.ndarray:
        """(N, S): the attention each source position received so far; 1 on padding (nothing to cover)."""
        return np.where(self.memory["mask"], self.state["attended"], np.float32(1))


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
        try:
            listed = json.loads((graphs / GRAPHS_JSON).read_text(encoding="utf-8"))
            self.states, self.memories = list(listed["state"]), list(listed["memory"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CheckpointError(f"{graphs / GRAPHS_JSON}: no list of the graphs' state and memory ({exc}); "
                                  f"delete the folder to derive it again") from None
        if self.states[:len(BASE_STATE)] != list(BASE_STATE) or self.memories[:len(MEMORY)] != list(MEMORY):
            raise CheckpointError(f"{graphs / GRAPHS_JSON}: the state or memory does not start with the base names; "
                                  f"delete the folder to derive it again")
        self.encoder = _Graph(graphs / ENCODER, ("src", "src_lens"), weights, threads)
        self.decoder = _Graph(graphs / STEP, ("prev", *self.states, *self.memories), weights, threads)

    def encode(self, sources: list[list[int]]) -> FastContext:
        """Piece ids of source sentences (each ending with EOS) -> the decoding context, one row each."""
        width = max(len(ids) for ids in sources)
        src = np.full((len(sources), width), PAD_ID, dtype=np.int64)
        for row, ids in enumerate(sources):
            src[row, :len(ids)] = ids
        out = self.encoder.run({"src": src, "src_lens": np.array([len(ids) for ids in sources], dtype=np.int64)})
        return FastContext(dict(zip(self.states, out[:len(self.states)], strict=True)),
                           dict(zip(self.memories, out[len(self.states):], strict=True)))

    def step(self, tokens: np.ndarray, ctx: FastContext) -> tuple[np.ndarray, FastContext]:
        """tokens (N,) -> log-probabilities (N, V) float32 (V + S with copy attention) and the next context."""
        out = self.decoder.run({"prev": tokens.astype(np.int64), **ctx.state, **ctx.memory})
        return out[0], FastContext(dict(zip(self.states, out[1:], strict=True)), ctx.memory)
