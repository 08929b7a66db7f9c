"""The encoder-decoder of `translate.model` in NumPy, inference only, one sentence at a time.

Computes what `Seq2Seq.encode` and `Seq2Seq.step` compute in eval mode (tested against them to
1e-5 for every configuration it accepts): a (bi)GRU/LSTM encoder, soft attention with each scorer
in plain or key-value mode, or none, and the input-feeding decoder. Anything else (hard,
multi-head, encoder self-attention) is left to the PyTorch engine: see `unsupported`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from translate.config.schema import ModelConfig
from translate.inference.lite.weights import Arrays


def unsupported(cfg: ModelConfig) -> str | None:
    """Why the NumPy engine cannot run this model (None: it can)."""
    if cfg.attention.kind not in ("soft", "none"):
        return f"attention kind {cfg.attention.kind}"
    if cfg.encoder_self_attention:
        return "encoder self-attention"
    return None


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for very negative x: the result is 0, as wanted
        return 1.0 / (1.0 + np.exp(-x))


def log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


@dataclass
class Cell:
    """One direction of one RNN layer (PyTorch's gate order: GRU r, z, n; LSTM i, f, g, o)."""

    w_ih: np.ndarray
    w_hh: np.ndarray
    b_ih: np.ndarray
    b_hh: np.ndarray
    lstm: bool

    def __call__(self, gates_x: np.ndarray, h: np.ndarray, c: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """gates_x = x W_ihᵀ + b_ih (N, G*H), precomputed; h, c (N, H) -> new h, c."""
        gates_h = h @ self.w_hh.T + self.b_hh
        if self.lstm:
            assert c is not None
            i, f, g, o = np.split(gates_x + gates_h, 4, axis=-1)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            return _sigmoid(o) * np.tanh(c), c
        x_r, x_z, x_n = np.split(gates_x, 3, axis=-1)
        h_r, h_z, h_n = np.split(gates_h, 3, axis=-1)
        r, z = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
        n = np.tanh(x_n + r * h_n)
        return n + z * (h - n), None

    def run(self, x: np.ndarray, reverse: bool) -> tuple[np.ndarray, np.ndarray]:
        """Over a whole sentence x (S, In) -> states (S, H) and the final state (H,)."""
        gates_x = x @ self.w_ih.T + self.b_ih  # (S, G*H): one product for all positions
        size = self.w_hh.shape[1]
        h, c = np.zeros((1, size), np.float32), (np.zeros((1, size), np.float32) if self.lstm else None)
        out = np.empty((x.shape[0], size), np.float32)
        for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
            h, c = self(gates_x[t:t + 1], h, c)
            out[t] = h[0]
        return out, h[0]


def _cell(w: Arrays, prefix: str, suffix: str, lstm: bool) -> Cell:
    return Cell(*(w[f"{prefix}{kind}{suffix}"] for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")), lstm)


@dataclass
class Context:
    """What the search carries for one sentence: decoder state (rows = beams) and its memory."""

    hidden: np.ndarray  # (layers, N, H)
    cell: np.ndarray | None
    feed: np.ndarray  # (N, H)
    keys: np.ndarray  # (S, Dk)
    values: np.ndarray  # (S, H)

    def select(self, rows: np.ndarray) -> Context:
        cell = None if self.cell is None else self.cell[:, rows]
        return Context(self.hidden[:, rows], cell, self.feed[rows], self.keys, self.values)


class LiteSeq2Seq:
    def __init__(self, cfg: ModelConfig, w: Arrays) -> None:
        lstm, self.cfg, self.w = cfg.rnn_type == "lstm", cfg, w
        suffixes = ["", "_reverse"][:2 if cfg.bidirectional else 1]
        self.encoder = [[_cell(w, "encoder.rnn.", f"_l{layer}{s}", lstm) for s in suffixes]
                        for layer in range(cfg.encoder_layers)]
        self.cells = [_cell(w, f"decoder.cells.{layer}.", "", lstm) for layer in range(cfg.decoder_layers)]
        self.lstm = lstm

    def encode(self, ids: list[int]) -> Context:
        """Source ids (with EOS) -> the initial search context (one row)."""
        x = self.w["encoder.embedding.weight"][ids]  # (S, E)
        finals: list[np.ndarray] = []
        for layer in self.encoder:
            runs = [cell.run(x, reverse=d == 1) for d, cell in enumerate(layer)]
            x, finals = np.concatenate([states for states, _ in runs], -1), [final for _, final in runs]
        summary = np.concatenate(finals)  # (H,): last layer, forward then backward final state
        hidden = np.tanh(summary @ self.w["decoder.bridge.weight"].T + self.w["decoder.bridge.bias"])
        hidden = hidden.reshape(self.cfg.decoder_layers, 1, -1)
        keys, values = self._memory(x)
        return Context(hidden, np.zeros_like(hidden) if self.lstm else None, np.zeros((1, x.shape[1]), np.float32),
                       keys, values)

    def _memory(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        att, prefix = self.cfg.attention, "decoder.attention."
        keys, values = states, states
        if att.kind == "soft" and att.mode == "key-value":
            keys, values = states @ self.w[prefix + "key_proj.weight"].T, states @ self.w[prefix + "value_proj.weight"].T
        if att.kind == "soft" and att.scorer == "additive":
            keys = keys @ self.w[prefix + "scorer.key_layer.weight"].T
        elif att.kind == "soft" and att.scorer == "bilinear":
            keys = keys @ self.w[prefix + "scorer.weight"]
        return keys, values

    def _context(self, query: np.ndarray, ctx: Context) -> np.ndarray:
        """Soft attention's context (N, H), or zeros without attention."""
        att = self.cfg.attention
        if att.kind == "none":
            return np.zeros_like(query)
        if att.scorer == "additive":
            projected = query @ self.w["decoder.attention.scorer.query_layer.weight"].T  # (N, A)
            scores = np.tanh(ctx.keys[None] + projected[:, None]) @ self.w["decoder.attention.scorer.v"]
        else:
            scores = query @ ctx.keys.T  # (N, S)
            if att.scorer == "scaled-dot":
                scores = scores / np.float32(np.sqrt(query.shape[-1]))
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        return (weights / weights.sum(-1, keepdims=True)) @ ctx.values

    def step(self, tokens: np.ndarray, ctx: Context) -> tuple[np.ndarray, Context]:
        """tokens (N,) -> log-probabilities (N, V), next context."""
        x = self.w["decoder.embedding.weight"][tokens]
        if self.cfg.input_feeding:
            x = np.concatenate([x, ctx.feed], -1)
        hiddens, cells = [], []
        for layer, cell in enumerate(self.cells):
            x, c = cell(x @ cell.w_ih.T + cell.b_ih, ctx.hidden[layer], None if ctx.cell is None else ctx.cell[layer])
            hiddens.append(x)
            cells.append(c)
        combined = np.concatenate([self._context(x, ctx), x], -1)
        out = np.tanh(combined @ self.w["decoder.combine.weight"].T)
        logits = out @ self.w["decoder.generator.weight"].T + self.w["decoder.generator.bias"]
        new_cell = np.stack(cells) if self.lstm else None  # type: ignore[arg-type]
        return log_softmax(logits), Context(np.stack(hiddens), new_cell, out, ctx.keys, ctx.values)
