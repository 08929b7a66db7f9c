"""Ensembles of PyTorch models: several models of one direction and vocabularies held as one module
(their devices, parameters, attention for views) and the check that they may be decoded together.
Search steps the members and combines their log-probabilities in `inference.search.members`, as it
does for the ONNX Runtime engine. Members may differ in everything but their vocabularies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch
from torch import nn

from translate.checkpoint.store import Loaded
from translate.inference.members import Member
from translate.inference.members import check_members as check_infos
from translate.model.decoder import DecoderOutput
from translate.model.seq2seq import Seq2Seq


class Ensemble(nn.Module):
    """Models with the same vocabularies, decoded together (search steps each member: `models`)."""

    def __init__(self, members: Sequence[Seq2Seq]) -> None:
        super().__init__()
        if not members:
            raise ValueError("an ensemble needs at least one model")
        self.members = nn.ModuleList(members)

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
    """`inference.members.check_members` on loaded checkpoints."""
    check_infos([Member(m.path, m.artifact.direction, m.src_tokenizer, m.tgt_tokenizer) for m in loaded])
