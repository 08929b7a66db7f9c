"""The fast path's graphs, derived from the PyTorch model: `Seq2Seq.encode` and `Seq2Seq.step`
exported to ONNX, so that ONNX Runtime runs exactly the model's own maths without PyTorch.

The graphs hold the structure only: every parameter is a named graph input (its `state_dict` name),
and `translate.inference.fast` feeds the checkpoint's own tensors to it. A graph therefore depends
on the model configuration and the vocabulary sizes, never on weights, and two checkpoints of one
architecture share it. Search stays outside the graphs (`translate.inference.search`, shared by both engines).

The decoder state and the memory are flat tensors by name: the state every model has (`BASE_STATE`)
then the decoder features' state, the memory (`MEMORY`) then the features' values fixed per sentence
(`translate.model.features.base`). graphs.json lists both ("state", "memory"), and the runtime feeds
them back by those names, so a new feature needs no change here nor a new graph format.
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
from translate.inference.fast.layout import BASE_STATE, ENCODER, GRAPHS_JSON, LAYERED, MEMORY, STEP
from translate.model import Seq2Seq, build_model
from translate.model.attention import Memory
from translate.model.decoder import DecoderState
from translate.model.seq2seq import DecodingContext
from translate.tokens import BOS_ID, EOS_ID, PAD_ID

OPSET = 17
PREFIX = "model."  # the wrappers hold the model under this name; graph inputs drop it


def state_names(model: Seq2Seq) -> list[str]:
    """The decoder state's names, in the graphs' order: the base state, then each feature's."""
    return [*BASE_STATE, *(name for feature in model.decoder.features for name in feature.state)]


def memory_names(model: Seq2Seq) -> list[str]:
    """The memory's names, in the graphs' order: keys, values, mask, then each feature's fixed values."""
    return [*MEMORY, *(name for feature in model.decoder.features for name in feature.fixed)]


class EncoderGraph(nn.Module):
    """src (N, S) padded, src_lens (N,) -> the decoding context as flat tensors (the state, then the memory)."""

    def __init__(self, model: Seq2Seq) -> None:
        super().__init__()
        self.model = model
        self.fixed = [name for feature in model.decoder.features for name in feature.fixed]

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ctx = self.model.encode(src, src_lens)
        return (*_state(self.model, ctx.state), ctx.memory.keys, ctx.memory.values, ctx.memory.mask,
                *(ctx.state.features[name] for name in self.fixed))


class StepGraph(nn.Module):
    """prev (N,), the state, the memory (N rows; by `state_names` and `memory_names`) -> log-probabilities
    (N, V) (V + S with copy attention), the next state: `Seq2Seq.step`."""

    def __init__(self, model: Seq2Seq) -> None:
        super().__init__()
        self.model, self.lstm = model, model.decoder.is_lstm
        self.states, self.memories = state_names(model), memory_names(model)

    def forward(self, prev: torch.Tensor, *flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
        values = dict(zip([*self.states, *self.memories], flat, strict=True))
        features = {name: values[name] for name in [*self.states[len(BASE_STATE):], *self.memories[len(MEMORY):]]}
        state = DecoderState(hidden=values["hidden"], cell=values["cell"] if self.lstm else None, feed=values["feed"],
                             attended=values["attended"], features=features)
        memory = Memory(keys=values["keys"], values=values["values"], mask=values["mask"])
        log_probs, ctx = self.model.step(prev, DecodingContext(state, memory))
        return (log_probs, *_state(self.model, ctx.state))


def _state(model: Seq2Seq, state: DecoderState) -> tuple[torch.Tensor, ...]:
    """The state by `state_names`; a GRU's cell is zeros, so every graph has the base state."""
    cell = torch.zeros_like(state.hidden) if state.cell is None else state.cell
    base = {"hidden": state.hidden, "cell": cell, "feed": state.feed, "attended": state.attended}
    return tuple(base[name] if name in base else state.features[name] for name in state_names(model))


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


def _axes(names: list[str], flat: tuple[torch.Tensor, ...]) -> dict[str, dict[int, str]]:
    """The dynamic axes of flat state or memory tensors: rows N (the second axis of hidden and cell, else
    the first) and the source's length S: the second axis of attended, mask and every feature's value
    ((N, S, ...) by the feature interface), the second from the end of keys and values."""
    axes: dict[str, dict[int, str]] = {}
    for name, value in zip(names, flat):
        if name in LAYERED:
            axes[name] = {1: "N"}
        elif name == "feed":
            axes[name] = {0: "N"}
        elif name in ("keys", "values"):
            axes[name] = {0: "N", value.dim() - 2: "S"}
        else:
            axes[name] = {0: "N", 1: "S"}
    return axes


def export_graphs(model: Seq2Seq, folder: Path, fingerprint: str) -> None:
    """Write encoder.onnx, step.onnx and graphs.json (the fingerprint, the weight names, and the
    state's and memory's names) to `folder`."""
    model = model.float().eval()
    states, memories = state_names(model), memory_names(model)
    encoder, step = EncoderGraph(model).eval(), StepGraph(model).eval()
    # two sentences of different lengths, so that the traced graph pads, packs and masks as a batch does
    src = torch.tensor([[BOS_ID + 2, BOS_ID + 3, BOS_ID + 4, EOS_ID], [BOS_ID + 5, EOS_ID, PAD_ID, PAD_ID]])
    src_lens = torch.tensor([4, 2])
    with torch.no_grad():
        flat = encoder(src, src_lens)
    axes = _axes([*states, *memories], flat)
    encoder_weights = _export(encoder, (src, src_lens), folder / ENCODER, ["src", "src_lens"], [*states, *memories],
                              {"src": {0: "N", 1: "S"}, "src_lens": {0: "N"}, **axes})
    args = (torch.full((src.size(0),), BOS_ID), *flat)  # any N: rows are hypotheses
    state_axes = {name: axes[name] for name in states}
    step_weights = _export(step, args, folder / STEP, ["prev", *states, *memories],
                           ["log_probs", *(f"next_{name}" for name in states)],
                           {"prev": {0: "N"}, "log_probs": {0: "N", 1: "ids"}, **axes,
                            **{f"next_{name}": value for name, value in state_axes.items()}})
    (folder / GRAPHS_JSON).write_text(json.dumps({"fingerprint": fingerprint, "opset": OPSET,
                                                  "weights": sorted(set(encoder_weights) | set(step_weights)),
                                                  "state": states, "memory": memories},
                                                 indent=1), encoding="utf-8")


def derive(folder: Path, model_config: ModelConfig, src_vocab: int, tgt_vocab: int, fingerprint: str) -> None:
    """Build the model of a checkpoint's configuration (its weights are not needed) and export its graphs."""
    export_graphs(build_model(model_config, src_vocab, tgt_vocab), folder, fingerprint)
