"""The command line: help, exit codes, one-line errors, and a tiny end-to-end run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import TINY_DIR, tiny_overrides
from translate.cli.app import app
from translate.cli.common import help_text

runner = CliRunner()
COMMANDS = ["prepare", "train", "text", "file", "models", "evaluate", "info", "upgrade-checkpoint", "compare", "serve"]


def sets(tmp: Path, **extra: object) -> list[str]:
    args: list[str] = []
    for key, value in tiny_overrides(tmp, **extra).items():
        args += ["--set", f"{key}={value}"]
    return args


@pytest.mark.parametrize("command", COMMANDS)
def test_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("translate ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["text", "hi", "--checkpoint", "no/such/run"], "error: checkpoint not found: no/such/run"),
        (["info", "--checkpoint", "tests"], "is not a checkpoint"),
        (["train", "--set", "model.attention.kind=fancy"], "choose one of hard, multihead, none, soft"),
        (["train", "--set", "train.lerning_rate=1"], "did you mean 'train.learning_rate'"),
        (["train", "--set", "data.direction=en-de"], "choose one of en-zh, zh-en"),
        (["text", "hi", "--checkpoint", "no-such-model"], "not a folder, nor a released model"),
        (["train", "--data-dir", "no/such/dir", "--name", "x"], "data directory not found: no/such/dir"),
        (["train", "--resume", "no/such/run"], "no config.yaml there"),
        (["file", "no/such/file.txt", "--checkpoint", "no/such/run"], "file not found"),
        (["compare", "--report-only", "--out", "no/such/study"], "no finished runs in no/such/study/runs"),
    ],
)
def test_user_errors_are_one_line_and_exit_1(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, args + (["--set", f"runs_dir={tmp_path}"] if args[0] == "train" and "--resume" not in args else []))
    assert result.exit_code == 1, result.output
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("args", "option"), [(["evaluate", "--split", "train"], "--split"),
                                              (["evaluate", "--direction", "en-de"], "--direction"),
                                              (["train", "--direction", "en-de"], "--direction"),
                                              (["text", "hi", "--device", "tpu"], "--device"),
                                              (["compare", "--report-only", "--verify"], "--verify"),
                                              (["compare", "--steps", "1", "--executor", "slurm"], "--executor"),
                                              (["compare", "--steps", "1", "--address", "127.0.0.1:1"], "--executor"),
                                              (["compare", "--steps", "1", "--executor", "ray", "--jobs", "2"], "--jobs")])
def test_bad_choices_are_usage_errors_naming_the_option(args: list[str], option: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.output


def test_info_prints_every_default_location() -> None:
    result = runner.invoke(app, ["info"])
    assert result.exit_code == 0, result.output
    for label in ("released models:", "default corpus:", "cache:", "direction: en-zh"):
        assert label in result.output


def test_train_translate_evaluate_resume(tmp_path: Path) -> None:
    result = runner.invoke(app, ["train", *sets(tmp_path), "--max-steps", "20"])
    assert result.exit_code == 0, result.output
    run = tmp_path / "runs" / "tiny"
    assert (run / "best" / "model.safetensors").is_file() and (run / "last" / "trainer.pt").is_file()

    result = runner.invoke(app, ["text", "I like tea.", "", "Thank you.", "--checkpoint", str(run)])
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()) == 3

    result = runner.invoke(app, ["text", "--checkpoint", str(run), "--n-best", "2", "--beam", "2"], input="I like tea.\n")
    assert result.exit_code == 0 and len(result.output.splitlines()) == 2 and "\t" in result.output

    (tmp_path / "in.txt").write_text("I like tea.\nWe are friends.\n")
    result = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "-o", str(tmp_path / "out.txt"), "--checkpoint", str(run)])
    assert result.exit_code == 0, result.output
    assert len((tmp_path / "out.txt").read_text().splitlines()) == 2

    result = runner.invoke(app, ["evaluate", "--checkpoint", str(run), "--split", "test", "--beam", "2"])
    assert result.exit_code == 0, result.output
    assert "tok:zh" in result.output and "chrF" in result.output
    assert (run / "report.test.json").is_file()

    result = runner.invoke(app, ["train", "--resume", str(run), "--max-steps", "30"])
    assert result.exit_code == 0, result.output
    assert "30 steps" in result.output

    result = runner.invoke(app, ["info", "--checkpoint", str(run)])
    assert result.exit_code == 0 and "direction: en-zh" in result.output
    assert "decoding: beam 3, length penalty 1, coverage penalty 0, names lexicon off by default" in result.output


def test_zh_en_direction_uses_13a(tmp_path: Path) -> None:
    result = runner.invoke(app, ["train", *sets(tmp_path, **{"data.direction": "zh-en"}), "--max-steps", "10"])
    assert result.exit_code == 0, result.output
    run = tmp_path / "runs" / "tiny"
    result = runner.invoke(app, ["evaluate", "--checkpoint", str(run), "--split", "dev", "--data-dir", str(TINY_DIR)])
    assert result.exit_code == 0, result.output
    assert "tok:13a" in result.output


def test_prepare_reports_counts(tmp_path: Path) -> None:
    result = runner.invoke(app, ["prepare", *sets(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "train:" in result.output and "24 rows" in result.output and "<unk> rate" in result.output


def test_help_joins_prose_lines_and_keeps_example_lines() -> None:
    """The docstrings' own line breaks (~100 columns) are not carried into --help, where the terminal
    wraps; example paragraphs keep one command per line."""
    result = runner.invoke(app, ["train", "--help"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    assert "position are refused; budgets, intervals and the learning rate may change" in result.output
    lines = [line.strip() for line in result.output.splitlines()]
    assert "translate train --direction en-zh --max-minutes 20 --name en-zh" in lines
    assert "translate train --init-from en-zh --data-dir my-corpus/ --name mine" in lines


def test_help_text_reflow() -> None:
    doc = """First line.

    A prose paragraph
    wrapped in the source.

    Example:
      one command
      another command
    """
    assert help_text(doc) == "First line.\n\nA prose paragraph wrapped in the source.\n\nExample:\n  one command\n  another command"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_keeps_square_brackets(command: str) -> None:
    """Rich reads "[word]" in a help text as markup and drops it ('translate[ray]' printed as 'translate'):
    every bracketed text of every option reaches --help (escaped as "\\[" in the source)."""
    import re

    import typer.main

    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    bracketed = [re.sub(r"\\\[", "[", m) for param in click_command.params
                 for m in re.findall(r"\S*\\?\[[^\]\s]*\]\S*", getattr(param, "help", None) or "")]
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "2000"})
    flat = " ".join(result.output.split())
    for text in bracketed:
        assert text.rstrip(".',") in flat, text
