"""Embeddings -> bidirectional GRU/LSTM (packed, padding-safe) -> optional self-attention layer."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from translate.config.schema import ModelConfig
from translate.model.attention import SelfAttentionLayer
from translate.model.dropout import Dropout
from translate.tokens import PAD_ID


@dataclass
class EncoderOutput:
    """states (B, S, H) zero on padding; mask (B, S) True on tokens; final (B, H) summary of the source."""

    states: torch.Tensor
    mask: torch.Tensor
    final: torch.Tensor


class Encoder(nn.Module):
    def __init__(self, cfg: ModelConfig, vocab_size: int) -> None:
        super().__init__()
        directions = 2 if cfg.bidirectional else 1
        rnn = nn.GRU if cfg.rnn_type == "gru" else nn.LSTM
        self.embedding = nn.Embedding(vocab_size, cfg.embedding_size, padding_idx=PAD_ID)
        nn.init.normal_(self.embedding.weight, std=cfg.embedding_size ** -0.5)
        self.embedding_dropout = Dropout(cfg.embedding_dropout)
        self.rnn = rnn(cfg.embedding_size, cfg.hidden_size // directions, num_layers=cfg.encoder_layers,
                       batch_first=True, bidirectional=cfg.bidirectional,
                       dropout=cfg.dropout if cfg.encoder_layers > 1 else 0.0)
        self.dropout = Dropout(cfg.dropout)
        self.self_attention = (SelfAttentionLayer(cfg.hidden_size, cfg.self_attention_heads, cfg.dropout)
                               if cfg.encoder_self_attention else None)
        self.directions = directions

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor) -> EncoderOutput:
        """src (B, S) token ids, src_lens (B,) -> EncoderOutput."""
        mask = src != PAD_ID
        embedded = self.embedding_dropout(self.embedding(src))  # (B, S, E)
        packed = pack_padded_sequence(embedded, src_lens.cpu(), batch_first=True, enforce_sorted=False)
        packed_out, final = self.rnn(packed)
        states, _ = pad_packed_sequence(packed_out, batch_first=True, total_length=src.size(1))  # (B, S, H)
        hidden = final[0] if isinstance(final, tuple) else final  # (layers*dirs, B, H/dirs)
        summary = torch.cat([hidden[-d] for d in range(self.directions, 0, -1)], dim=-1)  # (B, H)
        states = self.dropout(states)
        if self.self_attention is not None:
            states, _ = self.self_attention(states, mask)
        return EncoderOutput(states=states, mask=mask, final=summary)
