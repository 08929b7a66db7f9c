"""A checkpoint's weights as float32 NumPy arrays, checked against the shapes its config implies."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from translate.checkpoint.files import read_header
from translate.config.schema import ModelConfig
from translate.errors import CheckpointError

Arrays = dict[str, np.ndarray]
_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def _rnn_shapes(prefix: str, suffixes: list[str], inputs: list[int], gates: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """torch.nn.GRU/LSTM/GRUCell parameter names and shapes: one entry per (input size, name suffix)."""
    shapes: dict[str, tuple[int, ...]] = {}
    for size, suffix in zip(inputs, suffixes):
        shapes.update({f"{prefix}weight_ih{suffix}": (gates * hidden, size), f"{prefix}weight_hh{suffix}": (gates * hidden, hidden),
                       f"{prefix}bias_ih{suffix}": (gates * hidden,), f"{prefix}bias_hh{suffix}": (gates * hidden,)})
    return shapes


def expected_shapes(cfg: ModelConfig, src_vocab: int, tgt_vocab: int) -> dict[str, tuple[int, ...]]:
    """Every tensor of a soft-attention or attention-free model (the kinds `translate.inference.lite` runs)."""
    hidden, emb, gates = cfg.hidden_size, cfg.embedding_size, 3 if cfg.rnn_type == "gru" else 4
    dirs = 2 if cfg.bidirectional else 1
    shapes: dict[str, tuple[int, ...]] = {"encoder.embedding.weight": (src_vocab, emb),
                                          "decoder.embedding.weight": (tgt_vocab, emb),
                                          "decoder.bridge.weight": (hidden * cfg.decoder_layers, hidden),
                                          "decoder.bridge.bias": (hidden * cfg.decoder_layers,),
                                          "decoder.combine.weight": (hidden, 2 * hidden),
                                          "decoder.generator.weight": (tgt_vocab, hidden),
                                          "decoder.generator.bias": (tgt_vocab,)}
    for layer in range(cfg.encoder_layers):
        suffixes = [f"_l{layer}", f"_l{layer}_reverse"][:dirs]
        size = emb if layer == 0 else hidden
        shapes.update(_rnn_shapes("encoder.rnn.", suffixes, [size] * dirs, gates, hidden // dirs))
    for layer in range(cfg.decoder_layers):
        size = (emb + (hidden if cfg.input_feeding else 0)) if layer == 0 else hidden
        shapes.update(_rnn_shapes(f"decoder.cells.{layer}.", [""], [size], gates, hidden))
    att = cfg.attention
    if att.kind == "soft":
        scorer = "decoder.attention.scorer."
        if att.scorer == "additive":
            shapes.update({scorer + "key_layer.weight": (hidden, hidden), scorer + "query_layer.weight": (hidden, hidden),
                           scorer + "v": (hidden,)})
        elif att.scorer == "bilinear":
            shapes[scorer + "weight"] = (hidden, hidden)
        if att.mode == "key-value":
            shapes.update({"decoder.attention.key_proj.weight": (hidden, hidden),
                           "decoder.attention.value_proj.weight": (hidden, hidden)})
    return shapes


def _array(data: bytes, start: int, info: dict[str, object]) -> np.ndarray:
    dtype, shape = _DTYPES[str(info["dtype"])], tuple(info["shape"])  # type: ignore[arg-type]
    begin = info["data_offsets"][0]  # type: ignore[index]
    raw = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=start + begin)
    if dtype is np.uint16:  # bfloat16: the upper half of a float32
        return (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)
    return raw.astype(np.float32).reshape(shape)


def load_arrays(weights: Path, cfg: ModelConfig, src_vocab: int, tgt_vocab: int) -> Arrays:
    """The weights, after checking names and shapes (tied output weights may be stored once, under
    the embedding's name); raises CheckpointError naming the first tensor that does not fit."""
    header = read_header(weights)  # byte ranges checked against the file, parameter cap
    shapes = expected_shapes(cfg, src_vocab, tgt_vocab)
    tied = cfg.tie_embeddings and "decoder.generator.weight" not in header
    for name, info in sorted(header.items()):
        if name not in shapes or info["dtype"] not in _DTYPES:
            raise CheckpointError(f"{weights}: unexpected tensor {name!r} for the NumPy engine")
        if tuple(info["shape"]) != shapes[name]:
            raise CheckpointError(f"{weights}: {name} has shape {info['shape']}, config.json implies {list(shapes[name])}")
    missing = sorted(set(shapes) - set(header) - ({"decoder.generator.weight"} if tied else set()))
    if missing:
        raise CheckpointError(f"{weights}: tensor {missing[0]!r} missing")
    data = weights.read_bytes()
    start = 8 + int.from_bytes(data[:8], "little")
    arrays = {name: _array(data, start, info) for name, info in header.items()}
    if tied:
        arrays["decoder.generator.weight"] = arrays["decoder.embedding.weight"]
    return arrays
