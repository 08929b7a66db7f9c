"""Coverage: each source position's memory of the attention it has received, so that the decoder can
tell what it has translated already (Tu et al. 2016, "Modeling Coverage for Neural Machine
Translation"; See et al. 2017, "Get To The Point", sec. 2.2).

A coverage vector c (B, S, d) is part of the decoder state; soft attention feeds it to its additive
scorer, sᵢ = vᵀ tanh(W kᵢ + U q + V cᵢ), and updates it after each step:
- `AccumulatedCoverage` (d = 1): cᵢ = Σ past αᵢ;
- `NeuralCoverage` (d = `size`): cᵢ ← GRU(cᵢ, [αᵢ, vᵢ, q]) with the attention weight, the position's
  value (encoder state) and the decoder state as input (Tu et al.'s neural coverage, eq. 7).
`coverage_loss` is See et al.'s penalty for attending again where attention has already gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from translate.config.schema import CoverageConfig
from translate.model.attention.base import Memory
from translate.model.features.base import Feature


def coverage_loss(weights: torch.Tensor, target_mask: torch.Tensor) -> torch.Tensor:
    """See et al. 2017, eq. 12, summed over the real target steps: Σₜ Σᵢ min(αₜᵢ, cₜᵢ), where cₜ = Σ_{t' < t} αₜ'
    is the attention before step t. weights (B, T, S), target_mask (B, T) bool -> a scalar.

    Zero exactly when no source position is attended at two steps (a monotone one-to-one attention)."""
    weights = weights * target_mask.unsqueeze(-1).to(weights.dtype)
    before = weights.cumsum(1) - weights
    return torch.minimum(weights, before).sum()


class CoverageLoss(Feature):
    """See et al.'s coverage loss weighted by `loss_weight`, without a coverage vector."""

    name = "coverage"

    def __init__(self, loss_weight: float = 0.0) -> None:
        super().__init__()
        self.loss_weight = loss_weight

    def loss(self, weights: torch.Tensor, target_mask: torch.Tensor) -> torch.Tensor | None:
        return self.loss_weight * coverage_loss(weights.float(), target_mask) if self.loss_weight > 0 else None


class Coverage(CoverageLoss):
    """How a coverage vector starts and is updated; `size` its width per source position."""

    state = ("coverage",)
    size: int

    def start(self, memory: Memory) -> dict[str, torch.Tensor]:
        return {"coverage": self.initial(memory.mask)}

    def attention_input(self, values: Mapping[str, torch.Tensor]) -> torch.Tensor | None:
        return values["coverage"]

    def advance(self, values: Mapping[str, torch.Tensor], weights: torch.Tensor, query: torch.Tensor,
                memory: Memory) -> dict[str, torch.Tensor]:
        return {"coverage": self.update(values["coverage"], weights, query, memory.values)}

    def initial(self, mask: torch.Tensor) -> torch.Tensor:
        """mask (B, S) -> zeros (B, S, size): nothing covered yet."""
        return mask.new_zeros(*mask.shape, self.size, dtype=torch.float32)

    def update(self, coverage: torch.Tensor, weights: torch.Tensor, query: torch.Tensor,
               values: torch.Tensor) -> torch.Tensor:
        """coverage (B, S, d), this step's weights (B, S), query (B, Dq), values (B, S, Dv) -> next coverage."""
        raise NotImplementedError


class AccumulatedCoverage(Coverage):
    size = 1

    def update(self, coverage: torch.Tensor, weights: torch.Tensor, query: torch.Tensor,
               values: torch.Tensor) -> torch.Tensor:
        return coverage + weights.unsqueeze(-1).to(coverage.dtype)


class NeuralCoverage(Coverage):
    """A GRU per source position, its input [αᵢ, vᵢ, q] projected in three parts so that nothing of size
    (B, S, Dv + Dq) is built."""

    def __init__(self, size: int, query_size: int, value_size: int, loss_weight: float = 0.0) -> None:
        super().__init__(loss_weight)
        self.size = size
        self.from_weight = nn.Parameter(torch.empty(3 * size).uniform_(-0.1, 0.1))
        self.from_value = nn.Linear(value_size, 3 * size, bias=True)
        self.from_query = nn.Linear(query_size, 3 * size, bias=False)
        self.from_coverage = nn.Linear(size, 3 * size, bias=True)

    def update(self, coverage: torch.Tensor, weights: torch.Tensor, query: torch.Tensor,
               values: torch.Tensor) -> torch.Tensor:
        x = (weights.unsqueeze(-1) * self.from_weight + self.from_value(values)
             + self.from_query(query).unsqueeze(1))  # (B, S, 3d)
        h = self.from_coverage(coverage)  # (B, S, 3d)
        x_r, x_z, x_n = x.chunk(3, dim=-1)
        h_r, h_z, h_n = h.chunk(3, dim=-1)
        reset, keep = torch.sigmoid(x_r + h_r), torch.sigmoid(x_z + h_z)
        new = torch.tanh(x_n + reset * h_n)
        return (1 - keep) * new + keep * coverage


def build_coverage(cfg: CoverageConfig, query_size: int, value_size: int) -> Coverage | None:
    """The coverage vector `cfg` names (for the attention that feeds it to its scorer); None for kind=off."""
    if cfg.kind == "accumulated":
        return AccumulatedCoverage(cfg.loss)
    if cfg.kind == "neural":
        return NeuralCoverage(cfg.size, query_size, value_size, cfg.loss)
    return None


def build(cfg: Any, attention: Any, src_vocab: int, tgt_vocab: int) -> Feature | None:
    """The registry's builder (`translate.config.features`): the attention's coverage vector, or the
    loss alone where the attention has none."""
    if attention.coverage is not None:
        return attention.coverage  # type: ignore[no-any-return]
    return CoverageLoss(cfg.attention.coverage.loss) if cfg.attention.coverage.loss > 0 else None
