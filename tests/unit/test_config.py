import json
import re
from pathlib import Path

import pytest

from translate.config.loading import apply_overrides, from_dict, load_config, parse_set
from translate.config.schema import ArtifactConfig, RunConfig
from translate.errors import ConfigError


def test_defaults_are_valid_and_round_trip_through_json() -> None:
    cfg = load_config()
    assert from_dict(RunConfig, json.loads(json.dumps(cfg.to_dict()))) == cfg
    artifact = cfg.artifact()
    assert from_dict(ArtifactConfig, json.loads(json.dumps(artifact.to_dict()))) == artifact
    assert cfg.data.src_lang == "en" and cfg.data.tgt_lang == "zh" and artifact.tgt_lang == "zh"


def test_artifact_config_holds_no_paths_or_machine_settings() -> None:
    keys = set(load_config().artifact().to_dict())
    assert keys == {"format_version", "direction", "model", "tokenizer", "decode"}
    text = json.dumps(load_config().artifact().to_dict())
    for machine_setting in ("data_dir", "cache_dir", "runs_dir", "threads", "device", "name"):
        assert f'"{machine_setting}":' not in text


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"train.learnin_rate": 0.1}, "did you mean 'train.learning_rate'"),
        ({"modle.hidden_size": 8}, "did you mean 'model'"),
        ({"train.learning_rate": -1.0}, "train.learning_rate=-1.0 is invalid: must be > 0"),
        ({"train.learning_rate": "fast"}, "expected a number"),
        ({"tokenizer.zh_vocab_size": 0}, "tokenizer.zh_vocab_size=0"),
        ({"decode.beam_size": 0}, "decode.beam_size=0"),
        ({"decode.n_best": 6}, "decode.n_best=6"),
        ({"model.attention.kind": "multihead", "model.attention.multihead.heads": 3}, "must divide model.hidden_size (256)"),
        ({"model.attention.kind": "fancy"}, "kind='fancy' is invalid: choose one of hard, multihead, none, soft"),
        ({"model.attention.scorer": "cosine"}, "choose one of additive, bilinear, dot, scaled-dot"),
        ({"model.hidden_size": 10**9}, "model.hidden_size=1000000000 is invalid: must be in [1, 16384]"),
        ({"device": "tpu"}, "choose one of auto, cpu, cuda"),
        ({"model.attention.kind": "multihead", "model.attention.scorer": "bilinear"}, "not available with kind=multihead"),
        ({"data.direction": "en-fr"}, "choose one of en-zh, zh-en"),
        ({"model.bidirectional": "maybe"}, "expected true or false"),
        ({"train.max_steps": 2.5}, "expected an integer"),
        ({"data.subword_alpha": 1.5}, "data.subword_alpha=1.5 is invalid: must be in [0, 1]"),
        ({"data.subword_alpha": 0.1, "tokenizer.model_type": "char"}, "needs tokenizer.model_type unigram or bpe"),
    ],
)
def test_bad_values_name_the_key(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(None, overrides)


def test_set_parses_yaml_scalars() -> None:
    assert parse_set(["a.b=3", "c=0.5", "d=true", "e=text"]) == {"a.b": 3, "c": 0.5, "d": True, "e": "text"}
    with pytest.raises(ConfigError, match="expected key=value"):
        parse_set(["novalue"])


def test_yaml_and_toml_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("train:\n  learning_rate: 0.005\nmodel:\n  attention:\n    kind: none\n")
    (tmp_path / "b.toml").write_text("[train]\nlearning_rate = 0.005\n[model.attention]\nkind = 'none'\n")
    a, b = load_config(tmp_path / "a.yaml"), load_config(tmp_path / "b.toml")
    assert a == b and a.train.learning_rate == 0.005 and a.model.attention.kind == "none"
    # --set wins over the file
    assert load_config(tmp_path / "a.yaml", {"train.learning_rate": 0.1}).train.learning_rate == 0.1


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "bad.yaml").write_text("train: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")
    (tmp_path / "unknown.yaml").write_text("trian:\n  seed: 1\n")
    with pytest.raises(ConfigError, match="did you mean 'train'"):
        load_config(tmp_path / "unknown.yaml")


def test_replace_returns_new_frozen_config() -> None:
    cfg = RunConfig()
    new = apply_overrides(cfg, {"decode.beam_size": 2})
    assert new.decode.beam_size == 2 and cfg.decode.beam_size == 5


def test_attention_settings_are_grouped_by_the_kind_that_reads_them(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    cfg = load_config(None, {"model.attention.kind": "hard", "model.attention.hard.training": "marginal",
                             "model.attention.hard.marginal_decoding": "mixture"})
    stored = cfg.artifact().to_dict()["model"]["attention"]
    assert stored["hard"]["training"] == "marginal" and "multihead" not in stored  # only its own kind's section
    assert from_dict(ArtifactConfig, cfg.artifact().to_dict()) == cfg.artifact()  # the rest loads as defaults
    soft = load_config().artifact().to_dict()["model"]["attention"]
    assert set(soft) == {"kind", "scorer", "mode"}
    with pytest.raises(ConfigError, match="mixture needs model.attention.hard.training=marginal"):
        load_config(None, {"model.attention.kind": "hard", "model.attention.hard.marginal_decoding": "mixture"})
    with pytest.raises(ConfigError, match="'model.attention.soft_mix' is now 'model.attention.hard.soft_mix'"):
        load_config(None, {"model.attention.soft_mix": 0.2})
    # a run folder's config.yaml from before: flat keys, read in the new layout with a notice
    old = tmp_path / "config.yaml"
    old.write_text("model:\n  attention:\n    kind: multihead\n    heads: 8\n    layer_norm: true\n"
                   "    soft_mix: 0.3\n", encoding="utf-8")
    with caplog.at_level("INFO"):
        read = load_config(old)
    assert read.model.attention.multihead.heads == 8 and read.model.attention.multihead.layer_norm
    assert read.model.attention.hard.soft_mix == 0.3 and "model.attention.heads" in caplog.text
