"""Served models for the API tests: tiny untrained models in both directions (and a multi-head one),
built in memory; the browser test uses the released model instead."""

from __future__ import annotations

from pathlib import Path

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
