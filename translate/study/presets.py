"""The named configurations an attention study trains (`translate compare --mechanisms`), in the order the
converged study lists them. They belong to the study, not to the model's configuration: besides the
attention settings some carry learning rates, warm starts and the reason a seed's run gave for them.
A registered attention kind may bring presets of its own (`translate.config.attention.register_attention`);
`study_presets` lists both."""

from __future__ import annotations

from typing import Any

from translate.config.attention import ATTENTION_KINDS

_SOFT = {"model.attention.kind": "soft", "model.attention.mode": "plain"}
_HARD = {"model.attention.kind": "hard", "model.attention.scorer": "additive"}
_MULTIHEAD_LN = {"model.attention.kind": "multihead", "model.attention.scorer": "additive", "model.attention.multihead.heads": 4,
                 "model.attention.multihead.layer_norm": True}
# REINFORCE hard attention (soft-prediction baseline) fine-tuned from a soft run of the same seed
_WARM_HARD: dict[str, Any] = {**_HARD, "model.attention.hard.training": "reinforce",
                              "model.attention.hard.reinforce_baseline": "soft", "train.init_attention": "config",
                              "train.max_steps": 3000, "train.learning_rate": 5e-4, "train.warmup_steps": 200}
# The study's presets, in the order the converged study lists them (its tables and figures follow it).
PRESETS: dict[str, dict[str, Any]] = {
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
    # the lexical model (Nguyen & Chiang 2018): the attention's sum of source embeddings straight to the output layer
    "additive+lexical": {**_SOFT, "model.attention.scorer": "additive", "model.features": "lexical"},
    # the sqrt(d) check: the same two scorers at twice the width (d = 512 instead of 256)
    "dot-h512": {**_SOFT, "model.attention.scorer": "dot", "model.hidden_size": 512, "model.embedding_size": 512},
    "scaled-dot-h512": {**_SOFT, "model.attention.scorer": "scaled-dot", "model.hidden_size": 512,
                        "model.embedding_size": 512},
}


def study_presets() -> dict[str, dict[str, Any]]:
    """Every preset: the study's, in its order, then those the registered attention kinds bring."""
    return {**PRESETS, **{name: overrides for info in ATTENTION_KINDS.values() for name, overrides in info.presets.items()
                          if name not in PRESETS}}
