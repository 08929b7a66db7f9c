"""The encoder-decoder: encode once, then decoder steps (teacher forcing or search)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from translate.model.attention import Memory
from translate.model.decoder import Decoder, DecoderOutput, DecoderState
from translate.model.encoder import Encoder


@dataclass
class DecodingContext:
    """Everything search carries between steps; `select` reorders it for beams."""

    state: DecoderState
    memory: Memory

    def select(self, indices: torch.Tensor) -> DecodingContext:
        return DecodingContext(state=self.state.select(indices), memory=self.memory.select(indices))

    def reorder(self, indices: torch.Tensor) -> DecodingContext:
        """Beam reordering within each sentence: the memory is the same for all its beams."""
        return DecodingContext(state=self.state.select(indices), memory=self.memory)


class Seq2Seq(nn.Module):
    def __init__(self, encoder: Encoder, decoder: Decoder) -> None:
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def encode(self, src: torch.Tensor, src_lens: torch.Tensor) -> DecodingContext:
        encoded = self.encoder(src, src_lens)
        memory = self.decoder.attention.prepare(encoded.states, encoded.mask)
        return DecodingContext(state=self.decoder.init_state(encoded.final, memory, src), memory=memory)

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor, tgt_in: torch.Tensor) -> DecoderOutput:
        """Teacher forcing. src (B, S), src_lens (B,), tgt_in (B, T) -> DecoderOutput (attentional (B, T, H))."""
        ctx = self.encode(src, src_lens)
        out: DecoderOutput = self.decoder(tgt_in, ctx.state, ctx.memory)
        return out

    def step(self, prev_tokens: torch.Tensor, ctx: DecodingContext) -> tuple[torch.Tensor, DecodingContext]:
        """One search step: prev_tokens (N,) -> log-probabilities (N, V), next context."""
        logits, state, _ = self.decoder.step(prev_tokens, ctx.state, ctx.memory)
        return torch.log_softmax(logits.float(), dim=-1), DecodingContext(state=state, memory=ctx.memory)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def num_parameters(self) -> int:
        return sum(p.numel() for p in {id(p): p for p in self.parameters()}.values())
