"""Attention registry: every mechanism by name, built by `build_attention`.

The names are typed choices of `AttentionConfig` (kind, scorer), validated there once; a test
checks that those choices equal the keys of `ATTENTION` and `SCORERS`.
"""

from __future__ import annotations

from collections.abc import Callable

from translate.config.schema import AttentionConfig
from translate.model.attention.base import Attention, AttentionOutput, Memory, NoAttention
from translate.model.attention.hard import HardAttention
from translate.model.attention.multihead import MultiHeadAttention
from translate.model.attention.scoring import SCORERS
from translate.model.attention.self_attention import SelfAttentionLayer
from translate.model.attention.soft import SoftAttention

__all__ = ["ATTENTION", "SCORERS", "Attention", "AttentionOutput", "Memory", "SelfAttentionLayer", "build_attention"]

Builder = Callable[[AttentionConfig, int, int], Attention]


def _soft(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    scorer = SCORERS[cfg.scorer](query_size, memory_size)
    return SoftAttention(scorer, memory_size, key_value=cfg.mode == "key-value")


def _hard(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    scorer = SCORERS[cfg.scorer](query_size, memory_size)
    return HardAttention(scorer, memory_size, cfg.mode == "key-value", cfg.hard)


def _multihead(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    return MultiHeadAttention(query_size, memory_size, cfg.multihead.heads, cfg.scorer, layer_norm=cfg.multihead.layer_norm)


def _none(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    return NoAttention(memory_size)


ATTENTION: dict[str, Builder] = {
    "hard": _hard,
    "multihead": _multihead,
    "none": _none,
    "soft": _soft,
}


def build_attention(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    """The decoder attention `cfg` names (its choices were validated by AttentionConfig, the one place)."""
    return ATTENTION[cfg.kind](cfg, query_size, memory_size)
