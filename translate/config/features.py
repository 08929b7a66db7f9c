"""The decoder-feature registry: what a decoder step may do besides attend and predict (a memory of
where attention has gone, copying source pieces, a lexical model...), each by name — the module that
builds it, whether a model configuration turns it on, and the words a run's mechanism gets for it.

Free of PyTorch, so the configuration checks names without importing the model; the decoder imports
a feature's module when a model is built (`translate.model.features.build_features`). A new feature
is its module (defining `build(cfg: ModelConfig, attention, src_vocab, tgt_vocab) -> Feature | None`)
and one `register_feature` call; a feature turned on by name (`by_name`) is then valid in
`model.features` ("lexical", or several: "lexical,copy").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from translate.errors import ConfigError


@dataclass(frozen=True)
class FeatureInfo:
    module: str  # defines build(cfg: ModelConfig, attention, src_vocab, tgt_vocab) -> Feature | None
    enabled: Callable[[Any], bool]  # ModelConfig -> whether the model has it
    name: Callable[[Any], str]  # ModelConfig -> what a run's mechanism says of it ("copy")
    by_name: bool  # turned on by its name in model.features (else by settings of its own)
    reads_weights: bool  # needs attention weights over the source in each step's output


FEATURES: dict[str, FeatureInfo] = {}


def register_feature(name: str, module: str, enabled: Callable[[Any], bool] | None = None,
                     describe: Callable[[Any], str] | None = None, reads_weights: bool = False) -> None:
    """Make the feature `name`, built by `module`.build, part of the models whose configuration
    `enabled` says has it (default: `name` listed in `model.features`); features run in the order
    they were registered. `reads_weights`: the configuration refuses it without attention weights
    over the source at each step (kind=none, or a hard attention's mixture over positions)."""
    if name in FEATURES:
        raise ConfigError(f"decoder feature {name!r} is registered twice")
    FEATURES[name] = FeatureInfo(module, enabled or (lambda cfg: name in named_features(cfg.features)),
                                 describe or (lambda cfg: name), enabled is None, reads_weights)


def named_features(text: str) -> list[str]:
    """The names of `model.features` ("lexical,copy" -> ["lexical", "copy"])."""
    return [part.strip() for part in text.split(",") if part.strip()]


def check_features(cfg: Any) -> None:
    """ConfigError naming `model.features` for a name that is not a feature turned on by name (with the
    valid names), or a feature the model's attention cannot serve."""
    valid = sorted(name for name, info in FEATURES.items() if info.by_name)
    names = named_features(cfg.features)
    for name in names:
        if name not in valid:
            raise ConfigError(f"model.features: unknown decoder feature {name!r}; valid: {', '.join(valid) or 'none'} "
                              f"(coverage is set in model.attention.coverage, copy in model.copy_attention)")
    if len(set(names)) != len(names):
        raise ConfigError(f"model.features: {cfg.features!r} names a feature twice")
    attention = cfg.attention
    mixture = attention.kind == "hard" and attention.hard.training == "marginal"
    for name in names:
        if FEATURES[name].reads_weights and (attention.kind == "none" or mixture):
            raise ConfigError(f"model.features: {name} needs attention weights over the source (kind={attention.kind}"
                              + (")" if attention.kind == "none" else ", training=marginal predicts a mixture over positions)"))


def _coverage_words(cfg: Any) -> str:
    coverage = cfg.attention.coverage
    words = [f"{coverage.kind} coverage"] if coverage.kind != "off" else []
    return " + ".join([*words, *([f"coverage loss {coverage.loss:g}"] if coverage.loss > 0 else [])])


def _register_built_ins() -> None:
    register_feature("coverage", "translate.model.features.coverage", lambda cfg: cfg.attention.coverage.used,
                     _coverage_words)
    # the lexical model adds to the output layer's logits, which copy attention then mixes with its copies
    register_feature("lexical", "translate.model.features.lexical", describe=lambda cfg: "lexical model",
                     reads_weights=True)
    register_feature("copy", "translate.model.features.copy", lambda cfg: cfg.copy_attention)


_register_built_ins()
