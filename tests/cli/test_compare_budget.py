"""`translate compare`'s budgets: a tuner that searches the batch size needs a budget in tokens."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from translate.cli.app import app


def test_tuning_the_batch_without_a_token_budget_is_refused_naming_the_option(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["compare", "--steps", "10", "--mechanisms", "additive", "--tune", "2",
                                      "--out", str(tmp_path / "study")])
    assert result.exit_code == 2, result.output
    assert "--budget-tokens" in result.output and "data.batch_tokens" in result.output
    assert not (tmp_path / "study").exists()  # refused before anything was written


def test_a_command_without_any_budget_is_refused_naming_every_kind(tmp_path: Path) -> None:
    none = CliRunner().invoke(app, ["compare", "--mechanisms", "additive", "--out", str(tmp_path / "a")])
    assert none.exit_code == 2 and "--budget-tokens" in none.output
