"""Ensemble decoding: several models of one direction and vocabularies searched as one.

Each step's log-probabilities are the mean of the members' (a product of experts, renormalised by
nothing: search only compares scores), so the ensemble plugs into the same greedy and beam search as
one model. Members may differ in everything but their vocabularies: attention, width, depth, RNN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import torch
from torch import nn

from translate.checkpoint.store import Loaded
from translate.errors import ConfigError
from translate.model.decoder import DecoderOutput
from translate.model.seq2seq import DecodingContext, Seq2Seq


@dataclass
class EnsembleContext:
    """One decoding context per member, selected and reordered together."""

    members: tuple[DecodingContext, ...]

    def select(self, indices: torch.Tensor) -> EnsembleContext:
        return EnsembleContext(tuple(ctx.select(indices) for ctx in self.members))

    def reorder(self, indices: torch.Tensor) -> EnsembleContext:
        return EnsembleContext(tuple(ctx.reorder(indices) for ctx in self.members))


class Ensemble(nn.Module):
    """Models with the same vocabularies, decoded together: `encode` and `step` as `Seq2Seq`'s."""

    def __init__(self, members: Sequence[Seq2Seq]) -> None:
        super().__init__()
        if not members:
            raise ValueError("an ensemble needs at least one model")
        self.members = nn.ModuleList(members)

    def encode(self, src: torch.Tensor, src_lens: torch.Tensor) -> EnsembleContext:
        return EnsembleContext(tuple(member.encode(src, src_lens) for member in self.models))

    def step(self, prev_tokens: torch.Tensor, ctx: EnsembleContext) -> tuple[torch.Tensor, EnsembleContext]:
        """prev_tokens (N,) -> the members' mean log-probabilities (N, V), the next contexts."""
        outputs = [member.step(prev_tokens, member_ctx) for member, member_ctx in zip(self.models, ctx.members)]
        mean = torch.stack([log_probs for log_probs, _ in outputs]).mean(0)
        return mean, EnsembleContext(tuple(next_ctx for _, next_ctx in outputs))

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor, tgt_in: torch.Tensor) -> DecoderOutput:
        """Teacher forcing, for attention views: the first member's output with the members' mean
        attention weights (per-head weights only when there is one member)."""
        outputs: list[DecoderOutput] = [member(src, src_lens, tgt_in) for member in self.models]
        if len(outputs) == 1:
            return outputs[0]
        weights = torch.stack([out.weights for out in outputs]).mean(0)
        return DecoderOutput(outputs[0].attentional, weights, None, None)

    @property
    def models(self) -> list[Seq2Seq]:
        """The members as models (the ModuleList that registers them holds plain modules)."""
        return [cast(Seq2Seq, member) for member in self.members]

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def num_parameters(self) -> int:
        return sum(member.num_parameters() for member in self.models)


def check_members(loaded: Sequence[Loaded]) -> None:
    """Members must translate the same direction with byte-identical tokenizers; the error names the
    first checkpoint that differs from the first one."""
    first = loaded[0]
    for other in loaded[1:]:
        if other.artifact.direction != first.artifact.direction:
            raise ConfigError(f"ensemble: {other.path} translates {other.artifact.direction} but {first.path} "
                              f"translates {first.artifact.direction}; give checkpoints of one direction")
        for side, mine, theirs in (("source", first.src_tokenizer, other.src_tokenizer),
                                   ("target", first.tgt_tokenizer, other.tgt_tokenizer)):
            if mine.proto != theirs.proto:
                raise ConfigError(f"ensemble: {other.path} has another {side} vocabulary than {first.path} "
                                  f"({len(theirs)} vs {len(mine)} pieces, or other pieces); members must share "
                                  f"their SentencePiece models (train them with the same data and tokenizer "
                                  f"settings, or fine-tune one from the other with --init-from)")
