"""Attention: the kinds of the registry (`translate.config.attention`), each built by its module's
`build`, and `build_attention`, the one place a decoder attention is built.
"""

from __future__ import annotations

import importlib

from translate.config.attention import ATTENTION_KINDS
from translate.config.schema import AttentionConfig
from translate.model.attention.base import Attention, AttentionOutput, Memory
from translate.model.attention.scoring import SCORERS
from translate.model.attention.self_attention import SelfAttentionLayer

__all__ = ["ATTENTION_KINDS", "SCORERS", "Attention", "AttentionOutput", "Memory", "SelfAttentionLayer", "build_attention"]


def build_attention(cfg: AttentionConfig, query_size: int, memory_size: int) -> Attention:
    """The decoder attention `cfg` names (its kind was validated by AttentionConfig, the one place)."""
    built: Attention = importlib.import_module(ATTENTION_KINDS[cfg.kind].module).build(cfg, query_size, memory_size)
    return built
