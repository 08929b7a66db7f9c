"""Coverage (`translate.model.features.coverage`): the attention each source position has received is
observable in the decoder state, the coverage loss is zero exactly for a monotone one-to-one attention,
the coverage vector reaches the additive score, the loss enters training, and the configuration refuses
coverage where no scorer can take it."""

from __future__ import annotations

import pytest
import torch

from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.model import build_model
from translate.model.features.coverage import coverage_loss
from translate.study.presets import PRESETS

COVERAGE_PRESETS = [name for name, overrides in PRESETS.items() if "model.attention.coverage.kind" in overrides]


def test_the_coverage_presets_are_registered() -> None:
    assert {"additive+coverage", "additive+coverage-nn", "additive+coverage-loss",
            "self-attention+additive+coverage"} <= set(COVERAGE_PRESETS)


def test_coverage_loss_is_zero_for_monotone_attention_and_counts_attention_paid_twice() -> None:
    monotone = torch.eye(4).unsqueeze(0)  # target step t attends source position t only
    mask = torch.ones(1, 4, dtype=torch.bool)
    assert coverage_loss(monotone, mask).item() == 0.0
    again = torch.tensor([[[1.0, 0, 0], [0.5, 0.5, 0], [0, 0, 1.0]]])  # step 2 returns half-way to position 0
    assert coverage_loss(again, torch.ones(1, 3, dtype=torch.bool)).item() == pytest.approx(0.5)
    # sum_t sum_i min(a_ti, sum of earlier a_i): step 2 gives min(.3, .6) + min(.4, .4), step 3 min(.8, .9) + ...
    spread = torch.tensor([[[0.6, 0.4, 0.0], [0.3, 0.3, 0.4], [0.1, 0.1, 0.8]]])
    expected = (0.3 + 0.3 + 0.0) + (0.1 + 0.1 + 0.4)
    assert coverage_loss(spread, torch.ones(1, 3, dtype=torch.bool)).item() == pytest.approx(expected)
    padded = torch.cat([monotone, monotone], 1)  # the second pass over the source is padding: not counted
    assert coverage_loss(padded, torch.tensor([[True] * 4 + [False] * 4])).item() == 0.0


def _model(tiny_config: RunConfig, tokenizers: tuple[Tokenizer, Tokenizer], **overrides: object) -> torch.nn.Module:
    cfg = apply_overrides(tiny_config, dict(overrides))
    torch.manual_seed(0)
    return build_model(cfg.model, len(tokenizers[0]), len(tokenizers[1])).eval()


def _batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    src = torch.tensor([[5, 6, 7, 8, 3], [9, 10, 3, 0, 0]])
    return src, torch.tensor([5, 3]), torch.tensor([[2, 11, 12, 13], [2, 14, 15, 0]])


@pytest.mark.parametrize("preset", ["additive", "dot", "multihead-ln-scaled-dot", "hard-reinforce", *COVERAGE_PRESETS])
def test_the_state_holds_the_attention_each_source_position_received(
        preset: str, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """Step by step, state.attended is the sum of the weights returned so far: 0 on padding, and after t
    steps of normalised attention the real positions hold t in all."""
    model = _model(tiny_config, tiny_tokenizers, **{k: v for k, v in PRESETS[preset].items() if k.startswith("model.")},
                   **{"model.hidden_size": 16, "model.embedding_size": 16})
    src, lens, tgt = _batch()
    with torch.no_grad():
        ctx = model.encode(src, lens)
        assert ctx.state.attended.eq(0).all()
        total = torch.zeros(2, 5)
        for t in range(3):
            _, state, weights = model.decoder.step(tgt[:, t], ctx.state, ctx.memory)
            ctx = type(ctx)(state=state, memory=ctx.memory)
            total += weights
            torch.testing.assert_close(ctx.state.attended, total)
        assert ctx.state.attended[1, 3:].eq(0).all()
        torch.testing.assert_close(ctx.state.attended.sum(-1), torch.full((2,), 3.0))


def test_accumulated_coverage_is_the_attention_received_and_feeds_the_score(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    model = _model(tiny_config, tiny_tokenizers, **{"model.attention.coverage.kind": "accumulated"})
    src, lens, tgt = _batch()
    with torch.no_grad():
        ctx = model.encode(src, lens)
        for t in range(3):
            _, state, _ = model.decoder.step(tgt[:, t], ctx.state, ctx.memory)
            ctx = type(ctx)(state=state, memory=ctx.memory)
        torch.testing.assert_close(ctx.state.features["coverage"].squeeze(-1), ctx.state.attended)
        # the same query with another coverage: other weights (the coverage term enters the score)
        query = torch.randn(2, 16)
        attention = model.decoder.attention
        fresh = attention(query, ctx.memory, attention.coverage.initial(ctx.memory.mask)).weights
        covered = attention(query, ctx.memory, ctx.state.features["coverage"]).weights
        assert not torch.allclose(fresh, covered)
        torch.testing.assert_close(covered.sum(-1), torch.ones(2))


def test_neural_coverage_moves_with_each_step_and_trains(tiny_config: RunConfig,
                                                         tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    model = _model(tiny_config, tiny_tokenizers, **{"model.attention.coverage.kind": "neural",
                                                    "model.attention.coverage.size": 4}).train()
    src, lens, tgt = _batch()
    out = model(src, lens, tgt)
    out.attentional.sum().backward()
    coverage_params = {n: p for n, p in model.named_parameters() if ".coverage." in n}
    assert coverage_params and all(p.grad is not None and p.grad.abs().sum() > 0 for p in coverage_params.values())
    with torch.no_grad():
        ctx = model.eval().encode(src, lens)
        assert ctx.state.features["coverage"].shape == (2, 5, 4) and ctx.state.features["coverage"].eq(0).all()
        _, state, _ = model.decoder.step(tgt[:, 0], ctx.state, ctx.memory)
        assert state.features["coverage"].shape == (2, 5, 4) and not state.features["coverage"].eq(0).all()


def test_the_coverage_loss_enters_training_with_its_weight(tiny_config: RunConfig,
                                                           tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.data.batch import Batch
    from translate.training.loss import compute_loss

    src, lens, tgt = _batch()
    tgt_out = torch.cat([tgt[:, 1:], torch.tensor([[3], [0]])], 1)
    tgt_out[1, 2] = 3
    batch = Batch(src=src, src_lens=lens, tgt_in=tgt, tgt_out=tgt_out)
    plain = _model(tiny_config, tiny_tokenizers, **{"model.attention.coverage.kind": "accumulated"})
    weighted = _model(tiny_config, tiny_tokenizers, **{"model.attention.coverage.kind": "accumulated",
                                                       "model.attention.coverage.loss": 2.0})
    weighted.load_state_dict(plain.state_dict())
    with torch.no_grad():
        base, extra = compute_loss(plain, batch, 0.0), compute_loss(weighted, batch, 0.0)
        out = plain(src, lens, tgt)
        expected = 2.0 * coverage_loss(out.weights, tgt_out != 0).item() / base.tokens
    assert expected > 0
    assert extra.loss.item() - base.loss.item() == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize(("overrides", "key"), [
    ({"model.attention.scorer": "dot", "model.attention.coverage.kind": "accumulated"}, "model.attention.coverage.kind"),
    ({"model.attention.kind": "multihead", "model.attention.coverage.kind": "neural"}, "model.attention.coverage.kind"),
    ({"model.attention.kind": "hard", "model.attention.coverage.kind": "accumulated"}, "model.attention.coverage.kind"),
    ({"model.attention.kind": "none", "model.attention.coverage.loss": 1.0}, "model.attention.coverage.loss"),
    ({"model.attention.kind": "hard", "model.attention.coverage.loss": 1.0}, "model.attention.coverage.loss"),
    ({"model.attention.coverage.size": 0}, "model.attention.coverage.size"),
    ({"decode.coverage_penalty": -0.1}, "decode.coverage_penalty"),
])
def test_coverage_where_nothing_can_take_it_is_refused_naming_the_key(overrides: dict[str, object], key: str,
                                                                      tiny_config: RunConfig) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        apply_overrides(tiny_config, overrides)


def test_unused_coverage_is_not_stored_and_used_coverage_names_the_mechanism(tiny_config: RunConfig) -> None:
    assert "coverage" not in tiny_config.model.attention.relevant()
    covered = apply_overrides(tiny_config, {"model.attention.coverage.kind": "neural",
                                            "model.attention.coverage.loss": 0.5})
    assert covered.model.attention.relevant()["coverage"] == {"kind": "neural", "size": 10, "loss": 0.5}
    assert covered.model.mechanism == "soft additive + neural coverage + coverage loss 0.5"
