"""The Python API: every ```python block of docs/python.md and README.md runs with the released models
and prints what its comments say; the API translates as `translate text` and `translate file` do."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

import translate
from translate.errors import CheckpointError, ConfigError

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[str, str]]:
    found = []
    for page in ("docs/python.md", "README.md"):
        for number, block in enumerate(BLOCK.findall((ROOT / page).read_text(encoding="utf-8")), start=1):
            found.append((f"{page}#{number}", block))
    return found


def expected_prints(block: str) -> list[str]:
    """The comment after each print(...) line: what it prints."""
    return [line.split("  # ", 1)[1].strip() for line in block.splitlines()
            if line.startswith("print(") and "  # " in line]


@pytest.mark.parametrize(("where", "block"), examples(), ids=[where for where, _ in examples()])
def test_every_documented_example_prints_what_it_says(where: str, block: str) -> None:
    ast.parse(block)
    wanted = expected_prints(block)
    assert wanted, f"{where}: an example without a printed result checks nothing"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, where, "exec"), {})  # noqa: S102  # the documentation's own code
    assert out.getvalue().splitlines() == wanted


def test_the_api_translates_as_the_cli_does(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from translate.cli.app import app

    lines = ["我喜欢茶。我也喜欢咖啡。", "Where is the station?", "", "我明天要去北京看我的朋友。"]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["file", str(tmp_path / "in.txt"), "-o", str(tmp_path / "out.txt")])
    assert result.exit_code == 0, result.output
    assert translate.load().translate(lines) == (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    torch_engine = translate.load("zh-en", engine="torch", direction="zh-en")
    assert torch_engine.translate(lines[:1]) == translate.load("zh-en").translate(lines[:1])


def test_mistakes_raise_the_projects_errors() -> None:
    with pytest.raises(CheckpointError, match="no-such-model"):
        translate.load("no-such-model").translate("你好")
    with pytest.raises(ConfigError, match="term 1"):
        translate.load("zh-en", glossary=[("", "北京")])
    with pytest.raises(ConfigError, match="--engine onnx"):
        translate.load("zh-en", engine="onnx", device="cuda")
