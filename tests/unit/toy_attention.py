"""A toy attention kind, for the test that a new kind is its module plus one registration: the mean of
the encoder states over the real tokens (uniform weights), with no parameters."""

from __future__ import annotations

from typing import Any

import torch

from translate.model.attention.base import Attention, AttentionOutput, Memory


class UniformAttention(Attention):
    def __init__(self, memory_size: int) -> None:
        super().__init__()
        self.context_size = memory_size

    def prepare(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        return Memory(keys=states, values=states, mask=mask)

    def forward(self, query: torch.Tensor, memory: Memory, coverage: torch.Tensor | None = None) -> AttentionOutput:
        weights = memory.mask.float() / memory.mask.float().sum(-1, keepdim=True)
        return AttentionOutput(context=torch.einsum("bs,bsd->bd", weights, memory.values), weights=weights)


def build(cfg: Any, query_size: int, memory_size: int) -> Attention:
    return UniformAttention(memory_size)
