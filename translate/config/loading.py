"""Building a RunConfig from plain data: YAML/TOML files, `--set a.b=c` overrides, JSON; strict and typed.

Unknown keys are errors naming the nearest valid key; values are checked against the field's type
(Literal choices, bool, int, float, str) before the dataclasses run their own rules.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import tomllib
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

from translate.config.schema import RunConfig
from translate.errors import ConfigError

T = TypeVar("T")
logger = logging.getLogger(__name__)
# Attention settings that only one kind reads used to sit flat under model.attention (checkpoint format 2)
MOVED_ATTENTION_KEYS = {
    "heads": "multihead.heads", "layer_norm": "multihead.layer_norm", "hard_training": "hard.training",
    "marginal_decoding": "hard.marginal_decoding", "hard_sample": "hard.sample",
    **{key: f"hard.{key}" for key in ("reinforce_weight", "entropy_weight", "baseline_decay", "soft_mix",
                                      "reinforce_baseline", "soft_anneal_steps", "gumbel_temperature")},
}


def moved_key_error(key: str) -> ConfigError:
    """The error for a flat kind-specific attention key, e.g. model.attention.heads, naming where it is now."""
    prefix, _, name = key.rpartition(".")
    return ConfigError(f"config key '{key}' is now '{prefix}.{MOVED_ATTENTION_KEYS[name]}' "
                       f"(settings only one attention kind reads are grouped under it)")


def nest_attention(attention: Any) -> list[str]:
    """Move flat kind-specific attention settings (the earlier layout) into their sections, in place;
    returns the keys moved."""
    if not isinstance(attention, dict):
        return []
    moved = [key for key in MOVED_ATTENTION_KEYS if key in attention]
    for key in moved:
        section, name = MOVED_ATTENTION_KEYS[key].split(".")
        target = attention.setdefault(section, {})
        if isinstance(target, dict):
            target.setdefault(name, attention.pop(key))
    return moved


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


def _coerce_number(value: Any, tp: type, name: str) -> Any:
    if isinstance(value, str):
        try:
            value = tp(value)
        except ValueError:
            raise ConfigError(f"{name}={value!r} is invalid: expected a number ({_type_name(tp)})") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name}={value!r} is invalid: expected {_type_name(tp)}")
    if tp is int and isinstance(value, float):
        if not value.is_integer():
            raise ConfigError(f"{name}={value!r} is invalid: expected an integer")
        value = int(value)
    return tp(value)


def _coerce(value: Any, tp: Any, name: str) -> Any:
    """Check (and gently convert: int -> float, "3" -> 3 from the CLI) one value."""
    if typing.get_origin(tp) is Literal:
        choices = typing.get_args(tp)
        if value not in choices:
            raise ConfigError(f"{name}={value!r} is invalid: choose one of {', '.join(map(str, choices))}")
        return value
    if tp is bool:
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if not isinstance(value, bool):
            raise ConfigError(f"{name}={value!r} is invalid: expected true or false")
        return value
    if tp in (int, float):
        return _coerce_number(value, tp, name)
    if tp is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ConfigError(f"{name}={value!r} is invalid: expected a string")
        return str(value)
    return value


def _unknown_key(key: str, valid: list[str], prefix: str) -> ConfigError:
    near = difflib.get_close_matches(key, valid, n=1)
    hint = f"; did you mean '{prefix}{near[0]}'?" if near else f"; valid keys: {', '.join(sorted(valid))}"
    return ConfigError(f"unknown config key '{prefix}{key}'{hint}")


def from_dict(cls: type[T], data: Any, prefix: str = "") -> T:
    """Build a (nested) config dataclass from plain data, rejecting unknown keys and bad types."""
    if not isinstance(data, dict):
        raise ConfigError(f"'{prefix.rstrip('.') or 'config'}' must be a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in fields:
            raise _unknown_key(str(key), sorted(fields), prefix)
        tp = hints[key]
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            kwargs[key] = value if dataclasses.is_dataclass(value) else from_dict(tp, value, f"{prefix}{key}.")
        else:
            kwargs[key] = _coerce(value, tp, f"{prefix}{key}")
    return cls(**kwargs)


def _set_dotted(tree: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = tree
    for i, part in enumerate(parts[:-1]):
        child = node.get(part)
        if not isinstance(child, dict):
            raise _unknown_key(".".join(parts[: i + 1]), [k for k in node if isinstance(node[k], dict)], "")
        node = child
    if parts[-1] not in node:
        prefix = ".".join(parts[:-1]) + "." if len(parts) > 1 else ""
        if parts[-2:-1] == ["attention"] and parts[-1] in MOVED_ATTENTION_KEYS:
            raise moved_key_error(key)
        raise _unknown_key(parts[-1], list(node), prefix)
    node[parts[-1]] = value


def apply_overrides(cfg: T, overrides: dict[str, Any]) -> T:
    """A copy of any config dataclass with dotted-key overrides applied (validated like a file)."""
    if not overrides:
        return cfg
    tree = dataclasses.asdict(cfg)  # type: ignore[call-overload]
    for key, value in overrides.items():
        _set_dotted(tree, key, value)
    return from_dict(type(cfg), tree)


def parse_set(items: list[str]) -> dict[str, Any]:
    """Parse CLI `--set a.b=value` items; values are read as YAML scalars (3, 0.1, true, text)."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"--set {item!r} is invalid: expected key=value, e.g. --set train.learning_rate=0.001")
        key, raw = item.split("=", 1)
        try:
            out[key.strip()] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            out[key.strip()] = raw
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    """The mapping in a YAML or TOML file (empty for an empty file)."""
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    text = path.read_text(encoding="utf-8")
    try:
        loaded = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid {'TOML' if path.suffix == '.toml' else 'YAML'}: {exc}") from None
    return loaded or {}


def load_config(path: Path | None = None, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read a YAML or TOML file (or the defaults), then apply dotted overrides. A file in the earlier
    attention layout (flat kind-specific keys, e.g. a run folder's config.yaml) is read in the new one."""
    data = read_config_file(path) if path is not None else {}
    model = data.get("model") if isinstance(data, dict) else None
    moved = nest_attention(model.get("attention")) if isinstance(model, dict) else []
    if moved:
        logger.info("%s: read model.attention.%s as model.attention.%s", path, ", ".join(moved),
                    ", ".join(MOVED_ATTENTION_KEYS[k] for k in moved))
    cfg = from_dict(RunConfig, data)
    return apply_overrides(cfg, overrides or {})


def save_config(cfg: RunConfig, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
