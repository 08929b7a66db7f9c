"""The attention registry: every decoder attention kind by name — the module that builds it, how a run
names it, and any `translate compare` presets it brings (the study's own are `translate.study.presets`).

Free of PyTorch, so the configuration checks a kind and the CLI lists the presets without importing
the model; `translate.model.attention.build_attention` imports a kind's module when a model is built.
A new kind is its module (defining `build(cfg, query_size, memory_size) -> Attention`) and one
`register_attention` call, which may bring presets of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from translate.errors import ConfigError


@dataclass(frozen=True)
class AttentionKindInfo:
    module: str  # defines build(cfg: AttentionConfig, query_size, memory_size) -> Attention
    name: Callable[[Any], str]  # AttentionConfig -> a short human name ("soft additive")
    presets: dict[str, dict[str, Any]] = field(default_factory=dict)


ATTENTION_KINDS: dict[str, AttentionKindInfo] = {}


def register_attention(kind: str, module: str, name: Callable[[Any], str] | None = None,
                       presets: dict[str, dict[str, Any]] | None = None) -> None:
    """Make `model.attention.kind=<kind>` valid, built by `module`.build; its presets join `translate compare`'s
    (`translate.study.presets.study_presets`; each sets `model.attention.kind` itself, or gets it set to `kind`)."""
    if kind in ATTENTION_KINDS:
        raise ConfigError(f"attention kind {kind!r} is registered twice")
    taken = sorted(set(presets or {}) & {p for info in ATTENTION_KINDS.values() for p in info.presets})
    if taken:
        raise ConfigError(f"attention kind {kind!r}: preset(s) {', '.join(taken)} already exist")
    own = {preset: {"model.attention.kind": kind, **overrides} for preset, overrides in (presets or {}).items()}
    ATTENTION_KINDS[kind] = AttentionKindInfo(module, name or (lambda cfg: f"{kind} {cfg.scorer}"), own)


def _soft_name(cfg: Any) -> str:
    return f"soft {cfg.scorer}" + (" key-value" if cfg.mode == "key-value" else "")


def _register_built_ins() -> None:
    for kind, module, name in (
            ("none", "translate.model.attention.base", lambda cfg: "none"),
            ("soft", "translate.model.attention.soft", _soft_name),
            ("hard", "translate.model.attention.hard", lambda cfg: f"hard {cfg.scorer} ({cfg.hard.training})"),
            ("multihead", "translate.model.attention.multihead", lambda cfg: f"multihead {cfg.scorer} x{cfg.multihead.heads}")):
        register_attention(kind, module, name)


_register_built_ins()
