"""Shared fixtures: the tiny corpus, its tokenizers, a tiny configuration and model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from translate.config.loading import load_config
from translate.config.schema import RunConfig
from translate.data.readers import read_tsv
from translate.data.tokenizer import Tokenizer, train_tokenizer
from translate.inference.translator import Translator
from translate.model import Seq2Seq, build_model

TINY_DIR = Path(__file__).parent / "data" / "tiny"


@pytest.fixture(autouse=True, scope="session")
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Graphs derived for the fast path go to a cache of the test session's, not the user's."""
    before = os.environ.get("TRANSLATE_CACHE")
    os.environ["TRANSLATE_CACHE"] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if before is None:
        os.environ.pop("TRANSLATE_CACHE", None)
    else:
        os.environ["TRANSLATE_CACHE"] = before


def tiny_overrides(tmp: Path, **extra: Any) -> dict[str, Any]:
    return {
        "name": "tiny", "runs_dir": str(tmp / "runs"),
        "data.data_dir": str(TINY_DIR), "data.cache_dir": str(tmp / "cache"),
        "data.batch_tokens": 120, "data.max_tokens": 40, "data.bucket_batches": 2,
        "tokenizer.en_vocab_size": 70, "tokenizer.zh_vocab_size": 70, "tokenizer.byte_fallback": False,
        "model.embedding_size": 16, "model.hidden_size": 16, "model.dropout": 0.0,
        "model.embedding_dropout": 0.0, "model.attention.multihead.heads": 2, "model.self_attention_heads": 2,
        "train.learning_rate": 0.01, "train.warmup_steps": 10, "train.log_every": 10,
        "train.validate_every": 20, "train.max_steps": 40, "train.average_last": 2, "train.patience": 0,
        "train.label_smoothing": 0.0, "decode.beam_size": 3, **extra,
    }


@pytest.fixture
def tiny_config(tmp_path: Path) -> RunConfig:
    return load_config(None, tiny_overrides(tmp_path))


@pytest.fixture(scope="session")
def tiny_tokenizers() -> tuple[Tokenizer, Tokenizer]:
    cfg = load_config(None, tiny_overrides(Path("/nonexistent")))
    ds, _ = read_tsv(TINY_DIR / "train.tsv")
    return (Tokenizer(train_tokenizer(ds["en"], "en", cfg.tokenizer)),
            Tokenizer(train_tokenizer(ds["zh"], "zh", cfg.tokenizer)))


@pytest.fixture
def tiny_model(tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> Seq2Seq:
    torch.manual_seed(0)
    src, tgt = tiny_tokenizers
    return build_model(tiny_config.model, len(src), len(tgt)).eval()


@pytest.fixture
def translator(tiny_model: Seq2Seq, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> Translator:
    """The tiny en->zh model (untrained, seed 0) as a translator."""
    return Translator(tiny_model, *tiny_tokenizers, tiny_config.decode, "en", "zh")
