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
