"""One typed run configuration: frozen dataclasses, validated once, loaded from YAML/TOML plus overrides."""

from __future__ import annotations

import dataclasses
import difflib
import json
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from translate.errors import ConfigError

Direction = Literal["en-zh", "zh-en"]
LANGS = ("en", "zh")


def _check(condition: bool, name: str, value: Any, rule: str) -> None:
    if not condition:
        raise ConfigError(f"{name}={value!r} is invalid: {rule}")


@dataclass(frozen=True)
class DataConfig:
    """Where the corpus is and how it is cleaned and batched."""

    data_dir: str = "../shared/data/tatoeba-cmn-eng"
    format: Literal["tsv", "text", "jsonl", "hf"] = "tsv"
    train: str = "train.tsv"
    dev: str = "dev.tsv"
    test: str = "test.tsv"
    hf_name: str = ""  # for format=hf: a dataset on the Hugging Face hub (needs internet)
    hf_config: str = ""  # its configuration, e.g. "en-zh" for Helsinki-NLP/opus-100
    direction: Direction = "en-zh"
    max_chars: int = 300  # training pairs with a longer side are dropped
    max_ratio: float = 9.0  # training pairs whose length ratio exceeds this are dropped
    max_tokens: int = 100  # training pairs longer than this many pieces are dropped
    batch_tokens: int = 1200  # padded tokens per training batch (target or source side, whichever is longer)
    bucket_batches: int = 50  # batches sorted together for length bucketing
    cache_dir: str = "data/cache"

    def __post_init__(self) -> None:
        _check(self.max_chars > 0, "data.max_chars", self.max_chars, "must be > 0")
        _check(self.max_ratio >= 1, "data.max_ratio", self.max_ratio, "must be >= 1")
        _check(self.max_tokens > 1, "data.max_tokens", self.max_tokens, "must be > 1")
        _check(self.batch_tokens >= self.max_tokens, "data.batch_tokens", self.batch_tokens,
               f"must be >= data.max_tokens ({self.max_tokens})")
        _check(self.bucket_batches >= 1, "data.bucket_batches", self.bucket_batches, "must be >= 1")
        _check(self.format != "hf" or bool(self.hf_name), "data.hf_name", self.hf_name,
               "needed when data.format=hf")

    @property
    def src_lang(self) -> str:
        return self.direction.split("-")[0]

    @property
    def tgt_lang(self) -> str:
        return self.direction.split("-")[1]


@dataclass(frozen=True)
class TokenizerConfig:
    """SentencePiece settings, one model per language, trained on the training split only."""

    model_type: Literal["unigram", "bpe", "char"] = "unigram"
    en_vocab_size: int = 4000
    zh_vocab_size: int = 4000
    # Chinese: keep full-width punctuation as the references have it (NFKC would rewrite it).
    zh_normalization: Literal["identity", "nmt_nfkc", "nfkc"] = "identity"
    en_normalization: Literal["identity", "nmt_nfkc", "nfkc"] = "nmt_nfkc"
    zh_character_coverage: float = 1.0
    byte_fallback: bool = True  # unseen characters become bytes, not <unk>

    def __post_init__(self) -> None:
        for lang in LANGS:
            size = getattr(self, f"{lang}_vocab_size")
            _check(size >= 50, f"tokenizer.{lang}_vocab_size", size, "must be >= 50")
        _check(0.9 <= self.zh_character_coverage <= 1.0, "tokenizer.zh_character_coverage",
               self.zh_character_coverage, "must be in [0.9, 1.0]")

    def vocab_size(self, lang: str) -> int:
        return int(getattr(self, f"{lang}_vocab_size"))


@dataclass(frozen=True)
class AttentionConfig:
    """Which attention the decoder uses; see translate.model.attention for the registry."""

    kind: str = "soft"  # soft | hard | multihead | none
    scorer: str = "additive"  # additive | dot | scaled-dot | bilinear
    mode: Literal["plain", "key-value"] = "plain"
    heads: int = 4  # multihead only
    hard_training: Literal["reinforce", "straight-through"] = "reinforce"
    hard_sample: Literal["sample", "argmax"] = "sample"  # how hard attention picks while training
    reinforce_weight: float = 1.0
    entropy_weight: float = 0.01
    baseline_decay: float = 0.95
    soft_mix: float = 0.5  # Xu et al. 2015: with this probability use the expectation instead
    gumbel_temperature: float = 1.0

    def __post_init__(self) -> None:
        _check(self.heads >= 1, "model.attention.heads", self.heads, "must be >= 1")
        _check(0 <= self.soft_mix <= 1, "model.attention.soft_mix", self.soft_mix, "must be in [0, 1]")
        _check(0 <= self.baseline_decay < 1, "model.attention.baseline_decay", self.baseline_decay,
               "must be in [0, 1)")
        _check(self.gumbel_temperature > 0, "model.attention.gumbel_temperature",
               self.gumbel_temperature, "must be > 0")
        # names are checked against the registries by validate_attention() (no import cycle here)


@dataclass(frozen=True)
class ModelConfig:
    """Encoder-decoder sizes. The encoder is bidirectional: hidden_size/2 per direction."""

    rnn_type: Literal["gru", "lstm"] = "gru"
    embedding_size: int = 256
    hidden_size: int = 256
    encoder_layers: int = 1
    decoder_layers: int = 1
    bidirectional: bool = True
    dropout: float = 0.3
    embedding_dropout: float = 0.2
    tie_embeddings: bool = True  # share the target embedding with the output layer
    input_feeding: bool = True
    encoder_self_attention: bool = False
    self_attention_heads: int = 4
    attention: AttentionConfig = field(default_factory=AttentionConfig)

    def __post_init__(self) -> None:
        for name in ("embedding_size", "hidden_size", "encoder_layers", "decoder_layers"):
            _check(getattr(self, name) >= 1, f"model.{name}", getattr(self, name), "must be >= 1")
        for name in ("dropout", "embedding_dropout"):
            _check(0 <= getattr(self, name) < 1, f"model.{name}", getattr(self, name), "must be in [0, 1)")
        _check(not self.bidirectional or self.hidden_size % 2 == 0, "model.hidden_size",
               self.hidden_size, "must be even for a bidirectional encoder")
        _check(not self.tie_embeddings or self.embedding_size == self.hidden_size,
               "model.tie_embeddings", self.tie_embeddings,
               f"needs model.embedding_size == model.hidden_size ({self.embedding_size} != {self.hidden_size})")
        if self.attention.kind == "multihead":
            _check(self.hidden_size % self.attention.heads == 0, "model.attention.heads",
                   self.attention.heads, f"must divide model.hidden_size ({self.hidden_size})")
        if self.encoder_self_attention:
            _check(self.hidden_size % self.self_attention_heads == 0, "model.self_attention_heads",
                   self.self_attention_heads, f"must divide model.hidden_size ({self.hidden_size})")


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser, schedule, budget, validation and checkpointing."""

    seed: int = 1
    learning_rate: float = 2e-3
    min_learning_rate: float = 1e-4
    weight_decay: float = 1e-4
    warmup_steps: int = 300
    schedule: Literal["inverse-sqrt", "cosine", "constant"] = "inverse-sqrt"
    label_smoothing: float = 0.1
    clip_norm: float = 1.0
    max_steps: int = 0  # 0 = no step limit
    max_minutes: float = 0.0  # 0 = no time limit
    max_epochs: int = 0  # 0 = no epoch limit
    log_every: int = 50
    validate_every: int = 500
    patience: int = 8  # validations without dev BLEU improvement before stopping; 0 = never
    average_last: int = 4  # average this many latest validation checkpoints at the end; <= 1 = off
    valid_beam: int = 1  # beam used for dev BLEU during training (1 = greedy, fastest)
    threads: int = 0  # torch CPU threads; 0 = leave as is
    tensorboard: bool = False
    max_bad_losses: int = 20  # consecutive NaN/inf losses before training stops

    def __post_init__(self) -> None:
        _check(self.learning_rate > 0, "train.learning_rate", self.learning_rate, "must be > 0")
        _check(0 <= self.min_learning_rate <= self.learning_rate, "train.min_learning_rate",
               self.min_learning_rate, "must be in [0, train.learning_rate]")
        _check(0 <= self.label_smoothing < 1, "train.label_smoothing", self.label_smoothing, "must be in [0, 1)")
        _check(self.clip_norm > 0, "train.clip_norm", self.clip_norm, "must be > 0")
        for name in ("max_steps", "max_epochs", "warmup_steps", "patience", "threads"):
            _check(getattr(self, name) >= 0, f"train.{name}", getattr(self, name), "must be >= 0")
        _check(self.max_minutes >= 0, "train.max_minutes", self.max_minutes, "must be >= 0")
        for name in ("log_every", "validate_every", "valid_beam", "max_bad_losses"):
            _check(getattr(self, name) >= 1, f"train.{name}", getattr(self, name), "must be >= 1")


@dataclass(frozen=True)
class DecodeConfig:
    """Search settings for translation and evaluation."""

    beam_size: int = 5
    length_penalty: float = 1.0  # GNMT alpha; 0 = raw log-probability
    max_len_a: float = 2.0  # max output length = a * source length + b
    max_len_b: int = 10
    n_best: int = 1
    batch_size: int = 256  # sentences per decoding batch (sorted by length: larger is faster on CPU)

    def __post_init__(self) -> None:
        _check(self.beam_size >= 1, "decode.beam_size", self.beam_size, "must be >= 1")
        _check(1 <= self.n_best <= self.beam_size, "decode.n_best", self.n_best,
               f"must be in [1, decode.beam_size={self.beam_size}]")
        _check(self.length_penalty >= 0, "decode.length_penalty", self.length_penalty, "must be >= 0")
        _check(self.max_len_a >= 0 and self.max_len_b >= 1, "decode.max_len_b", self.max_len_b,
               "max_len_a must be >= 0 and max_len_b >= 1")
        _check(self.batch_size >= 1, "decode.batch_size", self.batch_size, "must be >= 1")


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs; stored in runs/<name>/config.yaml and in every checkpoint."""

    name: str = "default"
    runs_dir: str = "runs"
    data: DataConfig = field(default_factory=DataConfig)
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    decode: DecodeConfig = field(default_factory=DecodeConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.name

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, overrides: dict[str, Any]) -> RunConfig:
        """Return a copy with dotted-key overrides applied (validated like a file)."""
        return apply_overrides(self, overrides)


# --------------------------------------------------------------------------- building from dicts


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


def _coerce(value: Any, tp: Any, name: str) -> Any:
    """Check (and gently convert: int -> float, "3" -> 3 from the CLI) one value."""
    origin = typing.get_origin(tp)
    if origin is Literal:
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
    if tp is str:
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ConfigError(f"{name}={value!r} is invalid: expected a string")
        return str(value)
    return value


def _unknown_key(key: str, valid: list[str], prefix: str) -> ConfigError:
    near = difflib.get_close_matches(key, valid, n=1)
    hint = f"; did you mean '{prefix}{near[0]}'?" if near else f"; valid keys: {', '.join(sorted(valid))}"
    return ConfigError(f"unknown config key '{prefix}{key}'{hint}")


def from_dict(cls: type[Any], data: dict[str, Any], prefix: str = "") -> Any:
    """Build a (nested) config dataclass from plain data, rejecting unknown keys and bad types."""
    if not isinstance(data, dict):
        raise ConfigError(f"'{prefix.rstrip('.') or 'config'}' must be a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in fields:
            raise _unknown_key(str(key), sorted(fields), prefix)
        tp = hints[key]
        if dataclasses.is_dataclass(tp):
            kwargs[key] = value if dataclasses.is_dataclass(value) else from_dict(tp, value, f"{prefix}{key}.")
        else:
            kwargs[key] = _coerce(value, tp, f"{prefix}{key}")
    try:
        return cls(**kwargs)
    except TypeError as exc:  # pragma: no cover - defensive
        raise ConfigError(f"{prefix or 'config'}: {exc}") from None


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
        raise _unknown_key(parts[-1], list(node), prefix)
    node[parts[-1]] = value


def apply_overrides(cfg: RunConfig, overrides: dict[str, Any]) -> RunConfig:
    tree = cfg.to_dict()
    for key, value in overrides.items():
        _set_dotted(tree, key, value)
    new = from_dict(RunConfig, tree)
    validate_attention(new)
    return typing.cast(RunConfig, new)


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


def load_config(path: Path | None = None, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read a YAML or TOML file (or the defaults), then apply dotted overrides."""
    tree: dict[str, Any] = {}
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        text = path.read_text(encoding="utf-8")
        try:
            loaded = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
        except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: not valid {'TOML' if path.suffix == '.toml' else 'YAML'}: {exc}") from None
        tree = loaded or {}
    cfg = typing.cast(RunConfig, from_dict(RunConfig, tree))
    cfg = apply_overrides(cfg, overrides or {})
    return cfg


def validate_attention(cfg: RunConfig) -> None:
    from translate.model.attention import check_attention_config

    check_attention_config(cfg.model.attention)


def save_config(cfg: RunConfig, path: Path) -> None:
    path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False, allow_unicode=True), encoding="utf-8")


def config_to_json(cfg: RunConfig) -> str:
    return json.dumps(cfg.to_dict(), ensure_ascii=False, sort_keys=True)


def config_from_json(text: str) -> RunConfig:
    return typing.cast(RunConfig, from_dict(RunConfig, json.loads(text)))
