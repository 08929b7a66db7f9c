"""Encoder self-attention: multi-head scaled-dot attention of the RNN states over themselves,
masked, with dropout, a residual connection and layer norm (Vaswani et al. 2017, sec. 3.1).

An optional layer on top of the RNN encoder (Domhan 2018: self-attention matters most on the
encoder side); combinable with any decoder attention. Built on `MultiHeadAttention`.
"""

from __future__ import annotations

import torch
from torch import nn

from translate.model.attention.multihead import MultiHeadAttention
from translate.model.dropout import Dropout


class SelfAttentionLayer(nn.Module):
    def __init__(self, size: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.attention = MultiHeadAttention(size, size, heads, "scaled-dot", bias=True)
        self.dropout = Dropout(dropout)
        self.norm = nn.LayerNorm(size)

    def forward(self, states: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """states (B, S, D), mask (B, S) -> new states (B, S, D) (zero on padding), weights (B, H, S, S)."""
        mixed, weights = self.attention.attend_sequence(states, mask)
        out = self.norm(states + self.dropout(mixed))
        return out * mask.unsqueeze(-1), weights
