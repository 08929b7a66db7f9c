"""The attention interface: prepare(memory) once per batch, then forward(query, memory) per step."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import torch
from torch import nn


@dataclass
class Memory:
    """Encoder states made ready for attention (keys precomputed). Leading dim is the batch.

    keys (B, S, Dk) or (B, H, S, d); values (B, S, Dv) or (B, H, S, d); mask (B, S) True on tokens.
    """

    keys: torch.Tensor
    values: torch.Tensor
    mask: torch.Tensor

    def select(self, indices: torch.Tensor) -> Memory:
        """Reorder/expand along the batch (used by beam search)."""
        return replace(self, **{f.name: getattr(self, f.name).index_select(0, indices) for f in fields(self)})


@dataclass
class AttentionOutput:
    """context (B, Dv); weights (B, S) summing to 1 over real tokens (zeros for `none`).

    log_prob / entropy (B,) are set by hard attention while training (REINFORCE), else None;
    baseline_context (B, Dv), the expected context Σ αᵢ vᵢ, by hard attention whose REINFORCE
    baseline is the soft prediction; head_weights (B, H, S) by multi-head attention (`weights` is their mean).
    """

    context: torch.Tensor
    weights: torch.Tensor
    log_prob: torch.Tensor | None = None
    entropy: torch.Tensor | None = None
    head_weights: torch.Tensor | None = None
    baseline_context: torch.Tensor | None = None
    candidates: torch.Tensor | None = None  # (B, S, Dv): every position's value, when the prediction is
    # a mixture over positions weighted by `weights` (hard attention trained by exact marginalisation)


class Attention(nn.Module):
    """Base class of every decoder attention; the decoder only ever calls these methods.

    An attention with a coverage vector (`translate.model.features.coverage`, a decoder feature whose
    module it holds, as its scorer was built to the vector's width) is handed that vector (B, S, d) at
    each step; the others get None.
    """

    context_size: int
    coverage: nn.Module | None  # set per instance: a class-level default would hide the registered module

    def __init__(self) -> None:
        super().__init__()
        self.coverage = None

    def prepare(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        raise NotImplementedError

    def forward(self, query: torch.Tensor, memory: Memory, coverage: torch.Tensor | None = None) -> AttentionOutput:
        raise NotImplementedError

    def auxiliary_loss(self, log_probs: torch.Tensor, entropies: torch.Tensor, rewards: torch.Tensor,
                       mask: torch.Tensor, baselines: torch.Tensor | None = None) -> torch.Tensor:
        """Extra training loss from per-step (B, T) log-probs/entropies of choices (and per-token
        reward baselines, when the attention asked for them); 0 unless hard."""
        return rewards.new_zeros(())


class NoAttention(Attention):
    """The plain seq2seq baseline: a zero context, so the decoder sees only the encoder's final state."""

    def __init__(self, memory_size: int) -> None:
        super().__init__()
        self.context_size = memory_size

    def prepare(self, states: torch.Tensor, mask: torch.Tensor) -> Memory:
        empty = states.new_zeros(states.size(0), 1, 1)  # (B, 1, 1): nothing to attend to
        return Memory(keys=empty, values=empty, mask=mask)

    def forward(self, query: torch.Tensor, memory: Memory, coverage: torch.Tensor | None = None) -> AttentionOutput:
        batch = query.size(0)
        return AttentionOutput(context=query.new_zeros(batch, self.context_size),
                               weights=query.new_zeros(batch, memory.mask.size(1)))


def build(cfg: Any, query_size: int, memory_size: int) -> Attention:
    """kind=none (`translate.config.attention`)."""
    return NoAttention(memory_size)
