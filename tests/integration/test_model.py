"""The whole model: masking, batch invariance, save/load, overfitting, resumable training."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from tests.conftest import TINY_DIR
from translate.checkpoint.store import load_checkpoint, save_checkpoint
from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.data.batch import collate, pad
from translate.data.readers import read_tsv
from translate.data.tokenizer import Tokenizer, source_ids, target_ids
from translate.errors import ConfigError
from translate.inference.build import load_translator
from translate.inference.translator import Translator
from translate.model import Seq2Seq, build_model
from translate.study.presets import PRESETS
from translate.training.train import train

SENTENCES = ["I like tea.", "Where is the school?", "Thank you.", "Tom said \"hello\".", "We are friends.",
             "It is sunny today.", "I want to go home."]


def encode_pair(src_tok: Tokenizer, tgt_tok: Tokenizer, en: list[str], zh: list[str]):  # type: ignore[no-untyped-def]
    src = [source_ids(ids) for ids in src_tok.encode(en)]
    tgt = [target_ids(ids) for ids in tgt_tok.encode(zh)]
    return collate(src, tgt)


def test_padding_does_not_change_logits(tiny_model: Seq2Seq, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    src_tok, tgt_tok = tiny_tokenizers
    batch = encode_pair(src_tok, tgt_tok, ["I like tea.", "Where is the station?"], ["我喜欢茶。", "车站在哪里？"])
    together = tiny_model(batch.src, batch.src_lens, batch.tgt_in).attentional
    for row in range(2):
        n_src, n_tgt = int(batch.src_lens[row]), int((batch.tgt_out[row] != 0).sum())
        alone = tiny_model(batch.src[row:row + 1, :n_src], batch.src_lens[row:row + 1], batch.tgt_in[row:row + 1, :n_tgt]).attentional
        assert torch.allclose(together[row, :n_tgt], alone[0], atol=1e-5)


@pytest.mark.parametrize("kind", ["soft", "multihead", "hard", "none"])
@pytest.mark.parametrize("beam", [1, 4])
def test_translation_does_not_depend_on_batch_size(tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer],
                                                   kind: str, beam: int) -> None:
    cfg = apply_overrides(tiny_config, {"model.attention.kind": kind, "model.encoder_self_attention": True})
    torch.manual_seed(1)
    src_tok, tgt_tok = tiny_tokenizers
    translator = Translator(build_model(cfg.model, len(src_tok), len(tgt_tok)).eval(), src_tok, tgt_tok, cfg.decode)
    decode = dataclasses.replace(cfg.decode, beam_size=beam, max_len_b=6)
    one_by_one = [translator.translate_n_best([s], decode)[0][0] for s in SENTENCES]
    batched = translator.translate_n_best(SENTENCES, dataclasses.replace(decode, batch_size=64))
    assert [b[0].tokens for b in batched] == [o.tokens for o in one_by_one]
    assert [b[0].score for b in batched] == pytest.approx([o.score for o in one_by_one], abs=1e-4)


@pytest.mark.parametrize("mechanism", list(PRESETS))
def test_every_preset_survives_save_and_load(mechanism: str, tmp_path: Path, tiny_config: RunConfig,
                                             tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """Every `translate compare` preset's checkpoint loads through the safety checks with the same
    tensors (buffers too: the curriculum's update counter is an int64)."""
    cfg = apply_overrides(tiny_config, {k: v for k, v in PRESETS[mechanism].items()
                                        if not k.startswith(("model.hidden_size", "model.embedding_size"))})
    src_tok, tgt_tok = tiny_tokenizers
    model = build_model(cfg.model, len(src_tok), len(tgt_tok))
    save_checkpoint(tmp_path / "ckpt", cfg.artifact(), model, src_tok, tgt_tok, {"step": 1})
    loaded = load_checkpoint(tmp_path / "ckpt").model.state_dict()
    assert loaded.keys() == model.state_dict().keys()
    assert all(torch.equal(loaded[k], v) for k, v in model.state_dict().items())


def test_save_load_gives_identical_outputs(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                                           tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    src_tok, tgt_tok = tiny_tokenizers
    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), tiny_model, src_tok, tgt_tok, {"step": 3})
    loaded = load_checkpoint(tmp_path / "ckpt")
    assert loaded.artifact == tiny_config.artifact() and loaded.meta["step"] == 3
    batch = encode_pair(src_tok, tgt_tok, ["I like tea."], ["我喜欢茶。"])
    a = tiny_model(batch.src, batch.src_lens, batch.tgt_in).attentional
    b = loaded.model(batch.src, batch.src_lens, batch.tgt_in).attentional
    assert torch.equal(a, b)
    original = Translator(tiny_model, src_tok, tgt_tok, tiny_config.decode).translate(SENTENCES)
    assert load_translator(tmp_path / "ckpt").translate(SENTENCES) == original


def test_tiny_model_overfits_a_few_pairs(tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    cfg = apply_overrides(tiny_config, {"model.embedding_size": 32, "model.hidden_size": 32})
    ds, _ = read_tsv(TINY_DIR / "train.tsv")
    en, zh = list(ds["en"])[:8], list(ds["zh"])[:8]
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    batch = encode_pair(src_tok, tgt_tok, en, zh)
    losses = []
    for _ in range(150):
        out = model(batch.src, batch.src_lens, batch.tgt_in)
        logits = model.decoder.generator(out.attentional)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch.tgt_out, ignore_index=0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0]
    hyps = Translator(model.eval(), src_tok, tgt_tok, cfg.decode).translate(en)
    assert sum(h == r for h, r in zip(hyps, zh)) >= 7


def weights(run: Path) -> dict[str, torch.Tensor]:
    return load_file(str(run / "last" / "model.safetensors"))


def test_resume_is_bit_identical_to_one_run(tmp_path: Path, tiny_config: RunConfig) -> None:
    cfg = apply_overrides(tiny_config, {"model.dropout": 0.2, "train.validate_every": 10, "train.max_steps": 20,
                               "train.average_last": 0})
    straight = train(apply_overrides(cfg, {"name": "straight"}))
    assert straight.state.step == 20
    half = apply_overrides(cfg, {"name": "halves", "train.max_steps": 10})
    train(half)
    resumed = train(apply_overrides(half, {"train.max_steps": 20}), resume=True)
    assert resumed.state.step == 20
    a, b = weights(straight.run_dir), weights(resumed.run_dir)
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_same_seed_same_model_and_a_run_folder_is_not_overwritten(tmp_path: Path, tiny_config: RunConfig) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 10, "train.validate_every": 10})
    first = train(apply_overrides(cfg, {"name": "one"}))
    second = train(apply_overrides(cfg, {"name": "two"}))
    a, b = weights(first.run_dir), weights(second.run_dir)
    assert all(torch.equal(a[k], b[k]) for k in a)
    from translate.errors import TrainingError

    with pytest.raises(TrainingError, match="already holds a trained run"):
        train(apply_overrides(cfg, {"name": "one"}))


def test_training_writes_logs_and_best_and_average(tmp_path: Path, tiny_config: RunConfig) -> None:
    result = train(tiny_config)
    run = result.run_dir
    for name in ("config.yaml", "train.log", "metrics.jsonl", "train_summary.json"):
        assert (run / name).is_file(), name
    log = (run / "train.log").read_text()
    assert "tgt tok/s" in log and "validation at step 20" in log and "src: " in log and "average of 2" in log
    assert load_checkpoint(run).meta["dev_bleu"] == pytest.approx(result.best_bleu)
    assert pad([[1], [1, 2]]).tolist() == [[1, 0], [1, 2]]


@pytest.mark.parametrize(("amp", "autocast_on"), [("auto", False), ("bf16", True), ("off", False)])
def test_train_amp_setting_turns_bf16_autocast_on_for_the_forward_pass(
        tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch, amp: str, autocast_on: bool) -> None:
    """auto = bf16 on CUDA only: off on this CPU; bf16 forces it (the loss stays finite and float32)."""
    import translate.training.trainer as trainer_module

    seen: list[tuple[bool, torch.dtype]] = []
    real = trainer_module.compute_loss

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real(*args, **kwargs)
        seen.append((torch.is_autocast_enabled("cpu"), out.loss.dtype))
        return out

    monkeypatch.setattr(trainer_module, "compute_loss", recording)
    result = train(apply_overrides(tiny_config, {"name": f"amp-{amp}", "train.amp": amp, "train.max_steps": 3,
                                                 "train.validate_every": 3}))
    assert result.state.step == 3 and seen and all(on == autocast_on for on, _ in seen)
    assert all(dtype == torch.float32 for _, dtype in seen)
    assert not torch.is_autocast_enabled("cpu")  # validation and decoding run outside it


@pytest.mark.parametrize("rnn_type", ["gru", "lstm"])
def test_deeper_and_lstm_models_mask_padding_and_translate(tiny_config: RunConfig, rnn_type: str,
                                                           tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    cfg = apply_overrides(tiny_config, {"model.rnn_type": rnn_type, "model.encoder_layers": 2, "model.decoder_layers": 2,
                               "model.input_feeding": rnn_type == "gru"})
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok)).eval()
    batch = encode_pair(src_tok, tgt_tok, ["I like tea.", "Where is the station?"], ["我喜欢茶。", "车站在哪里？"])
    together = model(batch.src, batch.src_lens, batch.tgt_in).attentional
    n_src, n_tgt = int(batch.src_lens[0]), int((batch.tgt_out[0] != 0).sum())
    alone = model(batch.src[:1, :n_src], batch.src_lens[:1], batch.tgt_in[:1, :n_tgt]).attentional
    assert torch.allclose(together[0, :n_tgt], alone[0], atol=1e-5)
    translator = Translator(model, src_tok, tgt_tok, cfg.decode)
    assert [translator.translate([s])[0] for s in SENTENCES[:3]] == translator.translate(SENTENCES[:3])


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_translation_equals_cpu(tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(tiny_config.model, len(src_tok), len(tgt_tok)).eval()
    cpu = Translator(model, src_tok, tgt_tok, tiny_config.decode).translate(SENTENCES)
    gpu = Translator(model.to("cuda"), src_tok, tgt_tok, tiny_config.decode).translate(SENTENCES)
    assert gpu == cpu


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("extra", [{}, {"model.encoder_self_attention": True, "model.attention.kind": "multihead"}])
def test_cuda_bf16_training_learns_and_its_checkpoint_translates_the_same_on_cpu(
        tiny_config: RunConfig, extra: dict[str, object]) -> None:
    cfg = apply_overrides(tiny_config, {"device": "cuda", "train.amp": "bf16", "train.max_steps": 60, **extra})
    result = train(cfg)
    losses = [record["dev_loss"] for record in result.history if "tag" not in record]
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0]
    on_gpu = load_translator(result.run_dir, device="cuda").translate(SENTENCES)
    assert load_translator(result.run_dir, device="cpu").translate(SENTENCES) == on_gpu


@pytest.mark.parametrize("rnn_type", ["gru", "lstm"])
@pytest.mark.parametrize("kind", ["soft", "multihead", "hard", "none"])
def test_without_input_feeding_the_parallel_decoder_equals_the_step_loop(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer], rnn_type: str, kind: str) -> None:
    cfg = apply_overrides(tiny_config, {"model.input_feeding": False, "model.rnn_type": rnn_type,
                                        "model.decoder_layers": 2, "model.attention.kind": kind})
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok)).eval()
    batch = encode_pair(src_tok, tgt_tok, ["I like tea.", "Where is the station?"], ["我喜欢茶。", "车站在哪里？"])
    parallel = model(batch.src, batch.src_lens, batch.tgt_in)
    ctx = model.encode(batch.src, batch.src_lens)
    state, steps, weights = ctx.state, [], []
    for t in range(batch.tgt_in.size(1)):
        _, state, step_weights = model.decoder.step(batch.tgt_in[:, t], state, ctx.memory)
        steps.append(state.feed)
        weights.append(step_weights)
    assert torch.allclose(parallel.attentional, torch.stack(steps, 1), atol=1e-5)
    assert torch.allclose(parallel.weights, torch.stack(weights, 1), atol=1e-6)


@pytest.mark.parametrize("input_feeding", [True, False])
def test_soft_prediction_baseline_reaches_the_reinforce_loss(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer], input_feeding: bool) -> None:
    """Hard attention with reinforce_baseline=soft: every real target token gets the log-probability
    the expected context would have given it, and the loss differs from the moving-average one."""
    from translate.training.loss import _baselines, compute_loss

    cfg = apply_overrides(tiny_config, {"model.input_feeding": input_feeding, "model.attention.kind": "hard",
                                        "model.attention.hard.reinforce_baseline": "soft",
                                        "model.attention.hard.soft_mix": 0.0, "model.dropout": 0.0})
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok)).train()
    batch = encode_pair(src_tok, tgt_tok, ["I like tea.", "Where is the station?"], ["我喜欢茶。", "车站在哪里？"])
    out = model(batch.src, batch.src_lens, batch.tgt_in)
    assert out.baseline_attentional is not None and out.baseline_attentional.shape == out.attentional.shape
    assert not out.baseline_attentional.requires_grad
    mask = batch.tgt_out != 0
    baselines = _baselines(model, out, batch, mask)
    assert baselines is not None and bool((baselines[mask] < 0).all()) and bool((baselines[~mask] == 0).all())
    torch.manual_seed(1)
    loss = compute_loss(model, batch, 0.1).loss
    loss.backward()
    assert torch.isfinite(loss) and model.decoder.attention.baseline.item() == 0.0  # the moving average is unused


def test_mixture_log_probs_are_the_exact_marginal_over_positions(tiny_config: RunConfig,
                                                                 tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    decoder = build_model(tiny_config.model, len(src_tok), len(tgt_tok)).decoder
    states, weights = torch.randn(3, 5, tiny_config.model.hidden_size), torch.softmax(torch.randn(3, 5), -1)
    weights[2] = torch.tensor([0.0, 0.0, 1.0, 0.0, 0.0])
    mixed = decoder.mixture_log_probs(states, weights)  # (3, V)
    brute = torch.stack([sum(weights[n, i] * torch.softmax(decoder.generator(states[n, i]), -1) for i in range(5))
                         for n in range(3)]).log()
    assert torch.allclose(mixed, brute, atol=1e-5)
    assert torch.allclose(mixed.exp().sum(-1), torch.ones(3), atol=1e-5)
    assert torch.allclose(mixed[2], torch.log_softmax(decoder.generator(states[2, 2]), -1), atol=1e-5)  # one-hot α


@pytest.mark.parametrize("input_feeding", [True, False])
def test_marginal_hard_attention_trains_the_scorer_without_sampling(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer], input_feeding: bool) -> None:
    from translate.training.loss import compute_loss

    cfg = apply_overrides(tiny_config, {"model.input_feeding": input_feeding, "model.attention.kind": "hard",
                                        "model.attention.hard.training": "marginal", "model.dropout": 0.0,
                                        "model.embedding_dropout": 0.0})
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok)).train()
    batch = encode_pair(src_tok, tgt_tok, ["I like tea.", "Where is the station?"], ["我喜欢茶。", "车站在哪里？"])
    out = model(batch.src, batch.src_lens, batch.tgt_in)
    batch_size, steps = batch.tgt_in.shape
    assert out.mixture_states is not None
    assert out.mixture_states.shape == (batch_size, steps, batch.src.size(1), cfg.model.hidden_size)
    assert torch.allclose(out.weights.sum(-1), torch.ones(batch_size, steps), atol=1e-5)  # α, not one-hot
    # the loss is deterministic (nothing sampled) and reaches the scorer through α
    loss = compute_loss(model, batch, 0.1).loss
    assert torch.equal(loss, compute_loss(model, batch, 0.1).loss)
    loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.decoder.attention.scorer.parameters())
    # the step used by search gives the same mixture distribution as teacher forcing
    # (the step loop of search against teacher forcing, parallel or not)
    ctx = model.encode(batch.src, batch.src_lens)
    state = ctx.state
    for t in range(steps):
        logits, state, _ = model.decoder.step(batch.tgt_in[:, t], state, ctx.memory)
        expected = model.decoder.mixture_log_probs(out.mixture_states[:, t], out.weights[:, t])
        assert torch.allclose(logits, expected, atol=1e-4), t
    model.eval()  # inference: one position, the argmax
    assert model(batch.src, batch.src_lens, batch.tgt_in).mixture_states is None


def test_a_marginal_model_can_decode_with_the_mixture_it_was_trained_as(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """`model.attention.hard.marginal_decoding=mixture`: in eval mode each search step predicts
    Σᵢ αᵢ p(y | xᵢ), the training distribution (without dropout), instead of reading the argmax
    position; the default (argmax) model with the same weights reads one position."""
    base = {"model.attention.kind": "hard", "model.attention.hard.training": "marginal", "model.dropout": 0.0,
            "model.embedding_dropout": 0.0}
    cfg = apply_overrides(tiny_config, {**base, "model.attention.hard.marginal_decoding": "mixture"})
    src_tok, tgt_tok = tiny_tokenizers
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok)).train()
    batch = encode_pair(src_tok, tgt_tok, ["I like tea.", "Where is the station?"], ["我喜欢茶。", "车站在哪里？"])
    out = model(batch.src, batch.src_lens, batch.tgt_in)  # teacher forcing, training mode: the mixture
    assert out.mixture_states is not None
    model.eval()
    ctx = model.encode(batch.src, batch.src_lens)
    state = ctx.state
    for t in range(batch.tgt_in.size(1)):
        log_probs, state, weights = model.decoder.step(batch.tgt_in[:, t], state, ctx.memory)
        assert torch.allclose(weights, out.weights[:, t], atol=1e-5), t  # α, not one-hot
        assert torch.allclose(log_probs, model.decoder.mixture_log_probs(out.mixture_states[:, t], out.weights[:, t]),
                              atol=1e-4), t
    argmax = build_model(apply_overrides(tiny_config, base).model, len(src_tok), len(tgt_tok))
    argmax.load_state_dict(model.state_dict())
    argmax.eval()
    _, _, weights = argmax.decoder.step(batch.tgt_in[:, 0], argmax.encode(batch.src, batch.src_lens).state,
                                        ctx.memory)
    assert torch.equal(weights.max(-1).values, torch.ones(2))  # one position
    hyps = Translator(model, src_tok, tgt_tok, cfg.decode).translate(["I like tea.", "Where is the station?"])
    assert len(hyps) == 2 and all(isinstance(h, str) for h in hyps)
    with pytest.raises(ConfigError, match="model.attention.hard.marginal_decoding"):
        apply_overrides(tiny_config, {"model.attention.kind": "hard", "model.attention.hard.marginal_decoding": "mixture"})


def test_subword_sampling_trains_reproducibly_and_may_change_on_resume(tmp_path: Path, tiny_config: RunConfig) -> None:
    """data.subword_alpha: the same seed gives the same weights; the batches differ from the best segmentation's;
    a resumed run may switch sampling off (it does not move the data position)."""
    cfg = apply_overrides(tiny_config, {"train.max_steps": 10, "train.validate_every": 10, "train.average_last": 0})
    sampled = apply_overrides(cfg, {"data.subword_alpha": 0.2})
    a = weights(train(apply_overrides(sampled, {"name": "a"})).run_dir)
    b = weights(train(apply_overrides(sampled, {"name": "b"})).run_dir)
    plain = weights(train(apply_overrides(cfg, {"name": "plain"})).run_dir)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], plain[k]) for k in a)
    resumed = train(apply_overrides(cfg, {"name": "a", "train.max_steps": 12}), resume=True)
    assert resumed.state.step == 12
    assert "data.subword_alpha" in (resumed.run_dir / "train.log").read_text()


def test_a_token_budget_gives_every_batch_size_the_same_data(tmp_path: Path, tiny_config: RunConfig) -> None:
    """train.max_tokens stops a run once it has trained on that many target tokens, whatever its batch:
    a batch twice as large takes about half the updates, and no run overshoots by more than its last batch."""
    budget = 1_000
    results = {}
    for batch in (40, 80):
        cfg = apply_overrides(tiny_config, {"name": f"batch{batch}", "data.batch_tokens": batch, "train.max_tokens": budget, "train.max_steps": 0,
                                            "train.validate_every": 1_000, "train.average_last": 0})
        results[batch] = train(cfg)
    for batch, result in results.items():
        assert result.stop_reason == f"reached train.max_tokens={budget:,} target tokens"
        assert budget <= result.state.target_tokens < budget + batch
    small, large = results[40].state.step, results[80].state.step
    assert 1.5 <= small / large <= 2.5, (small, large)
