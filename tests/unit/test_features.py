"""Decoder features as plug-ins (`translate.config.features`, `translate.model.features`): a new feature
is its module plus one registration, and then trains, is exported to ONNX with its state by name and
translates alike on both engines; the registry's checks; the lexical model's maths."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.unit.test_fast import SENTENCES, checkpoint, same_n_best
from translate.config import features as registry
from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.data.batch import collate, pad
from translate.data.tokenizer import Tokenizer, source_ids, target_ids
from translate.errors import ConfigError
from translate.inference.build import load_translator
from translate.model import build_model
from translate.model.features.lexical import LexicalModel
from translate.training.loss import compute_loss


@pytest.fixture
def recency(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """tests/unit/toy_feature.py registered, for one test; the graph cache in the test's folder."""
    monkeypatch.setenv("TRANSLATE_CACHE", str(tmp_path / "user-cache"))
    saved = dict(registry.FEATURES)
    registry.register_feature("recency", "tests.unit.toy_feature")
    try:
        yield
    finally:
        registry.FEATURES.clear()
        registry.FEATURES.update(saved)


def test_a_new_feature_is_its_module_plus_one_registration(recency: None, tmp_path: Path, tiny_config: RunConfig,
                                                           tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """The configuration accepts it by name, a model with it trains (its state read by its output in
    teacher forcing as in a step), and the derived graphs carry its state by name and step and search
    as the PyTorch model does."""
    cfg = apply_overrides(tiny_config, {"model.features": "recency"})
    assert cfg.model.mechanism == "soft additive + recency"
    model = build_model(cfg.model, len(tiny_tokenizers[0]), len(tiny_tokenizers[1]))
    assert [f.name for f in model.decoder.features] == ["recency"] and "decoder.recency.shift" in model.state_dict()
    src, tgt = tiny_tokenizers[0].encode(["a cat", "the dog sleeps"]), tiny_tokenizers[1].encode(["猫", "狗睡觉"])
    batch = collate([source_ids(s) for s in src], [target_ids(t) for t in tgt])
    compute_loss(model, batch, 0.1).loss.backward()
    assert model.decoder.recency.shift.grad is not None and model.decoder.recency.shift.grad.abs().sum() > 0
    with torch.no_grad():  # teacher forcing gives the step's scores: the feature reads the same state both ways
        ctx = model.encode(batch.src, batch.src_lens)
        logits, _, _ = model.decoder.step(batch.tgt_in[:, 0], ctx.state, ctx.memory)
        out = model.decoder(batch.tgt_in, ctx.state, ctx.memory)
        first = {name: value[:, 0] for name, value in out.feature_states.items()}
        again = model.decoder.feature_output(model.decoder.generator(out.attentional[:, 0]), out.weights[:, 0],
                                             out.attentional[:, 0], first)
        torch.testing.assert_close(again, logits)

    path = checkpoint(tmp_path, tiny_tokenizers, **{"model.features": "recency"})
    torch_tr, fast = load_translator(path), load_translator(path, engine="onnx")
    graphs = fast.engine.members[0]
    assert graphs.states == ["hidden", "cell", "feed", "attended", "recency"] and graphs.memories == ["keys", "values", "mask"]
    listed = json.loads((tmp_path / "user-cache" / "graphs").glob("*/graphs.json").__next__().read_text())
    assert listed["state"][-1] == "recency"
    sources = fast.encode_sources(SENTENCES[:3])
    with torch.no_grad():
        ctx = torch_tr.model.encode(pad(sources), torch.tensor([len(ids) for ids in sources]))
        fast_ctx, tokens = graphs.encode(sources), [2, 2, 2]
        for rows, nxt in (([0, 0, 1, 2], [5, 9, 11, 4]), ([3, 0, 1, 1], [7, 7, 30, 3])):
            log_probs, ctx = torch_tr.model.step(torch.tensor(tokens), ctx)
            fast_log_probs, fast_ctx = graphs.step(np.array(tokens), fast_ctx)
            np.testing.assert_allclose(fast_log_probs, log_probs.numpy(), atol=1e-4)
            np.testing.assert_allclose(fast_ctx.state["recency"], ctx.state.features["recency"].numpy(), atol=1e-5)
            ctx, fast_ctx, tokens = ctx.select(torch.tensor(rows)), fast_ctx.select(np.array(rows)), nxt
    same_n_best(fast.translate_n_best(SENTENCES), torch_tr.translate_n_best(SENTENCES))


def test_registering_a_feature_twice_is_refused(recency: None) -> None:
    with pytest.raises(ConfigError, match="decoder feature 'recency' is registered twice"):
        registry.register_feature("recency", "tests.unit.toy_feature")


@pytest.mark.parametrize("overrides,message", [
    ({"model.features": "fertility"}, "unknown decoder feature 'fertility'; valid: lexical"),
    ({"model.features": "copy"}, "copy in model.copy_attention"),
    ({"model.features": "lexical,lexical"}, "names a feature twice"),
    ({"model.features": "lexical", "model.attention.kind": "none"}, "lexical needs attention weights over the source"),
    ({"model.features": "lexical", "model.attention.kind": "hard", "model.attention.hard.training": "marginal"},
     "mixture over positions"),
])
def test_the_configuration_names_what_is_wrong_with_a_feature(tiny_config: RunConfig, overrides: dict[str, object],
                                                              message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        apply_overrides(tiny_config, overrides)


def test_the_lexical_model_adds_the_attended_source_embeddings_to_the_output_layer() -> None:
    """Nguyen & Chiang 2018: scores + Wˡ(tanh(f) + f), f = Σₛ αₛ eₛ; one-hot attention passes one
    source word's embedding, and no attention (zero weights) adds nothing."""
    torch.manual_seed(0)
    lexical = LexicalModel(src_vocab=12, embedding_size=4, tgt_vocab=7)
    src = torch.tensor([[5, 6, 3], [7, 3, 0]])
    values = lexical.fixed_values(src)
    scores = torch.randn(2, 7)
    weights = torch.tensor([[0.0, 1.0, 0.0], [0.25, 0.75, 0.0]])
    out = lexical.output(scores, weights, torch.zeros(2, 8), values)
    e = lexical.embedding.weight
    f = torch.stack([e[6], 0.25 * e[7] + 0.75 * e[3]])
    torch.testing.assert_close(out, scores + (torch.tanh(f) + f) @ lexical.out.weight.T)
    torch.testing.assert_close(lexical.output(scores, torch.zeros(2, 3), torch.zeros(2, 8), values), scores)
    assert values["lexical_embeddings"][1, 2].abs().sum() == 0  # padding has no embedding
