"""Scoring functions s(q, k): pure maths on tensors, plus tiny modules that own the weights.

All pure functions take a query `(..., D)` and keys `(..., S, D)` and return scores `(..., S)`;
the leading dimensions may include heads, so multi-head attention reuses them unchanged. The dot
products also come for many queries at once (`dot_scores`: `(..., T, D)` against `(..., S, D)`),
which self-attention needs.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def dot_scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """Luong et al. 2015, eq. 8 "dot": s = kᵀq, every query against every key, as one matrix product
    (no (..., T, S, D) broadcast). Shapes: (..., T, D), (..., S, D) -> (..., T, S)."""
    return queries @ keys.transpose(-1, -2)


def dot_score(query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """`dot_scores` of one query: (..., D), (..., S, D) -> (..., S).

    A matrix-vector product (keys times q). Equal to `dot_scores` of the one query up to float
    rounding, but not bit for bit: this is the product the committed attention studies were
    trained with, so a retrain of their runs reproduces them exactly.
    """
    return (keys @ query.unsqueeze(-1)).squeeze(-1)


def scaled_dot_scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """Vaswani et al. 2017, eq. 1: s = kᵀq / √d, keeping score variance independent of d.
    Shapes: (..., T, D), (..., S, D) -> (..., T, S)."""
    return dot_scores(queries, keys) / math.sqrt(queries.size(-1))


def scaled_dot_score(query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """`scaled_dot_scores` of one query: `dot_score` / √d. (..., D), (..., S, D) -> (..., S)."""
    return dot_score(query, keys) / math.sqrt(query.size(-1))


def bilinear_score(query: torch.Tensor, keys: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Luong et al. 2015, eq. 8 "general": s = kᵀ W q, W of shape (D_k, D_q)."""
    return dot_score(query @ weight.transpose(-1, -2), keys)


def additive_score(query_proj: torch.Tensor, keys_proj: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Bahdanau et al. 2015, Appendix A.1.2: s = vᵀ tanh(W k + U q), with W k and U q precomputed.

    Shapes: query_proj (..., A), keys_proj (..., S, A), v (A,) or (heads, A) -> (..., S).
    """
    # tanh in place on the fresh sum: one (..., S, A) tensor less to allocate and fill per step
    return ((keys_proj + query_proj.unsqueeze(-2)).tanh_() @ v.unsqueeze(-1)).squeeze(-1)


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim where `mask` is True; padded positions get exactly 0."""
    return scores.masked_fill(~mask, float("-inf")).softmax(-1)


class Scorer(nn.Module):
    """A scoring function with its weights: `prepare` transforms keys once per batch."""

    def prepare(self, keys: torch.Tensor) -> torch.Tensor:
        return keys

    def forward(self, query: torch.Tensor, prepared_keys: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class DotScorer(Scorer):
    def __init__(self, query_size: int, key_size: int) -> None:
        super().__init__()
        if query_size != key_size:
            raise ValueError(f"dot scoring needs query size == key size ({query_size} != {key_size})")

    def forward(self, query: torch.Tensor, prepared_keys: torch.Tensor) -> torch.Tensor:
        return dot_score(query, prepared_keys)


class ScaledDotScorer(DotScorer):
    def forward(self, query: torch.Tensor, prepared_keys: torch.Tensor) -> torch.Tensor:
        return scaled_dot_score(query, prepared_keys)


class BilinearScorer(Scorer):
    def __init__(self, query_size: int, key_size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(key_size, query_size))
        nn.init.xavier_uniform_(self.weight)

    def prepare(self, keys: torch.Tensor) -> torch.Tensor:
        return keys @ self.weight  # kᵀW computed once per batch: (..., S, D_q)

    def forward(self, query: torch.Tensor, prepared_keys: torch.Tensor) -> torch.Tensor:
        return dot_score(query, prepared_keys)


class AdditiveScorer(Scorer):
    """With `coverage_size` > 0 it also takes each position's coverage vector c (..., S, d) into the sum:
    s = vᵀ tanh(W k + U q + V c) (Tu et al. 2016, eq. 6)."""

    def __init__(self, query_size: int, key_size: int, coverage_size: int = 0) -> None:
        super().__init__()
        size = query_size  # attention layer width (Bahdanau et al. use n' = n)
        self.key_layer = nn.Linear(key_size, size, bias=False)
        self.query_layer = nn.Linear(query_size, size, bias=False)
        self.v = nn.Parameter(torch.empty(size).uniform_(-0.1, 0.1))
        self.coverage_layer = nn.Linear(coverage_size, size, bias=False) if coverage_size else None

    def prepare(self, keys: torch.Tensor) -> torch.Tensor:
        prepared: torch.Tensor = self.key_layer(keys)
        return prepared

    def forward(self, query: torch.Tensor, prepared_keys: torch.Tensor, coverage: torch.Tensor | None = None) -> torch.Tensor:
        if coverage is not None and self.coverage_layer is not None:
            prepared_keys = prepared_keys + self.coverage_layer(coverage.to(prepared_keys.dtype))
        return additive_score(self.query_layer(query), prepared_keys, self.v)


SCORERS: dict[str, type[Scorer]] = {
    "additive": AdditiveScorer,
    "bilinear": BilinearScorer,
    "dot": DotScorer,
    "scaled-dot": ScaledDotScorer,
}
