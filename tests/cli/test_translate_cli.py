"""`translate text/file/models` with installed models of both directions (tiny, untrained, saved
into a temporary models folder): per-line direction, attention views, the prompt."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.serve.conftest import served
from translate.checkpoint.store import save_checkpoint
from translate.cli.app import app
from translate.data.tokenizer import Tokenizer
from translate.inference.fast.graphs import ship_graphs
from translate.inference.router import Router

runner = CliRunner()


@pytest.fixture
def models_dir(tmp_path: Path, tiny_tokenizers: tuple[Tokenizer, Tokenizer], monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "models"
    for direction in ("en-zh", "zh-en"):
        m = served(direction, tiny_tokenizers, direction)
        save_checkpoint(root / direction, m.artifact, m.translator.model, m.translator.src_tokenizer,
                        m.translator.tgt_tokenizer, {"step": 3})
        ship_graphs(root / direction)  # as `translate release` does
    monkeypatch.setenv("TRANSLATE_MODELS", str(root))
    yield root


def test_each_line_goes_to_the_model_of_its_script(models_dir: Path) -> None:
    router = Router()
    groups = router.groups(["a cat", "我喜欢茶", "", "我用Python写代码", "the dog"])
    assert [(t.src_lang, rows) for t, rows in groups] == [("en", [0, 4]), ("zh", [1, 3])]
    forced = Router(direction="zh-en").groups(["a cat", "我喜欢茶"])
    assert [(t.src_lang, rows) for t, rows in forced] == [("zh", [0, 1])]
    result = runner.invoke(app, ["text", "a cat", "我喜欢茶", "", "the dog"])
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()) == 4


def test_a_missing_direction_names_what_is_installed(models_dir: Path) -> None:
    import shutil

    shutil.rmtree(models_dir / "zh-en")
    result = runner.invoke(app, ["text", "我喜欢茶"])
    assert result.exit_code == 1
    assert "error: no released model for zh-en (installed: en-zh)" in result.output


def test_a_given_checkpoint_warns_about_lines_in_the_other_language(models_dir: Path) -> None:
    result = runner.invoke(app, ["text", "a cat", "我喜欢茶", "--checkpoint", str(models_dir / "en-zh")])
    assert result.exit_code == 0, result.output
    assert "line 2 looks Chinese but the model translates en->zh" in result.output


def test_models_lists_installed_models(models_dir: Path) -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == ["en-zh", "zh-en"] and "soft additive" in lines[0]
    rows = [json.loads(line) for line in runner.invoke(app, ["models", "--json"]).output.splitlines()]
    assert [(r["direction"], r["step"], r["test_bleu"]) for r in rows] == [("en-zh", 3, None), ("zh-en", 3, None)]


def test_show_attention_and_png(models_dir: Path, tmp_path: Path) -> None:
    png = tmp_path / "att.png"
    result = runner.invoke(app, ["text", "a cat", "the dog runs", "--show-attention", "--attention-png", str(png)])
    assert result.exit_code == 0, result.output
    views = [line for line in result.output.splitlines() if line.startswith("target")]
    assert len(views) == 2 and "</s>" in result.output and " <- " in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_file_keeps_empty_lines_and_joins_a_paragraph(models_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("a cat.\n\nI like tea. The dog runs. Hello.\n我喜欢茶。你呢？\n", encoding="utf-8")
    result = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "-o", str(tmp_path / "out.txt")])
    assert result.exit_code == 0, result.output
    out = (tmp_path / "out.txt").read_text(encoding="utf-8").split("\n")
    assert len(out) == 5 and out[1] == "" and out[4] == ""


def test_file_sample_draws_seeded_translations_on_the_torch_engine(models_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("a cat.\nthe dog runs.\nI like tea.\n" * 4, encoding="utf-8")
    runs = {}
    for name, extra in {"a": ["--seed", "1"], "b": ["--seed", "1"], "c": ["--seed", "2"], "beam": []}.items():
        options = ["--sample", "1.5", *extra] if extra else []
        result = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "--direction", "en-zh", *options])
        assert result.exit_code == 0, result.output
        runs[name] = result.stdout.split("\n")
        assert len(runs[name]) == 13 and runs[name][-1] == ""  # one line per input line, whatever the pieces spell
    assert runs["a"] == runs["b"] and runs["a"] != runs["c"]
    assert len(set(runs["a"][:-1])) > len(set(runs["beam"][:-1]))  # the same line drawn anew each time
    refused = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "--sample", "1", "--engine", "onnx"],
                            env={"COLUMNS": "300"})
    assert refused.exit_code == 2 and "--sample runs on --engine torch" in refused.output
    negative = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "--sample", "-1"], env={"COLUMNS": "300"})
    assert negative.exit_code == 2 and "--sample" in negative.output and "must be >= 0" in negative.output


@pytest.mark.slow
def test_no_argument_on_a_terminal_is_a_prompt_until_ctrl_d(models_dir: Path) -> None:
    controller, terminal = pty.openpty()
    env = {**os.environ, "TRANSLATE_MODELS": str(models_dir)}
    proc = subprocess.Popen([sys.executable, "-m", "translate", "text", "--checkpoint", str(models_dir / "en-zh")],
                            stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    os.close(terminal)
    time.sleep(0.5)
    os.write(controller, b"a cat\n")
    os.write(controller, b"the dog\n")
    os.write(controller, b"\x04")  # Ctrl-D on an empty line: end of input
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(controller)
    assert proc.returncode == 0, err.decode()
    assert b"Ctrl-D quits" in err and err.count(b"> ") >= 3  # a prompt per line, and the one Ctrl-D ended
    assert len(out.decode().splitlines()) == 2


def test_the_onnx_engine_prints_what_the_torch_engine_prints(models_dir: Path) -> None:
    lines = ["a cat", "我喜欢茶", "", "the dog runs. It is fast!"]
    for extra in ([], ["--beam", "1"], ["--n-best", "2"]):
        outputs = {engine: runner.invoke(app, ["text", *lines, "--engine", engine, *extra]) for engine in ("onnx", "torch")}
        assert all(r.exit_code == 0 for r in outputs.values()), outputs["onnx"].output
        assert outputs["onnx"].output == outputs["torch"].output


def test_auto_translates_without_importing_torch(models_dir: Path) -> None:
    code = ("import sys; from translate.cli.app import app; app(['text', 'a cat', '我喜欢茶'], standalone_mode=False); "
            "print('torch imported' if 'torch' in sys.modules else 'no torch', file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TRANSLATE_MODELS": str(models_dir)})
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == 2 and run.stderr.strip().endswith("no torch")


def test_the_onnx_engine_refuses_attention_views_and_runs_every_mechanism(models_dir: Path, tmp_path: Path,
                                                                          tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    result = runner.invoke(app, ["text", "a cat", "--engine", "onnx", "--show-attention"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "--engine onnx runs on the CPU and without --show-attention" in result.output
    multi = served("multi", tiny_tokenizers, **{"model.attention.kind": "multihead", "model.encoder_self_attention": True})
    save_checkpoint(tmp_path / "multi", multi.artifact, multi.translator.model, *tiny_tokenizers, {"step": 1})
    outputs = {engine: runner.invoke(app, ["text", "a cat", "--engine", engine, "-m", str(tmp_path / "multi")])
               for engine in ("onnx", "torch", "auto")}
    assert all(r.exit_code == 0 for r in outputs.values()), outputs["onnx"].output
    assert outputs["onnx"].output == outputs["torch"].output == outputs["auto"].output
    assert not (tmp_path / "multi" / "onnx").exists()  # a user's checkpoint: graphs go to the user cache
