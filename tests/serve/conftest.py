"""Served models for the API tests: tiny untrained models in both directions (and a multi-head one),
built in memory; the browser test uses the released model instead."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.conftest import tiny_overrides
from translate.config.loading import load_config
from translate.data.tokenizer import Tokenizer
from translate.inference.translator import Translator
from translate.model import build_model
from translate.serve.models import Models, ServedModel


def served(name: str, tokenizers: tuple[Tokenizer, Tokenizer], direction: str = "en-zh", **extra: object) -> ServedModel:
    cfg = load_config(None, tiny_overrides(Path("/nonexistent"), **{"data.direction": direction, **extra}))
    src, tgt = tokenizers if direction == "en-zh" else tokenizers[::-1]
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src), len(tgt)).eval()
    translator = Translator(model, src, tgt, cfg.decode, cfg.data.src_lang, cfg.data.tgt_lang)
    return ServedModel(name, translator, cfg.artifact(), {"step": 7, "scores": {"test": 1.5}})


@pytest.fixture(scope="session")
def both_directions(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> Models:
    return Models([served("en-zh", tiny_tokenizers), served("zh-en", tiny_tokenizers, "zh-en"),
                   served("multi", tiny_tokenizers, **{"model.attention.kind": "multihead"})])


@contextlib.contextmanager
def live_server(app: Any, **config: Any) -> Iterator[str]:
    """`app` behind a real uvicorn server on a free 127.0.0.1 port (more uvicorn settings in `config`),
    stopped on exit; yields its URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


# a 1x1 PNG: what a study's figure file holds, for the routes that serve it
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@pytest.fixture(scope="session")
def tiny_study(tmp_path_factory: pytest.TempPathFactory, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> Path:
    """A `translate compare` out folder with two finished runs (additive, dot) whose weights are in
    runs/ beside their small results, its table and one figure."""
    import json

    from translate.checkpoint.store import save_checkpoint

    out = tmp_path_factory.mktemp("study")
    for mechanism, scorer, bleu in (("additive", "additive", 12.5), ("dot", "dot", 10.25)):
        run = served(f"{mechanism}-seed1", tiny_tokenizers, **{"model.attention.scorer": scorer})
        folder = out / "runs" / f"{mechanism}-seed1"
        save_checkpoint(folder / "best", run.artifact, run.translator.model, *tiny_tokenizers, {"step": 7})
        (folder / "compare.json").write_text(json.dumps({"mechanism": mechanism, "seed": 1, "test_bleu": bleu,
                                                         "test_chrf": bleu + 1, "dev_bleu": bleu - 1, "steps": 7}))
    (out / "results.json").write_text(json.dumps({"rows": [
        {"mechanism": "additive", "seeds": 1, "test_bleu_mean": 12.5, "test_bleu_std": None, "test_chrf_mean": 13.5,
         "dev_bleu_mean": 11.5},
        {"mechanism": "dot", "seeds": 1, "test_bleu_mean": 10.25, "test_bleu_std": None, "test_chrf_mean": 11.25,
         "dev_bleu_mean": 9.25}]}))
    (out / "bleu.png").write_bytes(PNG)
    (out / "notes.txt").write_text("not a figure")
    return out
