"""The fast path (`translate.inference.fast`) against the PyTorch model it is derived from, generated over
every `translate compare` preset, every decoder feature turned on by name and the encoder/decoder variants: the same log-probabilities step by
step (to 1e-4) on padded batches, the same hypotheses and scores from the one search on either engine
(greedy, beam, n-best, coverage penalty, lexically constrained, ensembles), the same checkpoint files (fp32, fp16, bf16)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.conftest import tiny_overrides
from translate.checkpoint.store import load_checkpoint, save_checkpoint
from translate.config.features import FEATURES
from translate.config.loading import load_config
from translate.data.batch import pad
from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError
from translate.inference.build import load_translator
from translate.inference.fast.graphs import fingerprint
from translate.model import build_model
from translate.model.features.copy import copy_table
from translate.study.presets import PRESETS

TINY_WIDTH = {"model.hidden_size": 16, "model.embedding_size": 16}  # presets of another width, at the tiny size
CONFIGS: dict[str, dict[str, Any]] = {
    **{f"preset:{name}": {**{k: v for k, v in overrides.items() if k.startswith("model.")},
                          **({k: v for k, v in TINY_WIDTH.items() if k in overrides})}
       for name, overrides in PRESETS.items()},
    "lstm-2-layers-dot": {"model.rnn_type": "lstm", "model.encoder_layers": 2, "model.decoder_layers": 2,
                          "model.attention.scorer": "dot"},
    "scaled-dot-kv-no-feeding": {"model.attention.scorer": "scaled-dot", "model.attention.mode": "key-value",
                                 "model.input_feeding": False},
    "bilinear-unidirectional-untied": {"model.attention.scorer": "bilinear", "model.bidirectional": False,
                                       "model.tie_embeddings": False, "model.embedding_size": 12},
    "marginal-mixture-lstm": {"model.attention.kind": "hard", "model.attention.hard.training": "marginal",
                              "model.attention.hard.marginal_decoding": "mixture", "model.rnn_type": "lstm"},
    "self-attention-multihead-lstm": {"model.encoder_self_attention": True, "model.attention.kind": "multihead",
                                      "model.rnn_type": "lstm", "model.attention.multihead.layer_norm": True},
    **{f"feature:{name}": {"model.features": name} for name, info in FEATURES.items() if info.by_name},
    "every-feature": {"model.features": ",".join(name for name, info in FEATURES.items() if info.by_name),
                      "model.copy_attention": True, "model.attention.coverage.kind": "neural",
                      "model.attention.coverage.size": 3},
}
SENTENCES = ["a cat sleeps on the sofa", "the dog", "I like tea and coffee very much", "where"]


@pytest.fixture(autouse=True)
def _graph_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRANSLATE_CACHE", str(tmp_path / "user-cache"))


def checkpoint(tmp: Path, tokenizers: tuple[Tokenizer, Tokenizer], half: bool = False, seed: int = 3,
               **overrides: Any) -> Path:
    """A random (untrained) model of the tiny configuration, saved; biases perturbed so none is zero."""
    cfg = load_config(None, tiny_overrides(tmp, **overrides))
    torch.manual_seed(seed)
    model = build_model(cfg.model, len(tokenizers[0]), len(tokenizers[1])).eval()
    if model.decoder.feature("copy") is not None:  # the pieces both vocabularies hold copy to target ids, the rest to V + i
        model.decoder.copy.set_table(copy_table(*tokenizers, cfg.data.tgt_lang))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "bias" in name or name.endswith(".v"):
                p.uniform_(-0.5, 0.5)
    save_checkpoint(tmp / "ckpt", cfg.artifact(), model, *tokenizers, {"step": 1}, half=half)
    return tmp / "ckpt"


def test_every_preset_is_covered() -> None:
    assert {name.removeprefix("preset:") for name in CONFIGS if name.startswith("preset:")} == set(PRESETS)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_derived_graphs_step_and_translate_as_the_torch_model(name: str, tmp_path: Path,
                                                                  tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers, **CONFIGS[name])
    torch_tr, fast = load_translator(path), load_translator(path, engine="onnx")
    model, graphs = torch_tr.model, fast.engine.members[0]
    sources = fast.encode_sources(SENTENCES[:3])  # a padded batch of three lengths
    with torch.no_grad():
        ctx = model.encode(pad(sources), torch.tensor([len(ids) for ids in sources]))
        fast_ctx, tokens = graphs.encode(sources), [2, 2, 2]
        for rows, nxt in (([0, 0, 1, 2], [5, 9, 11, 4]), ([3, 0, 1, 1], [7, 7, 30, 3]), ([1, 1, 2], [4, 20, 3])):
            log_probs, ctx = model.step(torch.tensor(tokens), ctx)
            fast_log_probs, fast_ctx = graphs.step(np.array(tokens), fast_ctx)
            np.testing.assert_allclose(fast_log_probs, log_probs.numpy(), atol=1e-4)
            ctx, fast_ctx, tokens = ctx.select(torch.tensor(rows)), fast_ctx.select(np.array(rows)), nxt
    texts = SENTENCES + ["", "Tea. Coffee, please."]
    for beam, n_best, beta in ((1, 1, 0.0), (5, 1, 0.0), (4, 3, 0.0), (5, 2, 0.6)):  # beta: the coverage penalty
        decode = replace(fast.decode, beam_size=beam, n_best=n_best, coverage_penalty=beta)
        same_n_best(fast.translate_n_best(texts, decode), torch_tr.translate_n_best(texts, decode))


def same_hypotheses(got: list[list[Any]], expected: list[list[Any]]) -> None:
    """The same n-best lists (tokens) and scores (to 1e-4: the engines differ in the last bits)."""
    assert [[h.tokens for h in hyps] for hyps in got] == [[h.tokens for h in hyps] for hyps in expected]
    assert [h.score for hyps in got for h in hyps] == pytest.approx([h.score for hyps in expected for h in hyps], abs=1e-4)


def same_n_best(got: list[list[Any]], expected: list[list[Any]]) -> None:
    same_hypotheses(got, expected)
    assert [[h.text for h in hyps] for hyps in got] == [[h.text for h in hyps] for hyps in expected]


@pytest.mark.parametrize("name", list(CONFIGS))
def test_constrained_search_and_ensembles_search_alike_on_both_engines(name: str, tmp_path: Path,
                                                                       tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """The one search over each engine's step: lexically constrained (each sentence its own terms) and an
    ensemble of two checkpoints (greedy, beam), the same hypotheses and scores."""
    first = checkpoint(tmp_path / "a", tiny_tokenizers, **CONFIGS[name])
    second = checkpoint(tmp_path / "b", tiny_tokenizers, seed=4, **CONFIGS[name])
    torch_tr, fast = load_translator(first), load_translator(first, engine="onnx")
    sources = fast.encode_sources(SENTENCES)
    terms = [fast.tgt_tokenizer.encode([word])[0] for word in ("tea", "the cat", "sofa", "dog")]
    constraints = [[terms[0]], [terms[1], terms[3]], [], [terms[2]]]
    for beam, n_best, beta in ((3, 1, 0.0), (5, 3, 0.0), (4, 1, 0.6)):
        decode = replace(fast.decode, n_best=n_best, coverage_penalty=beta)
        same_hypotheses(fast.engine.constrained(sources, decode, constraints, beam, banned_after=[5, 6]),
                        torch_tr.engine.constrained(sources, decode, constraints, beam, banned_after=[5, 6]))
    torch_ens, fast_ens = load_translator([first, second]), load_translator([first, second], engine="onnx")
    for beam, beta in ((1, 0.0), (5, 0.0), (5, 0.6)):  # n-best lists of two untrained members hold near-ties
        decode = replace(fast.decode, beam_size=beam, n_best=1, coverage_penalty=beta)
        same_n_best(fast_ens.translate_n_best(SENTENCES, decode), torch_ens.translate_n_best(SENTENCES, decode))
    alone = fast.translate_n_best(SENTENCES, replace(fast.decode, beam_size=5, n_best=2))
    assert [h.score for hyps in alone for h in hyps] != pytest.approx(
        [h.score for hyps in fast_ens.translate_n_best(SENTENCES, replace(fast.decode, beam_size=5, n_best=2))
         for h in hyps], abs=1e-4)  # the second member counts


@pytest.mark.parametrize("half", [False, True])
def test_fp16_checkpoints_translate_as_on_torch(half: bool, tmp_path: Path,
                                                tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers, half=half)
    texts = SENTENCES + ["Tea. Coffee, please."]
    assert load_translator(path, engine="onnx").translate_paragraphs(texts) == \
        load_translator(path).translate_paragraphs(texts)


def test_graphs_are_derived_once_per_architecture_into_the_user_cache(tmp_path: Path,
                                                                      tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    first = checkpoint(tmp_path / "a", tiny_tokenizers)
    load_translator(first, engine="onnx")
    cached = list((tmp_path / "user-cache" / "graphs").iterdir())
    artifact = load_checkpoint(first).artifact
    assert [p.name for p in cached] == [fingerprint(artifact.model, len(tiny_tokenizers[0]), len(tiny_tokenizers[1]))]
    assert sorted(p.name for p in cached[0].iterdir()) == ["encoder.onnx", "graphs.json", "step.onnx"]
    assert sorted(p.name for p in first.iterdir()) == sorted(p.name for p in (tmp_path / "a" / "ckpt").iterdir())
    assert not (first / "onnx").exists()  # never written into the checkpoint
    stamp = (cached[0] / "step.onnx").stat().st_mtime_ns
    load_translator(checkpoint(tmp_path / "b", tiny_tokenizers), engine="onnx")  # same architecture, other folder
    assert (cached[0] / "step.onnx").stat().st_mtime_ns == stamp
    assert sum(cached[0].stat().st_size for _ in [0]) and (cached[0] / "step.onnx").stat().st_size < 200_000  # no weights


def test_weights_that_do_not_fit_the_config_are_refused(tmp_path: Path,
                                                        tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    path = checkpoint(tmp_path, tiny_tokenizers, **{"model.attention.scorer": "dot"})
    config = json.loads((path / "config.json").read_text())
    config["model"]["attention"]["scorer"] = "additive"  # the additive scorer's weights are then missing
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="tensor 'decoder.attention.scorer.key_layer.weight' missing"):
        load_translator(path, engine="onnx")
    config["model"]["attention"]["scorer"] = "dot"
    config["model"]["hidden_size"] = config["model"]["embedding_size"] = 8
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match="has shape .* config.json implies"):
        load_translator(path, engine="onnx")


def test_bfloat16_and_float16_weights_read_as_torch_reads_them(tmp_path: Path,
                                                               tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from safetensors.torch import save_model

    from translate.inference.fast.weights import load_arrays

    path = checkpoint(tmp_path, tiny_tokenizers)
    for dtype in (torch.bfloat16, torch.float16):
        model = load_checkpoint(path).model.to(dtype)
        save_model(model, str(tmp_path / "w.safetensors"))
        state = model.state_dict()
        arrays = load_arrays(tmp_path / "w.safetensors", {name: tuple(t.shape) for name, t in state.items()})
        for name, tensor in state.items():
            assert np.array_equal(arrays[name], tensor.float().numpy()), (dtype, name)
