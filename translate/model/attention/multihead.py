"""Multi-head attention (RNMT+, Chen et al. 2018, sec. 3.2; Vaswani et al. 2017, sec. 3.2.2).

H heads, each with its own slice of the projections W_Q q, W_K K, W_V V and its own scorer
(scaled-dot, dot or additive with a per-head v); the H contexts are concatenated and projected;
optionally (`layer_norm`) the query and the context are layer-normalised, as RNMT+ does.
The same module serves the decoder (one query per step) and encoder self-attention (a query per
source position, `attend_sequence`), so head splitting and projections exist once.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from translate.config.schema import AttentionConfig
from translate.model.attention.base import Attention, AttentionOutput, Memory
from translate.model.attention.scoring import (
    additive_score,
    dot_score,
    dot_scores,
    masked_softmax,
    scaled_dot_score,
    scaled_dot_scores,
)

HeadScore = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


class MultiHeadAttention(Attention):
    def __init__(self, query_size: int, memory_size: int, heads: int, scorer: str, bias: bool = False,
                 layer_norm: bool = False) -> None:
        super().__init__()
        self.heads, self.head_size = heads, memory_size // heads
        # RNMT+ found multi-head attention unstable without layer normalisation: normalise the query
        # before its projection and the context after the output projection (decoder attention only)
        self.query_norm = nn.LayerNorm(query_size) if layer_norm else nn.Identity()
        self.context_norm = nn.LayerNorm(memory_size) if layer_norm else nn.Identity()
        self.query_proj = nn.Linear(query_size, memory_size, bias=bias)
        self.key_proj = nn.Linear(memory_size, memory_size, bias=bias)
        self.value_proj = nn.Linear(memory_size, memory_size, bias=bias)
        self.out_proj = nn.Linear(memory_size, memory_size, bias=bias)
        self.v = nn.Parameter(torch.empty(heads, self.head_size).uniform_(-0.1, 0.1)) if scorer == "additive" else None
        self.score: HeadScore = {"dot": dot_score, "scaled-dot": scaled_dot_score, "additive": self._additive}[scorer]
        self.score_all: HeadScore | None = {"dot": dot_scores, "scaled-dot": scaled_dot_scores}.get(scorer)
        self.context_size = memory_size

    def _additive(self, q: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        assert self.v is not None
        return additive_score(q, keys, self.v)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        """(B, H*d) -> (B, H, d); (B, S, H*d) -> (B, H, S, d)."""
        split = x.view(*x.shape[:-1], self.heads, self.head_size)
        return split.movedim(split.dim() - 2, 1)  # dims counted from the front: ONNX Transpose takes no negative axes

    def _merge(self, x: torch.Tensor) -> torch.Tensor:
        """The inverse of `_split`."""
        x = x.movedim(1, x.dim() - 2)
        return x.reshape(*x.shape[:-2], -1)

    def prepare(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        return Memory(keys=self._split(self.key_proj(states)), values=self._split(self.value_proj(states)), mask=mask)

    def forward(self, query: torch.Tensor, memory: Memory, coverage: torch.Tensor | None = None) -> AttentionOutput:
        """query (B, Dq) -> context (B, D), weights (B, S) averaged over heads, head_weights (B, H, S)."""
        q = self._split(self.query_proj(self.query_norm(query)))  # (B, H, d)
        weights = masked_softmax(self.score(q, memory.keys), memory.mask.unsqueeze(1))  # (B, H, S)
        context = (weights.unsqueeze(2) @ memory.values).squeeze(2)  # (B, H, d)
        return AttentionOutput(context=self.context_norm(self.out_proj(self._merge(context))), weights=weights.mean(1),
                               head_weights=weights)

    def attend_sequence(self, states: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Self-attention: states (B, S, D) query themselves -> (B, S, D), weights (B, H, S, S).

        Dot and scaled-dot scorers only (additive would need a (B, H, S, S, d) tensor).
        """
        if self.score_all is None:
            raise ValueError("self-attention scores with dot or scaled-dot")
        memory = self.prepare(states, mask)
        q = self._split(self.query_proj(states))  # (B, H, S, d)
        scores = self.score_all(q, memory.keys)  # (B, H, S_q, S_k): one matrix product, no (B, H, S, S, d) broadcast
        weights = masked_softmax(scores, mask[:, None, None, :])
        return self.out_proj(self._merge(weights @ memory.values)), weights


def build(cfg: AttentionConfig, query_size: int, memory_size: int) -> MultiHeadAttention:
    """kind=multihead (`translate.config.attention`)."""
    return MultiHeadAttention(query_size, memory_size, cfg.multihead.heads, cfg.scorer, layer_norm=cfg.multihead.layer_norm)
