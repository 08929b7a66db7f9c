"""What may change when a run is resumed, and what a fine-tuning run takes from its checkpoint.

Settings that define the model, its tokenizers or the direction would make the saved weights
unloadable; settings that change what the saved data position means (batch size, length limits,
data, seed) would silently resume somewhere else. Both are refused, naming each key. Everything
else (budgets, patience, intervals, learning-rate schedule, decoding defaults, device, threads)
is applied and recorded in train.log.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from translate.checkpoint.store import Loaded, load_checkpoint
from translate.config.paths import find_model
from translate.config.schema import ModelConfig, RunConfig
from translate.errors import ConfigError
from translate.model import Seq2Seq, build_model

FROZEN_PREFIXES = ("model.", "tokenizer.", "data.", "train.seed", "train.init_from", "train.init_attention")
LOCATION_KEYS = ("runs_dir", "name")  # where the run folder is now: follows the folder
MUTABLE_DATA_KEYS = ("data.cache_dir", "data.check_columns", "data.subword_alpha")


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def changed_settings(saved: RunConfig, new: RunConfig) -> dict[str, tuple[Any, Any]]:
    """key -> (saved value, new value) for every setting that differs (run location excluded)."""
    old, now = _flatten(saved.to_dict()), _flatten(new.to_dict())
    return {k: (old[k], now[k]) for k in old if old[k] != now[k] and k not in LOCATION_KEYS}


def check_resume(saved: RunConfig, new: RunConfig) -> dict[str, tuple[Any, Any]]:
    """Raise ConfigError listing the frozen settings that differ; return the changes that apply."""
    changes = changed_settings(saved, new)
    frozen = [k for k in changes if k.startswith(FROZEN_PREFIXES) and k not in MUTABLE_DATA_KEYS]
    if frozen:
        lines = "; ".join(f"{k}: {changes[k][0]!r} -> {changes[k][1]!r}" for k in frozen)
        raise ConfigError(f"cannot resume with changed settings that define the model, its tokenizers or the data "
                          f"position ({lines}); start a new run with --name, or resume without these --set options")
    return changes


def init_source(cfg: RunConfig) -> tuple[RunConfig, Loaded | None]:
    """For `train.init_from`: the checkpoint, and `cfg` with the checkpoint's model and tokenizer
    settings (its vocabulary is fixed: new words split into its pieces, unseen characters into bytes)."""
    if not cfg.train.init_from:
        return cfg, None
    loaded = load_checkpoint(find_model(cfg.train.init_from))
    if loaded.artifact.direction != cfg.data.direction:
        raise ConfigError(f"train.init_from: {loaded.path} translates {loaded.artifact.direction}, but data.direction "
                          f"is {cfg.data.direction}; use --direction {loaded.artifact.direction} or a "
                          f"{cfg.data.direction} checkpoint")
    if cfg.train.init_attention == "config" and cfg.model.attention != loaded.artifact.model.attention:
        model_cfg = dataclasses.replace(loaded.artifact.model, attention=cfg.model.attention)
        return (dataclasses.replace(cfg, model=model_cfg, tokenizer=loaded.artifact.tokenizer),
                dataclasses.replace(loaded, model=_with_attention(loaded, model_cfg)))
    return dataclasses.replace(cfg, model=loaded.artifact.model, tokenizer=loaded.artifact.tokenizer), loaded


def _with_attention(loaded: Loaded, model_cfg: ModelConfig) -> Seq2Seq:
    """A model of `model_cfg` (the checkpoint's, with another attention) holding the checkpoint's
    tensors; refuses a checkpoint tensor with no place of the same shape in the new model."""
    model = build_model(model_cfg, len(loaded.src_tokenizer), len(loaded.tgt_tokenizer))
    source, target = loaded.model.state_dict(), model.state_dict()
    misfits = sorted(name for name, tensor in source.items()
                     if name not in target or target[name].shape != tensor.shape)
    if misfits:
        raise ConfigError(f"train.init_attention=config: {len(misfits)} tensor(s) of {loaded.path} have no place of "
                          f"the same shape with model.attention.kind={model_cfg.attention.kind}/"
                          f"{model_cfg.attention.scorer} (e.g. {', '.join(misfits[:3])})")
    model.load_state_dict(source, strict=False)  # what the new attention adds keeps its initialisation
    return model
