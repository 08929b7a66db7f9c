"""A toy decoder feature, for the test that a new feature is its module plus one registration: a
decaying memory of the attention (r ← r / 2 + α per source position, a state the beams carry), which
shifts every output score by a learned amount per target id times Σᵢ rᵢ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from translate.model.attention.base import Memory
from translate.model.features.base import Feature


class Recency(Feature):
    name = "recency"
    state = ("recency",)

    def __init__(self, tgt_vocab: int) -> None:
        super().__init__()
        self.shift = nn.Parameter(torch.randn(tgt_vocab) * 0.1)

    def start(self, memory: Memory) -> dict[str, torch.Tensor]:
        return {"recency": memory.mask.new_zeros(*memory.mask.shape, 1, dtype=torch.float32)}

    def advance(self, values: Mapping[str, torch.Tensor], weights: torch.Tensor, query: torch.Tensor,
                memory: Memory) -> dict[str, torch.Tensor]:
        return {"recency": values["recency"] / 2 + weights.unsqueeze(-1).float()}

    def output(self, scores: torch.Tensor, weights: torch.Tensor, attentional: torch.Tensor,
               values: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return scores + self.shift * values["recency"].sum(dim=(1, 2)).unsqueeze(-1).to(scores.dtype)


def build(cfg: Any, attention: Any, src_vocab: int, tgt_vocab: int) -> Feature:
    return Recency(tgt_vocab)
