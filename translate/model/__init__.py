"""Model construction: build_model(cfg, src_vocab, tgt_vocab) -> Seq2Seq."""

from __future__ import annotations

from translate.config.schema import ModelConfig
from translate.model.attention import build_attention
from translate.model.decoder import Decoder
from translate.model.encoder import Encoder
from translate.model.seq2seq import DecodingContext, Seq2Seq

__all__ = ["DecodingContext", "Seq2Seq", "build_model"]


def build_model(cfg: ModelConfig, src_vocab: int, tgt_vocab: int) -> Seq2Seq:
    attention = build_attention(cfg.attention, query_size=cfg.hidden_size, memory_size=cfg.hidden_size)
    return Seq2Seq(Encoder(cfg, src_vocab), Decoder(cfg, tgt_vocab, attention, src_vocab))
