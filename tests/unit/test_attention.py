"""Every registered attention mechanism: shapes, normalisation, masking, gradients, special cases."""

from __future__ import annotations

import math
import typing
from pathlib import Path

import pytest
import torch

from translate.config.schema import (
    MULTIHEAD_SCORERS,
    AttentionConfig,
    HardAttentionConfig,
    MultiheadConfig,
    RunConfig,
    ScorerName,
)
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.model.attention import ATTENTION_KINDS, SCORERS, SelfAttentionLayer, build_attention
from translate.model.attention.scoring import AdditiveScorer, ScaledDotScorer
from translate.model.attention.soft import SoftAttention

D = 8


def variants() -> list[AttentionConfig]:
    out = []
    for kind in sorted(ATTENTION_KINDS):
        scorers = MULTIHEAD_SCORERS if kind == "multihead" else sorted(SCORERS) if kind != "none" else ["additive"]
        modes = ["plain", "key-value"] if kind in ("soft", "hard") else ["plain"]
        trainings = ["reinforce", "straight-through", "marginal"] if kind == "hard" else ["reinforce"]
        out += [AttentionConfig(kind=kind, scorer=s, mode=m, multihead=MultiheadConfig(heads=2),  # type: ignore[arg-type]
                                hard=HardAttentionConfig(training=t))  # type: ignore[arg-type]
                for s in scorers for m in modes for t in trainings]
    out.append(AttentionConfig(kind="hard", scorer="additive",
                               hard=HardAttentionConfig(reinforce_baseline="soft", soft_anneal_steps=10)))
    out.append(AttentionConfig(kind="multihead", scorer="additive", multihead=MultiheadConfig(heads=2, layer_norm=True)))
    return out


VARIANTS = variants()
IDS = [f"{c.kind}-{c.scorer}-{c.mode}" + (f"-{c.hard.training}" if c.kind == "hard" else "") for c in VARIANTS]


def inputs(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    states = torch.randn(3, 5, D, generator=g)
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] + [False] * 4])
    query = torch.randn(3, D, generator=g)
    return states, mask, query


def test_every_kind_and_scorer_is_covered() -> None:
    assert {c.kind for c in VARIANTS} == set(ATTENTION_KINDS)
    assert {c.scorer for c in VARIANTS} == set(SCORERS)


@pytest.mark.parametrize("cfg", VARIANTS, ids=IDS)
def test_shapes_normalisation_and_padding(cfg: AttentionConfig) -> None:
    torch.manual_seed(0)
    attention = build_attention(cfg, D, D).eval()
    states, mask, query = inputs()
    out = attention(query, attention.prepare(states, mask))
    assert out.context.shape == (3, D) and out.weights.shape == (3, 5)
    assert torch.all(out.weights[~mask] == 0)  # exactly zero on padding
    if cfg.kind != "none":
        assert torch.allclose(out.weights.sum(-1), torch.ones(3), atol=1e-6)
    if cfg.kind == "hard":  # argmax at inference: one-hot
        assert torch.all((out.weights == 0) | (out.weights == 1))
    # padding content cannot change anything
    noisy = states.clone()
    noisy[~mask] = 1e3
    again = attention(query, attention.prepare(noisy, mask))
    assert torch.allclose(out.context, again.context, atol=1e-5)
    assert torch.allclose(out.weights, again.weights, atol=1e-6)


@pytest.mark.parametrize("cfg", [c for c in VARIANTS if c.kind != "none"], ids=[i for i, c in zip(IDS, VARIANTS) if c.kind != "none"])
def test_gradients_reach_every_parameter_and_the_states(cfg: AttentionConfig) -> None:
    torch.manual_seed(0)
    attention = build_attention(cfg, D, D).train()
    states, mask, query = inputs()
    states.requires_grad_(True)
    out = attention(query, attention.prepare(states, mask))
    loss = out.context.pow(2).sum()
    if out.log_prob is not None and out.entropy is not None:  # REINFORCE path
        rewards = torch.randn(3, 1)
        loss = loss + attention.auxiliary_loss(out.log_prob.unsqueeze(1), out.entropy.unsqueeze(1), rewards,
                                               torch.ones(3, 1))
    loss.backward()
    assert states.grad is not None and states.grad.abs().sum() > 0
    for name, param in attention.named_parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0, name


def test_hard_attention_training_weights_are_one_hot_without_soft_mixing() -> None:
    for training in ("reinforce", "straight-through"):
        cfg = AttentionConfig(kind="hard", scorer="dot",
                              hard=HardAttentionConfig(training=training, soft_mix=0.0))  # type: ignore[arg-type]
        attention = build_attention(cfg, D, D).train()
        states, mask, query = inputs()
        out = attention(query, attention.prepare(states, mask))
        assert torch.allclose(out.weights.detach().sum(-1), torch.ones(3))
        assert torch.all((out.weights.detach() == 0) | (out.weights.detach() == 1))
        assert torch.all(out.weights.detach()[~mask] == 0)


def test_reinforce_gradient_flows_only_through_log_prob_to_the_scorer() -> None:
    cfg = AttentionConfig(kind="hard", scorer="bilinear", hard=HardAttentionConfig(soft_mix=0.0, entropy_weight=0.0))
    attention = build_attention(cfg, D, D).train()
    states, mask, query = inputs()
    states.requires_grad_(True)
    out = attention(query, attention.prepare(states, mask))
    assert out.log_prob is not None and out.entropy is not None
    loss = attention.auxiliary_loss(out.log_prob.unsqueeze(1), out.entropy.unsqueeze(1), torch.ones(3, 1), torch.ones(3, 1))
    loss.backward()
    scorer_weight = attention.scorer.weight  # type: ignore[union-attr]
    assert scorer_weight.grad is not None and scorer_weight.grad.abs().sum() > 0
    assert states.grad is not None and states.grad.abs().sum() > 0
    assert attention.baseline.item() != 0.0  # moving-average baseline moved towards the reward


def test_soft_baseline_is_the_expected_context_and_makes_the_advantage_per_token() -> None:
    torch.manual_seed(0)
    cfg = AttentionConfig(kind="hard", scorer="dot",
                          hard=HardAttentionConfig(soft_mix=0.0, entropy_weight=0.0, reinforce_baseline="soft"))
    attention = build_attention(cfg, D, D).train()
    states, mask, query = inputs()
    memory = attention.prepare(states, mask)
    out = attention(query, memory)
    probs = torch.softmax(attention.scorer(query, memory.keys).masked_fill(~mask, float("-inf")), -1)
    assert out.baseline_context is not None and not out.baseline_context.requires_grad
    assert torch.allclose(out.baseline_context, (probs.unsqueeze(1) @ states).squeeze(1), atol=1e-6)
    log_prob, entropy = out.log_prob.unsqueeze(1), out.entropy.unsqueeze(1)  # type: ignore[union-attr]
    rewards = torch.tensor([[-1.0], [-2.0], [-3.0]])
    # a reward equal to its baseline teaches nothing; the moving average is not used or moved
    same = attention.auxiliary_loss(log_prob, entropy, rewards, torch.ones(3, 1), baselines=rewards.clone())
    assert same.item() == 0.0 and attention.baseline.item() == 0.0
    better = attention.auxiliary_loss(log_prob, entropy, rewards, torch.ones(3, 1), baselines=rewards - 1)
    assert torch.isclose(better, -log_prob.mean())  # advantage +1 everywhere: raise the chosen log-probs
    attention.eval()
    assert attention(query, memory).baseline_context is None  # only while training


def test_soft_to_hard_curriculum_lowers_the_soft_mix_and_survives_a_checkpoint() -> None:
    cfg = AttentionConfig(kind="hard", scorer="dot", hard=HardAttentionConfig(soft_mix=0.2, soft_anneal_steps=4))
    attention = build_attention(cfg, D, D).train()
    states, mask, query = inputs()
    mixes = []
    for _ in range(6):
        mixes.append(round(attention.current_soft_mix(), 3))  # type: ignore[operator]
        out = attention(query, attention.prepare(states, mask))
        attention.auxiliary_loss(out.log_prob.unsqueeze(1), out.entropy.unsqueeze(1),  # type: ignore[union-attr]
                                 torch.zeros(3, 1), torch.ones(3, 1))
    assert mixes == [1.0, 0.8, 0.6, 0.4, 0.2, 0.2]
    assert "updates" in attention.state_dict()
    fresh = build_attention(cfg, D, D)
    fresh.load_state_dict(attention.state_dict())
    assert fresh.current_soft_mix() == 0.2  # type: ignore[operator]
    plain = build_attention(AttentionConfig(kind="hard", scorer="dot"), D, D)
    assert "updates" not in plain.state_dict()  # no curriculum: checkpoints keep their old keys


def test_dot_and_scaled_dot_differ_by_sqrt_d() -> None:
    states, mask, query = inputs()
    dot = build_attention(AttentionConfig(kind="soft", scorer="dot"), D, D)
    scaled = build_attention(AttentionConfig(kind="soft", scorer="scaled-dot"), D, D)
    s_dot = dot.scorer(query, dot.prepare(states, mask).keys)  # type: ignore[operator, union-attr]
    s_scaled = scaled.scorer(query, scaled.prepare(states, mask).keys)  # type: ignore[operator, union-attr]
    assert torch.allclose(s_dot, s_scaled * math.sqrt(D), atol=1e-5)


@pytest.mark.parametrize("scorer", ["scaled-dot", "additive"])
def test_multihead_with_one_head_is_single_head_key_value_attention(scorer: str) -> None:
    torch.manual_seed(0)
    multi = build_attention(AttentionConfig(kind="multihead", scorer=scorer, multihead=MultiheadConfig(heads=1)), D, D)
    single_scorer = ScaledDotScorer(D, D) if scorer == "scaled-dot" else AdditiveScorer(D, D)
    single = SoftAttention(single_scorer, D, key_value=True)
    with torch.no_grad():
        eye = torch.eye(D)
        multi.query_proj.weight.copy_(eye)  # type: ignore[union-attr]
        multi.out_proj.weight.copy_(eye)  # type: ignore[union-attr]
        assert single.key_proj is not None and single.value_proj is not None
        single.key_proj.weight.copy_(multi.key_proj.weight)  # type: ignore[union-attr]
        single.value_proj.weight.copy_(multi.value_proj.weight)  # type: ignore[union-attr]
        if scorer == "additive":
            assert isinstance(single_scorer, AdditiveScorer)
            single_scorer.key_layer.weight.copy_(eye)
            single_scorer.query_layer.weight.copy_(eye)
            single_scorer.v.copy_(multi.v[0])  # type: ignore[index]
    states, mask, query = inputs()
    a = multi(query, multi.prepare(states, mask))
    b = single(query, single.prepare(states, mask))
    assert torch.allclose(a.context, b.context, atol=1e-5)
    assert torch.allclose(a.weights, b.weights, atol=1e-6)


def test_self_attention_ignores_padding() -> None:
    torch.manual_seed(0)
    layer = SelfAttentionLayer(D, heads=2, dropout=0.0).eval()
    states, mask, _ = inputs()
    out, weights = layer(states, mask)
    noisy = states.clone()
    noisy[~mask] = -50.0
    out2, _ = layer(noisy, mask)
    assert torch.allclose(out, out2, atol=1e-5)
    assert torch.all(out[~mask] == 0)
    assert torch.all(weights.masked_select(~mask[:, None, None, :].expand_as(weights)) == 0)
    # a sentence alone gives the same result as inside a padded batch
    alone, _ = layer(states[1:2, :3], mask[1:2, :3])
    assert torch.allclose(alone, out[1:2, :3], atol=1e-5)


def test_config_choices_are_exactly_the_registry_keys() -> None:
    assert set(ATTENTION_KINDS) == {"hard", "multihead", "none", "soft"}
    assert set(typing.get_args(ScorerName)) == set(SCORERS)
    assert set(MULTIHEAD_SCORERS) < set(SCORERS)


def test_unknown_names_list_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="choose one of hard, multihead, none, soft"):
        AttentionConfig(kind="sparse")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="choose one of additive, bilinear, dot, scaled-dot"):
        AttentionConfig(scorer="mlp")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="not available with kind=multihead"):
        AttentionConfig(kind="multihead", scorer="bilinear")


def test_multihead_layer_norm_normalises_the_context_and_ignores_the_query_scale() -> None:
    torch.manual_seed(0)
    states, mask, query = inputs()
    normed = build_attention(AttentionConfig(kind="multihead", scorer="scaled-dot", multihead=MultiheadConfig(heads=2, layer_norm=True)), D, D)
    memory = normed.prepare(states, mask)
    out = normed(query, memory)
    assert torch.allclose(out.context.mean(-1), torch.zeros(3), atol=1e-5)
    assert torch.allclose(out.context.var(-1, unbiased=False), torch.ones(3), atol=1e-3)
    louder = normed(query * 7.0 + 0.0, memory)  # a layer-normalised query: its scale cannot matter
    assert torch.allclose(louder.weights, out.weights, atol=1e-5)
    plain = build_attention(AttentionConfig(kind="multihead", scorer="scaled-dot", multihead=MultiheadConfig(heads=2)), D, D)
    plain_memory = plain.prepare(states, mask)
    assert not torch.allclose(plain(query * 7.0, plain_memory).weights, plain(query, plain_memory).weights, atol=1e-3)


def test_a_new_kind_is_its_module_plus_one_registration(tmp_path: Path, tiny_config: RunConfig,
                                                         tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """tests/unit/toy_attention.py and one `register_attention`: the configuration accepts the kind, a model
    with it builds and translates, the study lists its preset (`translate compare --list`, --mechanisms)."""
    from typer.testing import CliRunner

    from translate.cli.app import app
    from translate.config import attention as registry
    from translate.config.loading import apply_overrides
    from translate.inference.translator import Translator
    from translate.model import build_model
    from translate.study.compare import parse_mechanisms
    from translate.study.presets import study_presets

    kinds = dict(registry.ATTENTION_KINDS)
    try:
        registry.register_attention("uniform", "tests.unit.toy_attention", presets={"uniform": {}})
        cfg = apply_overrides(tiny_config, study_presets()["uniform"])
        assert cfg.model.attention.kind == "uniform" and cfg.model.mechanism == "uniform additive"
        model = build_model(cfg.model, len(tiny_tokenizers[0]), len(tiny_tokenizers[1]))
        assert type(model.decoder.attention).__name__ == "UniformAttention"
        translator = Translator(model, *tiny_tokenizers, cfg.decode)
        assert len(translator.translate(["a cat", "the dog sleeps"])) == 2
        assert parse_mechanisms("uniform,additive") == ["uniform", "additive"]
        listed = CliRunner().invoke(app, ["compare", "--list"])
        assert listed.stdout.split()[-1] == "uniform"
        with pytest.raises(ConfigError, match="attention kind 'uniform' is registered twice"):
            registry.register_attention("uniform", "tests.unit.toy_attention")
    finally:
        registry.ATTENTION_KINDS.clear()
        registry.ATTENTION_KINDS.update(kinds)
    assert "uniform" not in study_presets()
    with pytest.raises(ConfigError, match="choose one of hard, multihead, none, soft"):
        AttentionConfig(kind="uniform")
