"""Encoder self-attention: Q = W_Q X, K = W_K X, V = W_V X over the RNN states, masked, residual, layer norm.

An optional layer on top of the RNN encoder (Domhan 2018: self-attention matters most on the
encoder side); combinable with any decoder attention.
"""

from __future__ import annotations

import torch
from torch import nn

from translate.model.attention.scoring import masked_softmax, scaled_dot_score


class SelfAttentionLayer(nn.Module):
    def __init__(self, size: int, heads: int, dropout: float) -> None:
        super().__init__()
        if size % heads:
            raise ValueError(f"heads ({heads}) must divide the size ({size})")
        self.heads, self.head_size = heads, size // heads
        self.query_proj = nn.Linear(size, size)
        self.key_proj = nn.Linear(size, size)
        self.value_proj = nn.Linear(size, size)
        self.out_proj = nn.Linear(size, size)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(size)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size(0), x.size(1), self.heads, self.head_size).transpose(1, 2)  # (B, H, S, d)

    def forward(self, states: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """states (B, S, D), mask (B, S) -> new states (B, S, D) (zero on padding), weights (B, H, S, S)."""
        q = self._split(self.query_proj(states))
        k = self._split(self.key_proj(states))
        v = self._split(self.value_proj(states))
        scores = scaled_dot_score(q, k.unsqueeze(2))  # (B, H, S_q, S_k)
        weights = masked_softmax(scores, mask[:, None, None, :])
        mixed = (weights @ v).transpose(1, 2).reshape(states.shape)  # (B, S, D)
        out = self.norm(states + self.dropout(self.out_proj(mixed)))
        return out * mask.unsqueeze(-1), weights
