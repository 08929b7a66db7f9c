"""Multi-head attention for the RNN decoder (RNMT+, Chen et al. 2018, sec. 3.2).

H heads, each with its own slice of the projections W_Q q, W_K K, W_V V and its own scorer
(scaled-dot, dot or additive with a per-head v); the H contexts are concatenated and projected.
"""

from __future__ import annotations

import torch
from torch import nn

from translate.model.attention.base import Attention, AttentionOutput, Memory
from translate.model.attention.scoring import additive_score, dot_score, masked_softmax, scaled_dot_score

MULTIHEAD_SCORERS = ("additive", "dot", "scaled-dot")


class MultiHeadAttention(Attention):
    def __init__(self, query_size: int, memory_size: int, heads: int, scorer: str) -> None:
        super().__init__()
        if scorer not in MULTIHEAD_SCORERS:
            raise ValueError(f"multihead attention supports scorers {', '.join(MULTIHEAD_SCORERS)}, not '{scorer}'")
        if memory_size % heads:
            raise ValueError(f"heads ({heads}) must divide the memory size ({memory_size})")
        self.heads, self.head_size, self.scorer = heads, memory_size // heads, scorer
        self.query_proj = nn.Linear(query_size, memory_size, bias=False)
        self.key_proj = nn.Linear(memory_size, memory_size, bias=False)
        self.value_proj = nn.Linear(memory_size, memory_size, bias=False)
        self.out_proj = nn.Linear(memory_size, memory_size, bias=False)
        self.v = nn.Parameter(torch.empty(heads, self.head_size).uniform_(-0.1, 0.1)) if scorer == "additive" else None
        self.context_size = memory_size

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        """(B, S, H*d) -> (B, H, S, d)."""
        return x.view(x.size(0), x.size(1), self.heads, self.head_size).transpose(1, 2)

    def prepare(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        return Memory(keys=self._split(self.key_proj(states)), values=self._split(self.value_proj(states)), mask=mask)

    def forward(self, query: torch.Tensor, memory: Memory) -> AttentionOutput:
        q = self.query_proj(query).view(query.size(0), self.heads, self.head_size)  # (B, H, d)
        if self.v is not None:
            scores = additive_score(q, memory.keys, self.v)
        elif self.scorer == "dot":
            scores = dot_score(q, memory.keys)
        else:
            scores = scaled_dot_score(q, memory.keys)  # (B, H, S)
        weights = masked_softmax(scores, memory.mask.unsqueeze(1))
        context = (weights.unsqueeze(2) @ memory.values).squeeze(2)  # (B, H, d)
        context = self.out_proj(context.reshape(query.size(0), -1))
        return AttentionOutput(context=context, weights=weights.mean(1))
