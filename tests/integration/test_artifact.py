"""A checkpoint is a portable artifact: no paths inside, read-only use, old formats, safe resume."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import TINY_DIR
from translate.checkpoint.store import load_checkpoint, save_checkpoint, upgrade_checkpoint
from translate.cli.app import app
from translate.config.loading import apply_overrides, load_config
from translate.config.schema import ARTIFACT_FORMAT, RunConfig
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.evaluation.evaluate import evaluate_checkpoint
from translate.inference.build import load_translator
from translate.inference.translator import Translator
from translate.model import Seq2Seq, build_model
from translate.training.train import train

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _format_1(path: Path, cfg: RunConfig) -> None:
    """Turn a current checkpoint into the first release's layout (config.json = the whole run config)."""
    (path / "config.json").write_text(json.dumps(cfg.to_dict()), encoding="utf-8")
    meta = json.loads((path / "meta.json").read_text())
    (path / "meta.json").write_text(json.dumps({**meta, "format_version": 1}), encoding="utf-8")


def test_saved_config_is_an_artifact_without_machine_settings(tmp_path: Path, tiny_config: RunConfig,
                                                               tiny_model: Seq2Seq,
                                                               tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 1})
    saved = json.loads((tmp_path / "ckpt" / "config.json").read_text())
    assert set(saved) == {"format_version", "direction", "model", "tokenizer", "decode"}
    assert str(tmp_path) not in (tmp_path / "ckpt" / "config.json").read_text()


def test_format_1_loads_with_a_notice_and_upgrades_byte_for_byte(tmp_path: Path, tiny_config: RunConfig,
                                                                 tiny_model: Seq2Seq,
                                                                 tiny_tokenizers: tuple[Tokenizer, Tokenizer],
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    old = tmp_path / "old"
    save_checkpoint(old, tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 5})
    # the paths of a training machine, which must never be used
    machine = apply_overrides(tiny_config, {"data.data_dir": str(tmp_path / "trainer-data"),
                                            "data.cache_dir": str(tmp_path / "trainer-cache"),
                                            "runs_dir": str(tmp_path / "trainer-runs")})
    _format_1(old, machine)
    before = tree_digest(old)
    with caplog.at_level(logging.WARNING):
        loaded = load_checkpoint(old)
    assert "checkpoint format 1" in caplog.text and "translate upgrade-checkpoint" in caplog.text
    assert loaded.artifact == tiny_config.artifact()
    translator = Translator(loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer, loaded.artifact.decode)
    expected = translator.translate(["I like tea."])

    result = runner.invoke(app, ["upgrade-checkpoint", str(old), "--output", str(tmp_path / "new")])
    assert result.exit_code == 0, result.output
    assert tree_digest(old) == before  # the source is untouched
    new = tree_digest(tmp_path / "new")
    for name in ("model.safetensors", "src.spm.model", "tgt.spm.model"):
        assert new[name] == before[name]
    meta = json.loads((tmp_path / "new" / "meta.json").read_text())
    assert meta["format_version"] == ARTIFACT_FORMAT and meta["step"] == 5 and meta["upgraded_from_format"] == 1
    caplog.clear()
    assert load_translator(tmp_path / "new").translate(["I like tea."]) == expected
    assert "format 1" not in caplog.text
    for folder in ("trainer-data", "trainer-cache", "trainer-runs"):
        assert not (tmp_path / folder).exists()


def test_format_2_attention_settings_are_read_nested_by_kind_and_upgraded(
        tmp_path: Path, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer],
        caplog: pytest.LogCaptureFixture) -> None:
    """Format 2 kept every attention setting flat under model.attention, whatever the kind."""
    cfg = apply_overrides(tiny_config, {"model.attention.kind": "hard", "model.attention.hard.training": "marginal",
                                        "model.attention.hard.soft_mix": 0.25})
    model = build_model(cfg.model, len(tiny_tokenizers[0]), len(tiny_tokenizers[1])).eval()
    old = tmp_path / "old"
    save_checkpoint(old, cfg.artifact(), model, *tiny_tokenizers, {"step": 5})
    stored = json.loads((old / "config.json").read_text())
    assert "hard" in stored["model"]["attention"] and "multihead" not in stored["model"]["attention"]
    current = json.loads(json.dumps(stored["model"]))
    attention = stored["model"]["attention"]
    hard, attention["heads"], attention["layer_norm"] = attention.pop("hard"), 4, False
    attention.update({"hard_training" if key == "training" else "hard_sample" if key == "sample" else key: value
                      for key, value in hard.items()})
    (old / "config.json").write_text(json.dumps({**stored, "format_version": 2}), encoding="utf-8")
    meta = json.loads((old / "meta.json").read_text())
    (old / "meta.json").write_text(json.dumps({**meta, "format_version": 2}), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        loaded = load_checkpoint(old)
    assert "checkpoint format 2" in caplog.text and "translate upgrade-checkpoint" in caplog.text
    assert loaded.artifact.model == cfg.artifact().model
    upgrade_checkpoint(old, tmp_path / "new")
    assert json.loads((tmp_path / "new" / "config.json").read_text())["model"] == current
    assert load_checkpoint(tmp_path / "new").artifact.model == cfg.artifact().model
    assert tree_digest(tmp_path / "new")["model.safetensors"] == tree_digest(old)["model.safetensors"]


def test_upgrade_in_place(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                          tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = tmp_path / "ckpt"
    save_checkpoint(path, tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 5})
    _format_1(path, tiny_config)
    upgrade_checkpoint(path)
    assert json.loads((path / "config.json").read_text())["format_version"] == ARTIFACT_FORMAT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]  # no .tmp/.old left behind


def test_the_released_checkpoint_is_current_and_evaluate_leaves_it_byte_identical(tmp_path: Path) -> None:
    released = REPO / "checkpoints" / "en-zh"
    before = tree_digest(released)
    assert json.loads((released / "config.json").read_text())["format_version"] == ARTIFACT_FORMAT
    result, written = evaluate_checkpoint(released, "dev", data_dir=str(TINY_DIR), beam=1)
    assert written == [] and result.report.sentences == 8
    result = runner.invoke(app, ["evaluate", "--checkpoint", str(released), "--data-dir", str(TINY_DIR), "--beam", "1"])
    assert result.exit_code == 0, result.output
    assert "wrote" not in result.output
    result = runner.invoke(app, ["evaluate", "--checkpoint", str(released), "--data-dir", str(TINY_DIR), "--beam", "1",
                                 "--output", str(tmp_path / "dev.hyp.txt")])
    assert result.exit_code == 0, result.output
    assert len((tmp_path / "dev.hyp.txt").read_text().splitlines()) == 8
    report = json.loads((tmp_path / "dev.hyp.txt.report.json").read_text())
    assert report["sentences"] == 8
    assert len(report["load_average"]["before"]) == len(report["load_average"]["after"]) == 3  # a busy hour shows
    assert tree_digest(released) == before
    meta = json.loads((released / "meta.json").read_text())
    assert meta["scores"]["test"]["beam5"]["bleu"] > 30  # the model card's figures, machine-readable


# --------------------------------------------------------------------------- resume


def test_resume_refuses_settings_that_define_the_model_or_data_position(tiny_config: RunConfig) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 10, "train.validate_every": 10})
    train(cfg)
    for change, key in [({"model.hidden_size": 32, "model.embedding_size": 32}, "model.embedding_size"),
                        ({"data.batch_tokens": 200}, "data.batch_tokens"), ({"train.seed": 7}, "train.seed"),
                        ({"tokenizer.zh_vocab_size": 60}, "tokenizer.zh_vocab_size"),
                        ({"data.direction": "zh-en"}, "data.direction")]:
        with pytest.raises(ConfigError, match=rf"cannot resume with changed settings .*{key}"):
            train(apply_overrides(cfg, {**change, "train.max_steps": 20}), resume=True)
    result = runner.invoke(app, ["train", "--resume", str(cfg.run_dir), "--max-steps", "20",
                                 "--set", "model.hidden_size=32", "--set", "model.embedding_size=32"])
    assert result.exit_code == 1
    assert "model.hidden_size: 16 -> 32" in result.output and "model.embedding_size: 16 -> 32" in result.output
    assert load_checkpoint(cfg.run_dir / "last").meta["step"] == 10  # nothing was written


def test_resume_applies_and_records_budget_and_learning_rate(tiny_config: RunConfig) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 10, "train.validate_every": 10,
                                        "train.schedule": "constant", "train.warmup_steps": 1})
    train(cfg)
    new = apply_overrides(cfg, {"train.max_steps": 20, "train.learning_rate": 0.001, "train.patience": 3})
    result = train(new, resume=True)
    assert result.state.step == 20
    log = (cfg.run_dir / "train.log").read_text()
    assert "resume: train.learning_rate changed from 0.01 to 0.001" in log
    assert "resume: train.max_steps changed from 10 to 20" in log
    progress = [json.loads(line) for line in (cfg.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["lr"] for r in progress if r["kind"] == "train" and r["step"] > 10] == [pytest.approx(0.001)]
    assert load_config(cfg.run_dir / "config.yaml").train.learning_rate == 0.001
    assert load_checkpoint(cfg.run_dir / "last").meta["step"] == 20  # and the saved checkpoint loads
