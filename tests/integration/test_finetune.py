"""`translate train --init-from`: fine-tuning starts from a checkpoint's weights, tokenizers and
model settings; a checkpoint of the other direction is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from typer.testing import CliRunner

from tests.conftest import tiny_overrides
from translate.cli.app import app
from translate.config.loading import load_config
from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.study.compare import study_run_config
from translate.training.resume import init_source

runner = CliRunner()


def _sets(overrides: dict[str, object]) -> list[str]:
    return [arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")]


def test_fine_tuning_starts_from_the_checkpoint(tmp_path: Path) -> None:
    base = tiny_overrides(tmp_path)
    assert runner.invoke(app, ["train", *_sets(base), "--max-steps", "20"]).exit_code == 0
    source = tmp_path / "runs" / "tiny" / "best"
    # the fine-tuning run names no model settings: they come from the checkpoint (hidden 16, not 256)
    tune = {k: v for k, v in base.items() if not k.startswith(("model.", "tokenizer."))}
    tune.update({"name": "tuned", "train.learning_rate": 1e-12, "train.min_learning_rate": 0, "train.warmup_steps": 1,
                 "train.weight_decay": 0.0, "train.average_last": 0})
    result = runner.invoke(app, ["train", *_sets(tune), "--max-steps", "1", "--init-from", str(source)])
    assert result.exit_code == 0, result.output
    run = tmp_path / "runs" / "tuned"
    assert "fine-tuning" in (run / "train.log").read_text()
    cfg = load_config(run / "config.yaml")
    assert cfg.model.hidden_size == 16 and cfg.train.init_from == str(source)
    for name in ("src.spm.model", "tgt.spm.model"):
        assert (run / "last" / name).read_bytes() == (source / name).read_bytes()
    before, after = load_file(source / "model.safetensors"), load_file(run / "last" / "model.safetensors")
    assert before.keys() == after.keys()
    for key in before:
        torch.testing.assert_close(after[key].float(), before[key].float(), atol=1e-6, rtol=0)

    other = runner.invoke(app, ["train", *_sets({**tune, "name": "wrong"}), "--direction", "zh-en",
                                "--init-from", str(source)])
    assert other.exit_code == 1
    assert "translates en-zh, but data.direction is zh-en; use --direction en-zh" in other.output

    resumed = runner.invoke(app, ["train", "--resume", str(run), "--init-from", "elsewhere"])
    assert resumed.exit_code == 1 and "train.init_from" in resumed.output


@pytest.mark.parametrize("missing", ["no/such/checkpoint"])
def test_a_missing_init_checkpoint_is_one_line(tmp_path: Path, missing: str) -> None:
    result = runner.invoke(app, ["train", *_sets(tiny_overrides(tmp_path)), "--init-from", missing])
    assert result.exit_code == 1 and "checkpoint not found: no/such/checkpoint" in result.output


def test_warm_start_of_another_attention_keeps_the_weights_that_fit(tmp_path: Path) -> None:
    """train.init_attention=config: hard attention starts from a soft model's weights (all of them
    fit: the additive scorer is shared); an attention whose tensors do not fit is refused by name."""
    base = tiny_overrides(tmp_path)
    assert runner.invoke(app, ["train", *_sets(base), "--max-steps", "10"]).exit_code == 0
    source = tmp_path / "runs" / "tiny"
    hard = {**base, "train.init_from": str(source), "train.init_attention": "config",
            "model.attention.kind": "hard", "model.attention.hard.training": "reinforce",
            "model.attention.hard.reinforce_baseline": "soft"}
    cfg, init = init_source(load_config(None, hard))
    assert init is not None and cfg.model.attention.kind == "hard" and cfg.model.hidden_size == 16
    soft = load_file(source / "best" / "model.safetensors")
    warm = init.model.state_dict()
    assert all(torch.equal(warm[k], v) for k, v in soft.items())
    assert type(init.model.decoder.attention).__name__ != "SoftAttention"
    plain = init_source(load_config(None, {**hard, "train.init_attention": "checkpoint"}))[0]
    assert plain.model.attention.kind == "soft"  # the default: the checkpoint's model settings, attention too
    with pytest.raises(ConfigError, match="have no place of the same shape with model.attention.kind=multihead"):
        init_source(load_config(None, {**hard, "model.attention.kind": "multihead", "model.attention.multihead.heads": 2}))


def test_a_study_preset_can_start_from_another_presets_run(tmp_path: Path, tiny_config: RunConfig) -> None:
    cfg = study_run_config(tiny_config, "hard-reinforce-warm", 1, tmp_path / "work")
    assert cfg.train.init_from == str(tmp_path / "work" / "additive-seed1")
    assert (tmp_path / "work" / "additive-seed1" / "best" / "model.safetensors").is_file()  # trained first
