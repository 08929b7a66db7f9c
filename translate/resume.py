"""What may change when a run is resumed.

Settings that define the model, its tokenizers or the direction would make the saved weights
unloadable; settings that change what the saved data position means (batch size, length limits,
data, seed) would silently resume somewhere else. Both are refused, naming each key. Everything
else (budgets, patience, intervals, learning-rate schedule, decoding defaults, device, threads)
is applied and recorded in train.log.
"""

from __future__ import annotations

from typing import Any

from translate.config import RunConfig
from translate.errors import ConfigError

FROZEN_PREFIXES = ("model.", "tokenizer.", "data.", "train.seed")
LOCATION_KEYS = ("runs_dir", "name")  # where the run folder is now: follows the folder
MUTABLE_DATA_KEYS = ("data.cache_dir", "data.check_columns")


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
