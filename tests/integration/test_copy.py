"""Copy attention (`translate.model.copy`, `translate.data.copying`): the mixture is a distribution over
V + S ids, repeats of a source-only piece add up, the gradients stay finite, the text of copied pieces,
and a tiny model that learns to copy names and then copies a letter its target vocabulary never held."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from translate.checkpoint.store import save_checkpoint
from translate.config.loading import apply_overrides, load_config
from translate.config.schema import RunConfig, TokenizerConfig
from translate.data.batch import collate
from translate.data.copying import copied_text
from translate.data.tokenizer import Tokenizer, source_ids, target_ids, train_tokenizer
from translate.errors import ConfigError
from translate.inference.build import load_translator
from translate.inference.translator import Translator
from translate.model import Seq2Seq, build_model
from translate.model.features.copy import CopySwitch, copy_table, spellings
from translate.tokens import EOS_ID, UNK_ID
from translate.training.loss import compute_loss, feature_targets


def test_copy_ids_map_shared_pieces_and_gather_repeats_of_a_source_only_piece() -> None:
    copy = CopySwitch(4, src_vocab=8, tgt_vocab=10)
    copy.set_table([0, 1, 2, 3, 7, -1, 9, -1])  # source ids 5 and 7 are source-only
    src = torch.tensor([[5, 4, 5, 7, 3], [6, 7, 3, 0, 0]])
    assert copy.copy_ids(src).tolist() == [[10, 7, 10, 13, 3], [9, 11, 3, 0, 0]]
    with pytest.raises(ValueError, match="maps 8 source ids"):
        copy.set_table([0, 1, 2, 3, 10, -1, 9, -1])  # 10 is no target id


def test_the_mixture_is_a_distribution_with_finite_gradients() -> None:
    torch.manual_seed(0)
    copy = CopySwitch(4, src_vocab=8, tgt_vocab=10)
    copy.set_table([0, 1, 2, 3, 7, -1, 9, -1])
    src = torch.tensor([[5, 4, 5, 7, 3], [6, 7, 3, 0, 0]])
    logits = torch.randn(2, 10, requires_grad=True)
    weights = torch.softmax(torch.randn(2, 5).masked_fill(src == 0, float("-inf")), dim=-1).requires_grad_()
    attentional = torch.randn(2, 4, requires_grad=True)
    log_p = copy.log_probs(logits, weights, attentional, copy.copy_ids(src))
    assert log_p.shape == (2, 15)
    assert torch.allclose(log_p.exp().sum(-1), torch.ones(2), atol=1e-6)
    gate = torch.sigmoid(copy.gate(attentional)).squeeze(-1)
    # the source-only piece 5 (positions 0 and 2) is column V + 0 and holds both positions' weight
    assert torch.allclose(log_p[0, 10].exp(), (1 - gate[0]) * (weights[0, 0] + weights[0, 2]))
    assert torch.isinf(log_p[0, 11]) and torch.isinf(log_p[1, 13])  # nothing copies there
    (-log_p[:, 3].sum() - log_p[:, :10].mean()).backward()
    assert all(t.grad is not None and torch.isfinite(t.grad).all() for t in (logits, weights, attentional))
    assert copy.decoder_input(torch.tensor([4, 10, 14])).tolist() == [4, UNK_ID, UNK_ID]


def _tokenizer(sentences: list[str], lang: str, byte_fallback: bool = False) -> Tokenizer:
    size = 300 if byte_fallback else 50  # the 256 byte pieces, then the characters
    cfg = TokenizerConfig(model_type="char", en_vocab_size=size, zh_vocab_size=size, byte_fallback=byte_fallback)
    return Tokenizer(train_tokenizer(sentences, lang, cfg))


def test_copy_table_and_the_text_of_copied_pieces() -> None:
    en = _tokenizer(["I saw Tom and 12 zebras.", "Bob saw Ann."], "en")
    zh = _tokenizer(["我看见了Tom和12只斑马。", "Bob看见了Ann。"], "zh")
    table = copy_table(en, zh, "zh")
    assert [zh.sp.IdToPiece(table[en.sp.PieceToId(p)]) for p in ("T", "1", "B")] == ["T", "1", "B"]
    assert table[en.sp.PieceToId("z")] == table[en.sp.PieceToId(".")] == -1  # the Chinese text has neither
    assert table[EOS_ID] == EOS_ID
    source = source_ids(en.encode(["zebra z"])[0])  # ▁ z e b r a ▁ z </s>
    vocab, z = len(zh), source.index(en.sp.PieceToId("z"))
    tokens = [zh.sp.PieceToId("我"), vocab + z, zh.sp.PieceToId("o"), vocab + z, vocab + z + 1]
    assert copied_text(tokens, source, en, zh, "zh") == "我zoze"
    to_en = copied_text([en.sp.PieceToId("▁"), en.sp.PieceToId("I"), len(en) + 1, len(en) + 2], [5, 6, 7],
                        zh, en, "en")
    assert to_en == f"I {zh.sp.IdToPiece(6)}{zh.sp.IdToPiece(7)}"  # a run of copies starts one word


def test_copy_attention_is_refused_without_attention_weights(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="model.copy_attention=True is invalid: needs attention weights .*kind=none"):
        load_config(None, {"model.copy_attention": True, "model.attention.kind": "none"})


def test_search_copies_source_only_pieces_through_the_extended_ids(tiny_config: RunConfig, tmp_path: Path) -> None:
    """A model whose switch always copies (p_gen ≈ 0): each step's distribution is the attention's, the one
    search ranks V + S ids, and the translation is text of the source, a letter the target vocabulary
    lacks included, through ids >= V."""
    src_tok = _tokenizer(["I saw a zebra.", "He likes the zoo.", "Bob saw Ann."], "en")
    tgt_tok = _tokenizer(["我看见了斑马。", "他喜欢动物园。", "Bob看见了Ann。"], "zh")
    cfg = apply_overrides(tiny_config, {"model.copy_attention": True})
    cfg = replace(cfg, decode=replace(cfg.decode, beam_size=2, copy_digits=False, max_len_a=0.0, max_len_b=4))
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok))
    assert model.decoder.copy is not None
    model.decoder.copy.set_table(copy_table(src_tok, tgt_tok, "zh"))
    with torch.no_grad():
        model.decoder.copy.gate.weight.zero_()
        model.decoder.copy.gate.bias.fill_(-30.0)
    translator = Translator(model.eval(), src_tok, tgt_tok, cfg.decode, "en", "zh")
    text = "zzzzz"  # under attention spread over the positions, "z" holds most of the mass
    source = source_ids(src_tok.encode([text])[0])
    [best] = translator.translate_n_best([text])[0]
    table, vocab = copy_table(src_tok, tgt_tok, "zh"), len(tgt_tok)
    copyable = {table[i] if table[i] >= 0 else vocab + source.index(i) for i in source}
    assert best.tokens and set(best.tokens) <= copyable  # every token is a copy of a source piece
    assert any(token >= vocab for token in best.tokens)  # some copy no target piece could spell
    pieces = [src_tok.sp.IdToPiece(source[t - vocab]) if t >= vocab else tgt_tok.sp.IdToPiece(t) for t in best.tokens]
    assert set(best.text) <= set(text) and "z" in "".join(pieces)
    assert best.text == copied_text(best.tokens, source, src_tok, tgt_tok, "zh")
    save_checkpoint(tmp_path / "ckpt", cfg.artifact(), model, src_tok, tgt_tok, {"step": 1})  # the tables travel
    loaded = load_translator(tmp_path / "ckpt")
    assert isinstance(loaded.model, Seq2Seq) and loaded.model.decoder.copy is not None
    assert torch.equal(loaded.model.decoder.copy.table, model.decoder.copy.table)
    assert loaded.translate_n_best([text], cfg.decode)[0][0].tokens == best.tokens
    fast = load_translator(tmp_path / "ckpt", engine="onnx")  # the graphs derived from it copy alike
    [fast_best] = fast.translate_n_best([text], cfg.decode)[0]
    assert fast_best.tokens == best.tokens and fast_best.text == best.text
    assert fast_best.score == pytest.approx(best.score, abs=1e-4)


def _pairs(rng: random.Random, count: int, letters: str) -> list[tuple[str, str]]:
    pairs = []
    for _ in range(count):
        name = "".join(rng.choice(letters) for _ in range(rng.randint(2, 4)))
        pairs.append(rng.choice([(f"I saw {name}.", f"我看见了{name}。"), (f"He likes {name}.", f"他喜欢{name}。")]))
    return pairs


@pytest.mark.slow
def test_a_tiny_model_learns_to_copy_a_piece_its_target_vocabulary_lacks(tiny_config: RunConfig) -> None:
    """Names of letters a-p, some with a "z": the target tokenizer never saw a "z" (it spells one in bytes),
    so the references' "z" becomes the copy id of the source's; the model translates names it never saw,
    their "z" copied through the extended vocabulary."""
    rng = random.Random(0)
    plain = _pairs(rng, 64, "abcdefghijklmnop")
    with_z = [(en, zh) for en, zh in _pairs(rng, 200, "abcdefgz") if "z" in en][:24]
    pairs = plain + with_z
    src_tok = _tokenizer([en for en, _ in pairs], "en", byte_fallback=True)
    tgt_tok = _tokenizer([zh for _, zh in plain], "zh", byte_fallback=True)
    table = copy_table(src_tok, tgt_tok, "zh")
    z = src_tok.sp.PieceToId("z")
    assert table[z] == -1 and spellings(src_tok, tgt_tok, table)[z] == [tgt_tok.sp.PieceToId("<0x7A>")]
    cfg = apply_overrides(tiny_config, {"model.embedding_size": 32, "model.hidden_size": 32, "model.copy_attention": True})
    cfg = replace(cfg, decode=replace(cfg.decode, beam_size=3, copy_digits=False))
    torch.manual_seed(0)
    model = build_model(cfg.model, len(src_tok), len(tgt_tok))
    assert model.decoder.copy is not None
    model.decoder.copy.set_table(table, spellings(src_tok, tgt_tok, table))
    batch = collate([source_ids(s) for s in src_tok.encode([en for en, _ in pairs])],
                    [target_ids(t) for t in tgt_tok.encode([zh for _, zh in pairs])])
    rewritten = feature_targets(model, batch)
    assert int((rewritten.tgt_out >= len(tgt_tok)).sum()) == len(with_z)  # each reference's first "z"
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(120):
        loss = compute_loss(model, batch, 0.0).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    translator = Translator(model.eval(), src_tok, tgt_tok, cfg.decode, "en", "zh")
    unseen = [(en, zh) for en, zh in _pairs(random.Random(1), 200, "abcdefgz") if "z" in en and en not in dict(pairs)][:10]
    results = [n_best[0] for n_best in translator.translate_n_best([en for en, _ in unseen])]
    right = [r for r, (_, zh) in zip(results, unseen) if r.text == zh]
    assert len(right) >= 8 and all(any(t >= len(tgt_tok) for t in r.tokens) for r in right)
