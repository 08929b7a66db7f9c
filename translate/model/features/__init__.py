"""Decoder features (`translate.config.features` names them): the interface (`base.Feature`), and
`build_features`, the one place a model's features are built, in the registry's order."""

from __future__ import annotations

import importlib
from typing import Any

from translate.config.features import FEATURES
from translate.model.features.base import Feature, Vocabulary

__all__ = ["FEATURES", "Feature", "Vocabulary", "build_features"]


def build_features(cfg: Any, attention: Any, src_vocab: int, tgt_vocab: int) -> list[Feature]:
    """The features a model configuration turns on, each built by its module's `build`."""
    built = []
    for info in FEATURES.values():
        if info.enabled(cfg):
            feature = importlib.import_module(info.module).build(cfg, attention, src_vocab, tgt_vocab)
            if feature is not None:
                built.append(feature)
    return built
