"""The NumPy engine (`translate.inference.lite`) against the PyTorch model it stands in for: the same
log-probabilities step by step for every configuration it accepts, the same translations, the
same checkpoint files (fp32 and fp16), and clear refusals for what it does not run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.conftest import tiny_overrides
from translate.checkpoint.store import load_checkpoint, save_checkpoint
from translate.config.loading import load_config
from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError
from translate.inference.lite import LiteTranslator
from translate.inference.translator import Translator
from translate.model import build_model

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "lstm-2-layers-dot": {"model.rnn_type": "lstm", "model.encoder_layers": 2, "model.decoder_layers": 2,
                          "model.attention.scorer": "dot"},
    "scaled-dot-kv-no-feeding": {"model.attention.scorer": "scaled-dot", "model.attention.mode": "key-value",
                                 "model.input_feeding": False},
    "bilinear-unidirectional-untied": {"model.attention.scorer": "bilinear", "model.bidirectional": False,
                                       "model.tie_embeddings": False, "model.embedding_size": 12},
    "additive-kv-lstm": {"model.attention.mode": "key-value", "model.rnn_type": "lstm"},
    "none": {"model.attention.kind": "none"},
}
SENTENCES = ["a cat sleeps on the sofa", "the dog", "I like tea and coffee very much", "where"]


def checkpoint(tmp: Path, tokenizers: tuple[Tokenizer, Tokenizer], half: bool = False, **overrides: Any) -> Path:
    """A random (untrained) model of the tiny configuration, saved; biases perturbed so none is zero."""
    cfg = load_config(None, tiny_overrides(tmp, **overrides))
    torch.manual_seed(3)
    model = build_model(cfg.model, len(tokenizers[0]), len(tokenizers[1])).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "bias" in name:
                p.uniform_(-0.5, 0.5)
    save_checkpoint(tmp / "ckpt", cfg.artifact(), model, *tokenizers, {"step": 1}, half=half)
    return tmp / "ckpt"


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_step_gives_the_torch_log_probabilities(name: str, tmp_path: Path,
                                                      tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers, **CONFIGS[name])
    model, lite = load_checkpoint(path).model, LiteTranslator.from_checkpoint(path)
    ids = lite.encode_sources(SENTENCES[:1])[0]
    with torch.no_grad():
        ctx = model.encode(torch.tensor([ids]), torch.tensor([len(ids)]))
        np_ctx = lite.model.encode(ids)
        tokens = [2]
        for rows, nxt in (([0, 0, 0], [5, 9, 11]), ([2, 0, 1], [7, 7, 30]), ([1, 1, 2], [4, 20, 3])):
            log_probs, ctx = model.step(torch.tensor(tokens), ctx)
            np_log_probs, np_ctx = lite.model.step(np.array(tokens), np_ctx)
            np.testing.assert_allclose(np_log_probs, log_probs.numpy(), atol=2e-5)
            ctx, np_ctx, tokens = ctx.select(torch.tensor(rows)), np_ctx.select(np.array(rows)), nxt


@pytest.mark.parametrize("name", ["default", "lstm-2-layers-dot", "bilinear-unidirectional-untied"])
@pytest.mark.parametrize("half", [False, True])
def test_translations_equal_the_torch_translator(name: str, half: bool, tmp_path: Path,
                                                 tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers, half=half, **CONFIGS[name])
    torch_tr, lite = Translator.from_checkpoint(path), LiteTranslator.from_checkpoint(path)
    texts = SENTENCES + ["", "Tea. Coffee, please."]
    for beam, n_best in ((1, 1), (3, 1), (4, 3)):
        decode = lite.decode.__class__(**{**lite.decode.__dict__, "beam_size": beam, "n_best": n_best})
        expected, got = torch_tr.translate_n_best(texts, decode), lite.translate_n_best(texts, decode)
        assert [[h.tokens for h in hyps] for hyps in got] == [[h.tokens for h in hyps] for hyps in expected]
        assert [[h.text for h in hyps] for hyps in got] == [[h.text for h in hyps] for hyps in expected]
        assert [h.score for hyps in got for h in hyps] == pytest.approx([h.score for hyps in expected for h in hyps],
                                                                        abs=1e-4)
    assert lite.translate_paragraphs(texts) == torch_tr.translate_paragraphs(texts)


@pytest.mark.parametrize(("overrides", "reason"), [({"model.attention.kind": "hard"}, "attention kind hard"),
                                                   ({"model.attention.kind": "multihead"}, "attention kind multihead"),
                                                   ({"model.encoder_self_attention": True}, "encoder self-attention")])
def test_models_it_does_not_run_are_refused_with_the_reason(overrides: dict[str, Any], reason: str, tmp_path: Path,
                                                            tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers, **overrides)
    with pytest.raises(CheckpointError, match=f"NumPy engine does not run this model \\({reason}\\); use --engine torch"):
        LiteTranslator.from_checkpoint(path)


def test_weights_that_do_not_fit_the_config_are_refused(tmp_path: Path,
                                                        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers)
    config = json.loads((path / "config.json").read_text())
    config["model"]["attention"]["scorer"] = "dot"  # the additive scorer's weights are then unexpected
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="unexpected tensor 'decoder.attention.scorer.key_layer.weight'"):
        LiteTranslator.from_checkpoint(path)
    config["model"]["attention"]["scorer"] = "additive"
    config["model"]["hidden_size"] = config["model"]["embedding_size"] = 8
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="has shape .* config.json implies"):
        LiteTranslator.from_checkpoint(path)


def test_bfloat16_and_float16_weights_read_as_torch_reads_them(tmp_path: Path,
                                                               tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from safetensors.torch import save_model

    from translate.inference.lite.weights import load_arrays

    path = checkpoint(tmp_path, tiny_tokenizers)
    loaded = load_checkpoint(path)
    for dtype in (torch.bfloat16, torch.float16):
        model = load_checkpoint(path).model.to(dtype)
        save_model(model, str(tmp_path / "w.safetensors"))
        arrays = load_arrays(tmp_path / "w.safetensors", loaded.artifact.model, len(tiny_tokenizers[0]),
                             len(tiny_tokenizers[1]))
        for name, tensor in model.state_dict().items():
            assert np.array_equal(arrays[name], tensor.float().numpy()), (dtype, name)
