"""The fast path's graphs, derived from the PyTorch model: `Seq2Seq.encode` and `Seq2Seq.step`
exported to ONNX, so that ONNX Runtime runs exactly the model's own maths without PyTorch.

The graphs hold the structure only: every parameter is a named graph input (its `state_dict` name),
and `translate.inference.fast` feeds the checkpoint's own tensors to it. A graph therefore depends
on the model configuration and the vocabulary sizes, never on weights, and two checkpoints of one
architecture share it. Search stays outside the graphs (`translate.inference.search`, shared by both engines).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from torch import nn

from translate.config.schema import ModelConfig
from translate.inference.fast.layout import COPY_IDS, ENCODER, GRAPHS_JSON, MEMORY, STATE, STEP
from translate.model import Seq2Seq, build_model
from translate.model.attention import Memory
from translate.model.decoder import DecoderState
from translate.model.seq2seq import DecodingContext
from translate.tokens import BOS_ID, EOS_ID, PAD_ID

OPSET = 17
PREFIX = "model."  # the wrappers hold the model under this name; graph inputs drop it


class EncoderGraph(nn.Module):
    """src (N, S) padded, src_lens (N,) -> the decoding context as flat tensors (STATE, then MEMORY)."""

    def __init__(self, model: Seq2Seq) -> None:
        super().__init__()
        self.model = model

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ctx = self.model.encode(src, src_lens)
        copies = () if ctx.state.copy_ids is None else (ctx.state.copy_ids,)
        return (*_state(ctx.state), ctx.memory.keys, ctx.memory.values, ctx.memory.mask, *copies)


class StepGraph(nn.Module):
    """prev (N,), STATE, MEMORY (N rows) -> log-probabilities (N, V), next STATE: `Seq2Seq.step`. With
    copy attention the source's copy ids come last among the MEMORY (they are fixed per sentence, as the
    memory is), and the log-probabilities cover V + S ids."""

    def __init__(self, model: Seq2Seq) -> None:
        super().__init__()
        self.model, self.lstm = model, model.decoder.is_lstm
        self.covers = model.decoder.attention.coverage is not None

    def forward(self, prev: torch.Tensor, hidden: torch.Tensor, cell: torch.Tensor, feed: torch.Tensor,
                attended: torch.Tensor, coverage: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                mask: torch.Tensor, copy_ids: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
        state = DecoderState(hidden=hidden, cell=cell if self.lstm else None, feed=feed, attended=attended,
                             coverage=coverage if self.covers else None, copy_ids=copy_ids)
        log_probs, ctx = self.model.step(prev, DecodingContext(state, Memory(keys=keys, values=values, mask=mask)))
        return (log_probs, *_state(ctx.state))


def _state(state: DecoderState) -> tuple[torch.Tensor, ...]:
    """STATE: (hidden, cell, feed, attended, coverage); a GRU's cell and the coverage of an attention
    without one are zeros, so every graph has the same inputs and outputs."""
    cell = torch.zeros_like(state.hidden) if state.cell is None else state.cell
    coverage = torch.zeros_like(state.attended).unsqueeze(-1) if state.coverage is None else state.coverage
    return state.hidden, cell, state.feed, state.attended, coverage


def _strip_weights(path: Path, parameters: set[str]) -> list[str]:
    """Remove the parameters' values from the graph (they stay graph inputs); rename them to their
    `state_dict` names in the model (without the wrapper's prefix). Returns the names."""
    import onnx

    graph = onnx.load(str(path))
    renamed = {name: name[len(PREFIX):] for name in parameters if name.startswith(PREFIX)}
    kept = [init for init in graph.graph.initializer if init.name not in renamed]
    del graph.graph.initializer[:]
    graph.graph.initializer.extend(kept)
    for value in graph.graph.input:
        value.name = renamed.get(value.name, value.name)
    for node in graph.graph.node:
        node.input[:] = [renamed.get(name, name) for name in node.input]
    onnx.save(graph, str(path))
    return sorted(renamed[name] for name in renamed if any(v.name == renamed[name] for v in graph.graph.input))


@contextmanager
def _quiet_native_warnings() -> Iterator[None]:
    """The exporter's C++ notes (shape inference of packed sequences) go straight to file descriptor 2."""
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _logaddexp(g: Any, a: Any, b: Any) -> Any:
    """aten::logaddexp, which the ONNX exporter lacks, as PyTorch computes it: max(a, b) + log(1 + exp(-|a - b|)),
    and -inf where both are -inf (copy attention's mixture where neither side gives a piece any mass)."""
    zero = g.op("Constant", value_t=torch.tensor(0.0))
    gap = g.op("Where", g.op("Equal", a, b), zero, g.op("Sub", a, b))  # no inf - inf
    one = g.op("Constant", value_t=torch.tensor(1.0))
    return g.op("Add", g.op("Max", a, b), g.op("Log", g.op("Add", one, g.op("Exp", g.op("Neg", g.op("Abs", gap))))))


def _log_sigmoid(g: Any, x: Any) -> Any:
    """aten::log_sigmoid as -softplus(-x): the exporter's log(sigmoid(x)) loses a saturated copy switch
    (ONNX Runtime's sigmoid stops short of 0 for x below about -18)."""
    return g.op("Neg", g.op("Softplus", g.op("Neg", x)))


def _export(module: nn.Module, args: tuple[torch.Tensor, ...], path: Path, inputs: list[str], outputs: list[str],
            axes: dict[str, dict[int, str]]) -> list[str]:
    with torch.no_grad(), warnings.catch_warnings(), _quiet_native_warnings():
        warnings.simplefilter("ignore")  # tracer notes on shapes that are fixed by the architecture anyway
        for name, symbolic in (("aten::logaddexp", _logaddexp), ("aten::log_sigmoid", _log_sigmoid)):
            torch.onnx.register_custom_op_symbolic(name, symbolic, OPSET)  # type: ignore[attr-defined]
        torch.onnx.export(module, args, str(path), dynamo=False, opset_version=OPSET, input_names=inputs,
                          output_names=outputs, dynamic_axes=axes, keep_initializers_as_inputs=True,
                          do_constant_folding=False)
    return _strip_weights(path, {name for name, _ in module.named_parameters()}
                          | {name for name, _ in module.named_buffers()})


def _memory_axes(memory: Memory) -> dict[str, dict[int, str]]:
    """keys/values (N, S, D) or (N, heads, S, d): the source axis is the second from the end."""
    return {"keys": {0: "N", memory.keys.dim() - 2: "S"}, "values": {0: "N", memory.values.dim() - 2: "S"},
            "mask": {0: "N", 1: "S"}, COPY_IDS: {0: "N", 1: "S"}}


def export_graphs(model: Seq2Seq, folder: Path, fingerprint: str) -> None:
    """Write encoder.onnx, step.onnx and graphs.json (the fingerprint and the weight names) to `folder`."""
    model = model.float().eval()
    memory_names = [*MEMORY, *([COPY_IDS] if model.decoder.copy is not None else [])]
    encoder, step = EncoderGraph(model).eval(), StepGraph(model).eval()
    # two sentences of different lengths, so that the traced graph pads, packs and masks as a batch does
    src = torch.tensor([[BOS_ID + 2, BOS_ID + 3, BOS_ID + 4, EOS_ID], [BOS_ID + 5, EOS_ID, PAD_ID, PAD_ID]])
    src_lens = torch.tensor([4, 2])
    with torch.no_grad():
        flat = encoder(src, src_lens)
    state_axes = {"hidden": {1: "N"}, "cell": {1: "N"}, "feed": {0: "N"}, "attended": {0: "N", 1: "S"},
                  "coverage": {0: "N", 1: "S"}}
    keys, values, mask = flat[len(STATE):len(STATE) + len(MEMORY)]
    memory = Memory(keys=keys, values=values, mask=mask)
    memory_axes = {name: axes for name, axes in _memory_axes(memory).items() if name in memory_names}
    encoder_weights = _export(encoder, (src, src_lens), folder / ENCODER, ["src", "src_lens"], [*STATE, *memory_names],
                              {"src": {0: "N", 1: "S"}, "src_lens": {0: "N"}, **state_axes, **memory_axes})
    args = (torch.full((src.size(0),), BOS_ID), *flat)  # any N: rows are hypotheses
    step_weights = _export(step, args, folder / STEP, ["prev", *STATE, *memory_names],
                           ["log_probs", *(f"next_{name}" for name in STATE)],
                           {"prev": {0: "N"}, "log_probs": {0: "N", 1: "ids"}, **state_axes, **memory_axes})
    (folder / GRAPHS_JSON).write_text(json.dumps({"fingerprint": fingerprint, "opset": OPSET,
                                                  "weights": sorted(set(encoder_weights) | set(step_weights))},
                                                 indent=1), encoding="utf-8")


def derive(folder: Path, model_config: ModelConfig, src_vocab: int, tgt_vocab: int, fingerprint: str) -> None:
    """Build the model of a checkpoint's configuration (its weights are not needed) and export its graphs."""
    export_graphs(build_model(model_config, src_vocab, tgt_vocab), folder, fingerprint)
