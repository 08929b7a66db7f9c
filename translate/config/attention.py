"""The attention registry: every decoder attention kind by name — the module that builds it, how a run
names it — and the `translate compare` presets, the named configurations a study trains.

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
PRESETS: dict[str, dict[str, Any]] = {}  # translate compare's presets, in the order studies list them


def register_attention(kind: str, module: str, name: Callable[[Any], str] | None = None,
                       presets: dict[str, dict[str, Any]] | None = None) -> None:
    """Make `model.attention.kind=<kind>` valid, built by `module`.build; its presets join `translate compare`'s
    (each sets `model.attention.kind` itself, or gets it set to `kind`)."""
    if kind in ATTENTION_KINDS:
        raise ConfigError(f"attention kind {kind!r} is registered twice")
    taken = sorted(set(presets or {}) & set(PRESETS))
    if taken:
        raise ConfigError(f"attention kind {kind!r}: preset(s) {', '.join(taken)} already exist")
    own = {preset: {"model.attention.kind": kind, **overrides} for preset, overrides in (presets or {}).items()}
    ATTENTION_KINDS[kind] = AttentionKindInfo(module, name or (lambda cfg: f"{kind} {cfg.scorer}"), own)
    PRESETS.update(own)


_SOFT = {"model.attention.kind": "soft", "model.attention.mode": "plain"}
_HARD = {"model.attention.kind": "hard", "model.attention.scorer": "additive"}
_MULTIHEAD_LN = {"model.attention.kind": "multihead", "model.attention.scorer": "additive", "model.attention.multihead.heads": 4,
                 "model.attention.multihead.layer_norm": True}
# REINFORCE hard attention (soft-prediction baseline) fine-tuned from a soft run of the same seed
_WARM_HARD: dict[str, Any] = {**_HARD, "model.attention.hard.training": "reinforce",
                              "model.attention.hard.reinforce_baseline": "soft", "train.init_attention": "config",
                              "train.max_steps": 3000, "train.learning_rate": 5e-4, "train.warmup_steps": 200}
# The built-in presets, in the order the converged study lists them (its tables and figures follow it).
_BUILT_IN_PRESETS: dict[str, dict[str, Any]] = {
    "none": {"model.attention.kind": "none"},
    "additive": {**_SOFT, "model.attention.scorer": "additive"},
    "dot": {**_SOFT, "model.attention.scorer": "dot"},
    "scaled-dot": {**_SOFT, "model.attention.scorer": "scaled-dot"},
    "bilinear": {**_SOFT, "model.attention.scorer": "bilinear"},
    "additive-kv": {**_SOFT, "model.attention.scorer": "additive", "model.attention.mode": "key-value"},
    "scaled-dot-kv": {**_SOFT, "model.attention.scorer": "scaled-dot", "model.attention.mode": "key-value"},
    "hard-reinforce": {**_HARD, "model.attention.hard.training": "reinforce"},
    "hard-reinforce-soft-baseline": {**_HARD, "model.attention.hard.training": "reinforce",
                                     "model.attention.hard.reinforce_baseline": "soft"},
    "hard-reinforce-curriculum": {**_HARD, "model.attention.hard.training": "reinforce",
                                  "model.attention.hard.reinforce_baseline": "soft",
                                  "model.attention.hard.soft_mix": 0.0, "model.attention.hard.soft_anneal_steps": 3000},
    "hard-marginal": {**_HARD, "model.attention.hard.training": "marginal"},
    "hard-gumbel-st": {**_HARD, "model.attention.hard.training": "straight-through"},
    # warm start: the same seed's converged additive run, fine-tuned with hard attention
    "hard-reinforce-warm": {**_WARM_HARD, "model.attention.scorer": "additive", "train.init_from": "@additive"},
    # the same from the dot model, whose attention is already sharp (its argmax twin loses 1.2 BLEU, additive's 4.1)
    "hard-reinforce-warm-dot": {**_WARM_HARD, "model.attention.scorer": "dot", "train.init_from": "@dot"},
    # the same as hard-reinforce-warm at 2/5 of the fine-tuning learning rate (peak 2e-4, floor 5e-5): its seed 3
    # peaked on dev at 2,000 of 3,000 updates and ended 1.4 BLEU below its soft start
    "hard-reinforce-warm-lowlr": {**_WARM_HARD, "model.attention.scorer": "additive", "train.init_from": "@additive",
                                  "train.learning_rate": 2e-4, "train.min_learning_rate": 5e-5},
    "multihead": {"model.attention.kind": "multihead", "model.attention.scorer": "additive",
                  "model.attention.multihead.heads": 4},
    "multihead-ln": _MULTIHEAD_LN,
    # with layer norm (better than without for additive, p = 0.025): the other scorers, then the head size
    "multihead-ln-dot": {**_MULTIHEAD_LN, "model.attention.scorer": "dot"},
    "multihead-ln-scaled-dot": {**_MULTIHEAD_LN, "model.attention.scorer": "scaled-dot"},
    # head size, with the best multi-head scorer of the first pass: 1 head of 256 (the encoder states), 8 of 32
    "multihead-ln-scaled-dot-1head": {**_MULTIHEAD_LN, "model.attention.scorer": "scaled-dot", "model.attention.multihead.heads": 1},
    "multihead-ln-scaled-dot-8heads": {**_MULTIHEAD_LN, "model.attention.scorer": "scaled-dot", "model.attention.multihead.heads": 8},
    "self-attention+additive": {**_SOFT, "model.attention.scorer": "additive", "model.encoder_self_attention": True},
    # coverage (Tu et al. 2016; See et al. 2017): the attention each source position has had, fed to the additive score
    "additive+coverage": {**_SOFT, "model.attention.scorer": "additive", "model.attention.coverage.kind": "accumulated"},
    "additive+coverage-nn": {**_SOFT, "model.attention.scorer": "additive", "model.attention.coverage.kind": "neural"},
    "additive+coverage-loss": {**_SOFT, "model.attention.scorer": "additive", "model.attention.coverage.kind": "accumulated",
                               "model.attention.coverage.loss": 1.0},
    # the loss at a tenth of the weight: λ = 1 from the first update holds en→zh near 3-4 dev BLEU at 2,000 updates
    "additive+coverage-loss-0.1": {**_SOFT, "model.attention.scorer": "additive",
                                   "model.attention.coverage.kind": "accumulated", "model.attention.coverage.loss": 0.1},
    "self-attention+additive+coverage": {**_SOFT, "model.attention.scorer": "additive", "model.encoder_self_attention": True,
                                         "model.attention.coverage.kind": "accumulated"},
    # copy attention (a pointer-generator, See et al. 2017): names, numbers and codes copied from the source
    "additive+copy": {**_SOFT, "model.attention.scorer": "additive", "model.copy_attention": True},
    # the sqrt(d) check: the same two scorers at twice the width (d = 512 instead of 256)
    "dot-h512": {**_SOFT, "model.attention.scorer": "dot", "model.hidden_size": 512, "model.embedding_size": 512},
    "scaled-dot-h512": {**_SOFT, "model.attention.scorer": "scaled-dot", "model.hidden_size": 512,
                        "model.embedding_size": 512},
}


def _soft_name(cfg: Any) -> str:
    return f"soft {cfg.scorer}" + (" key-value" if cfg.mode == "key-value" else "")


def _register_built_ins() -> None:
    def of(kind: str) -> dict[str, dict[str, Any]]:
        return {name: p for name, p in _BUILT_IN_PRESETS.items() if p["model.attention.kind"] == kind}

    for kind, module, name in (
            ("none", "translate.model.attention.base", lambda cfg: "none"),
            ("soft", "translate.model.attention.soft", _soft_name),
            ("hard", "translate.model.attention.hard", lambda cfg: f"hard {cfg.scorer} ({cfg.hard.training})"),
            ("multihead", "translate.model.attention.multihead", lambda cfg: f"multihead {cfg.scorer} x{cfg.multihead.heads}")):
        register_attention(kind, module, name, of(kind))
    PRESETS.clear()  # the study's order, not the kinds' order
    PRESETS.update(_BUILT_IN_PRESETS)


_register_built_ins()
