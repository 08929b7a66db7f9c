"""Soft attention: scores -> masked softmax -> weighted sum of values (Bahdanau 2015; Luong 2015)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from translate.config.schema import AttentionConfig
from translate.model.attention.base import Attention, AttentionOutput, Memory
from translate.model.attention.scoring import SCORERS, AdditiveScorer, Scorer, masked_softmax
from translate.model.features.coverage import Coverage, build_coverage


@dataclass
class Choice:
    """Normalised weights (B, S); hard attention adds the log-prob and entropy of its choice (B,)."""

    weights: torch.Tensor
    log_prob: torch.Tensor | None = None
    entropy: torch.Tensor | None = None
    probs: torch.Tensor | None = None  # hard attention: the distribution α the choice was drawn from


class SoftAttention(Attention):
    """α = softmax(s(q, K)) over real tokens, context = Σ αᵢ vᵢ.

    Plain mode: keys = values = encoder states. Key-value mode: keys = W_K X and values = W_V X,
    separate learned projections of the encoder states.
    """

    def __init__(self, scorer: Scorer, memory_size: int, key_value: bool = False, coverage: Coverage | None = None) -> None:
        super().__init__()
        self.scorer = scorer
        self.coverage = coverage  # fed to the scorer, which was built to take its width
        self.key_proj = nn.Linear(memory_size, memory_size, bias=False) if key_value else None
        self.value_proj = nn.Linear(memory_size, memory_size, bias=False) if key_value else None
        self.context_size = memory_size

    def prepare(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        keys = self.key_proj(states) if self.key_proj is not None else states
        values = self.value_proj(states) if self.value_proj is not None else states
        return Memory(keys=self.scorer.prepare(keys), values=values, mask=mask)

    def normalise(self, scores: torch.Tensor, mask: torch.Tensor) -> Choice:
        """Turn scores (B, S) into weights (B, S)."""
        return Choice(weights=masked_softmax(scores, mask))

    def forward(self, query: torch.Tensor, memory: Memory, coverage: torch.Tensor | None = None) -> AttentionOutput:
        # (B, S); with coverage, the additive score sᵢ = vᵀ tanh(W kᵢ + U q + V cᵢ)
        scores = self.scorer(query, memory.keys) if coverage is None else self.scorer(query, memory.keys, coverage)
        choice = self.normalise(scores, memory.mask)
        context = (choice.weights.unsqueeze(1) @ memory.values).squeeze(1)  # (B, Dv)
        return AttentionOutput(context, choice.weights, choice.log_prob, choice.entropy)


def build(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    """kind=soft (`translate.config.attention`), with the coverage model `cfg.coverage` names (additive only)."""
    coverage = build_coverage(cfg.coverage, query_size, memory_size)
    if coverage is None:
        scorer = SCORERS[cfg.scorer](query_size, memory_size)
    else:
        scorer = AdditiveScorer(query_size, memory_size, coverage_size=coverage.size)
    return SoftAttention(scorer, memory_size, key_value=cfg.mode == "key-value", coverage=coverage)
