"""`translate evaluate` with decoding-time overrides (another attention on the same weights, a length
penalty grid) and `translate release` (an fp16 copy with graphs, scores and card; re-released unchanged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from typer.testing import CliRunner

from tests.conftest import TINY_DIR
from translate.checkpoint.store import decoded_as, load_checkpoint, save_checkpoint
from translate.cli.app import app
from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.data.batch import collate
from translate.data.tokenizer import Tokenizer, source_ids, target_ids
from translate.errors import CheckpointError
from translate.inference.build import load_translator
from translate.inference.translator import Translator
from translate.model import Seq2Seq, build_model

runner = CliRunner()


@pytest.fixture
def soft_checkpoint(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                    tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> Path:
    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 1})
    return tmp_path / "ckpt"


def test_a_soft_model_decoded_with_hard_attention_reads_its_most_attended_position(
        soft_checkpoint: Path, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    loaded = load_checkpoint(soft_checkpoint)
    twin = decoded_as(loaded, {"kind": "hard"})
    assert twin.artifact.model.attention.kind == "hard" and twin.artifact.model.mechanism.startswith("hard additive")
    src_tok, tgt_tok = tiny_tokenizers
    batch = collate([source_ids(ids) for ids in src_tok.encode(["I like tea very much.", "Hello."])],
                    [target_ids(ids) for ids in tgt_tok.encode(["我非常喜欢茶。", "你好。"])])
    with torch.no_grad():
        soft = loaded.model(batch.src, batch.src_lens, batch.tgt_in).weights
        hard = twin.model(batch.src, batch.src_lens, batch.tgt_in).weights
    # the first step's query is the same in both (later ones differ: input feeding reads the context)
    assert torch.equal(hard[:, 0], torch.nn.functional.one_hot(soft[:, 0].argmax(-1), soft.size(-1)).float())
    real = batch.tgt_out != 0
    assert torch.equal(hard[real].max(-1).values, torch.ones(int(real.sum())))  # one position at every step
    with pytest.raises(CheckpointError, match="do not fit model.attention kind=multihead"):
        decoded_as(loaded, {"kind": "multihead"})


def test_a_decoding_variant_keeps_the_checkpoints_languages(tmp_path: Path, tiny_config: RunConfig,
                                                            tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """A zh->en checkpoint's Chinese input is normalised (Simplified, full-width punctuation) in a variant too."""
    en_tok, zh_tok = tiny_tokenizers
    cfg = apply_overrides(tiny_config, {"data.direction": "zh-en"})
    torch.manual_seed(0)
    save_checkpoint(tmp_path / "zh-en", cfg.artifact(), build_model(cfg.model, len(zh_tok), len(en_tok)).eval(),
                    zh_tok, en_tok, {"step": 1})
    translator = Translator.from_loaded(decoded_as(load_checkpoint(tmp_path / "zh-en"), {"kind": "hard"}))
    assert (translator.src_lang, translator.tgt_lang) == ("zh", "en")
    raw = "我們喜歡茶,你呢?"  # Traditional characters, half-width punctuation
    assert translator.encode_sources([raw]) == [source_ids(ids) for ids in zh_tok.encode(["我们喜欢茶，你呢？"])]


def test_evaluate_decodes_with_overrides_and_tunes_the_length_penalty(soft_checkpoint: Path) -> None:
    base = ["evaluate", "--checkpoint", str(soft_checkpoint), "--data-dir", str(TINY_DIR), "--beam", "2"]
    result = runner.invoke(app, [*base, "--set", "model.attention.kind=hard"])
    assert result.exit_code == 0, result.output
    assert "BLEU" in result.output and "sentences 8" in result.output
    assert "dropped/repeated content: stutter " in result.output and "(references " in result.output
    assert "repeats: " in result.output and "unattended source pieces" in result.output
    refused = runner.invoke(app, [*base, "--set", "model.hidden_size=8"])
    assert refused.exit_code == 1 and "only model.attention.* " in refused.output
    moved = runner.invoke(app, [*base, "--set", "model.attention.heads=2"])
    assert moved.exit_code == 1 and "is now 'model.attention.multihead.heads'" in moved.output
    table = runner.invoke(app, ["evaluate", "--checkpoint", str(soft_checkpoint), "--data-dir", str(TINY_DIR),
                                "--length-penalty", "0", "--length-penalty", "2"])
    assert table.exit_code == 0, table.output
    rows = [line for line in table.output.splitlines() if line.strip()[:1].isdigit()]
    assert [row.split()[:2] for row in rows] == [["0", "0"], ["2", "0"]]  # beta: the model's own (off)
    assert sum("<- best BLEU" in row for row in rows) == 1
    grid = runner.invoke(app, ["evaluate", "--checkpoint", str(soft_checkpoint), "--data-dir", str(TINY_DIR),
                               "--length-penalty", "0.6", "--coverage-penalty", "0", "--coverage-penalty", "5"])
    assert grid.exit_code == 0, grid.output
    rows = [line.split() for line in grid.output.splitlines() if line.strip()[:1].isdigit()]
    assert [row[:2] for row in rows] == [["0.6", "0"], ["0.6", "5"]]
    refused = runner.invoke(app, ["evaluate", "--checkpoint", str(soft_checkpoint), "--data-dir", str(TINY_DIR),
                                  "--coverage-penalty", "-1"])
    assert refused.exit_code == 1 and "decode.coverage_penalty" in refused.output


@pytest.mark.slow
def test_release_writes_an_fp16_copy_with_graphs_scores_and_card_and_rereleases_unchanged(
        soft_checkpoint: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "released", tmp_path / "again"
    result = runner.invoke(app, ["release", str(soft_checkpoint), str(first), "--data-dir", str(TINY_DIR),
                                 "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert {p.name for p in first.iterdir()} == {"model.safetensors", "config.json", "meta.json", "src.spm.model",
                                                 "tgt.spm.model", "onnx", "MODEL_CARD.md"}
    weights = load_file(str(first / "model.safetensors"))
    assert all(t.dtype == torch.float16 for t in weights.values())
    meta = json.loads((first / "meta.json").read_text())
    assert set(meta["scores"]["test"]) == {"beam5", "greedy"} and meta["bleu_by_length"]["groups"]
    card = (first / "MODEL_CARD.md").read_text()
    assert "BLEU by source length" in card
    everyday = meta["everyday"]  # the checkout's out-of-domain set, with and without its glossary
    assert everyday["sentences"] == 318 and everyday["with_glossary"]["terms"] > 0
    assert "everyday text (`data/everyday`, 318 pairs" in card and "terms used" in card
    assert runner.invoke(app, ["release", str(first), str(second), "--data-dir", str(TINY_DIR),
                               "--threads", "1"]).exit_code == 0
    again = load_file(str(second / "model.safetensors"))
    assert weights.keys() == again.keys() and all(torch.equal(weights[k], again[k]) for k in weights)
    meta_again = json.loads((second / "meta.json").read_text())
    for label in ("beam5", "greedy"):
        assert meta_again["scores"]["test"][label]["bleu"] == meta["scores"]["test"][label]["bleu"]
    assert meta_again["bleu_by_length"] == meta["bleu_by_length"] and meta_again["training"] == meta["training"]
    ngrams = tmp_path / "ngrams"  # a decoding setting stored with the release, and told in its card
    assert runner.invoke(app, ["release", str(first), str(ngrams), "--data-dir", str(TINY_DIR), "--threads", "1",
                               "--block-ngrams", "2", "--keep-negation"]).exit_code == 0
    decode = json.loads((ngrams / "config.json").read_text())["decode"]
    assert decode["block_ngrams"] == 2 and decode["keep_negation"] is True
    told = (ngrams / "MODEL_CARD.md").read_text()
    assert "no n-gram of 2 pieces said twice" in told and "negation kept" in told
    assert "n-gram" not in card and "negation kept" not in card  # off: the card says nothing of them


@pytest.mark.slow
def test_a_copy_attention_model_releases_with_graphs_that_translate_as_its_pytorch_model(
        tmp_path: Path, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.model.features.copy import copy_table

    cfg = apply_overrides(tiny_config, {"model.copy_attention": True})
    torch.manual_seed(0)
    model = build_model(cfg.model, len(tiny_tokenizers[0]), len(tiny_tokenizers[1]))
    assert model.decoder.copy is not None
    model.decoder.copy.set_table(copy_table(*tiny_tokenizers, "zh"))
    save_checkpoint(tmp_path / "ckpt", cfg.artifact(), model.eval(), *tiny_tokenizers, {"step": 1})
    result = runner.invoke(app, ["release", str(tmp_path / "ckpt"), str(tmp_path / "released"),
                                 "--data-dir", str(TINY_DIR), "--threads", "1"])
    assert result.exit_code == 0, result.output
    released = tmp_path / "released"
    assert (released / "onnx" / "step.onnx").is_file() and "attention soft additive + copy" in (released / "MODEL_CARD.md").read_text()

    texts = ["a cat sleeps on the sofa", "zebra 2019 Qx"]
    fast, slow = (load_translator(released, engine=engine).translate_n_best(texts) for engine in ("onnx", "torch"))
    assert [[(t.text, t.tokens) for t in n_best] for n_best in fast] == [[(t.text, t.tokens) for t in n_best] for n_best in slow]


@pytest.mark.slow  # 5-9 s
def test_release_ships_members_with_the_ensembles_scores_and_rereleases_them(
        soft_checkpoint: Path, tmp_path: Path, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    torch.manual_seed(7)
    other = build_model(tiny_config.model, len(tiny_tokenizers[0]), len(tiny_tokenizers[1]))
    save_checkpoint(tmp_path / "other", tiny_config.artifact(), other, *tiny_tokenizers, {"step": 2})
    first, second = tmp_path / "released", tmp_path / "again"
    result = runner.invoke(app, ["release", str(soft_checkpoint), str(first), "--member", str(tmp_path / "other"),
                                 "--data-dir", str(TINY_DIR), "--threads", "1"])
    assert result.exit_code == 0, result.output
    member = first / "members" / "1"
    assert {p.name for p in member.iterdir()} == {"model.safetensors", "config.json", "meta.json", "src.spm.model",
                                                  "tgt.spm.model"}
    assert all(t.dtype == torch.float16 for t in load_file(str(member / "model.safetensors")).values())
    test = json.loads((first / "meta.json").read_text())["scores"]["test"]
    assert test["ensemble"]["models"] == 2 and test["ensemble"]["sentences"] == test["beam5"]["sentences"]
    ensemble = load_translator([first, member])
    from translate.data.corpus import load_eval_split
    from translate.evaluation.metrics import score
    from translate.inference.wrapping import with_glossaries

    sources, refs = load_eval_split(apply_overrides(tiny_config.data, {"data_dir": str(TINY_DIR)}), "test")
    hyps = with_glossaries(ensemble).translate(sources, apply_overrides(ensemble.decode, {"beam_size": 5}))
    assert test["ensemble"]["bleu"] == score(hyps, refs, "zh").bleu  # as `--ensemble` decodes it
    card = (first / "MODEL_CARD.md").read_text()
    assert "- test ensemble of 2 (this model and the members in members/, `--ensemble`" in card
    assert f"- ensemble member `members/1`: 2 updates, {tiny_config.model.mechanism}, hidden" in card  # a bare checkpoint: its step
    assert runner.invoke(app, ["release", str(first), str(second), "--data-dir", str(TINY_DIR),
                               "--threads", "1"]).exit_code == 0  # keeps the members it ships
    again = load_file(str(second / "members" / "1" / "model.safetensors"))
    assert all(torch.equal(t, again[k]) for k, t in load_file(str(member / "model.safetensors")).items())
    assert json.loads((second / "meta.json").read_text())["scores"]["test"]["ensemble"]["bleu"] == test["ensemble"]["bleu"]
    models = runner.invoke(app, ["models"], env={"TRANSLATE_MODELS": str(tmp_path), "COLUMNS": "300"})
    assert "(+1 ensemble members: --ensemble)" in models.output


def test_length_penalty_tuning_decodes_with_or_without_the_names_lexicon_as_asked(
        soft_checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from translate.evaluation.evaluate import evaluate_checkpoint, tune_penalties
    from translate.inference.glossary import Glossary, Term

    # a names lexicon the tiny vocabulary can spell: "Tea" (capitalised, as names match) -> 咖啡
    monkeypatch.setattr("translate.inference.glossary.names_lexicon",
                        lambda: Glossary([Term("Tea", "咖啡")], cased=True, normalized=True))
    data = tmp_path / "names"
    data.mkdir()
    (data / "dev.tsv").write_text("I like Tea.\t我喜欢咖啡。\nYou like tea.\t你喜欢茶。\n", encoding="utf-8")
    for lexicon in (True, False):
        [row] = tune_penalties(soft_checkpoint, [1.0], None, "dev", str(data), lexicon=lexicon)
        alone, _ = evaluate_checkpoint(soft_checkpoint, "dev", str(data), lexicon=lexicon)
        assert (row.report.bleu, row.report.chrf) == (alone.report.bleu, alone.report.chrf)
        assert ("咖啡" in alone.hypotheses[0]) == lexicon, alone.hypotheses


def test_decide_applies_the_release_rule_and_says_why_a_candidate_does_not_ship(soft_checkpoint: Path,
                                                                                tmp_path: Path) -> None:
    base = ["decide", "--candidate", str(soft_checkpoint), "--against", str(soft_checkpoint), "--data-dir",
            str(TINY_DIR), "--beam", "1"]
    same = runner.invoke(app, [*base, "--decision-dir", str(TINY_DIR), "-o", str(tmp_path / "verdict.json")])
    assert same.exit_code == 3, same.output  # the same model: nothing gained, it does not ship
    assert "decision split (8 sentences)" in same.output and "does not ship: not better on the decision split" in same.output
    record = json.loads((tmp_path / "verdict.json").read_text(encoding="utf-8"))
    assert record["ships"] is False and record["direction"] == "en-zh"
    assert record["candidate"]["decision"] == record["against"]["decision"] and len(record["candidate"]["test"][0]) == 8
    missing = runner.invoke(app, [*base, "--decision-dir", str(tmp_path)])
    assert missing.exit_code == 1 and f"no decision split at {tmp_path / 'test.tsv'}" in missing.output
    planned = runner.invoke(app, [*base, "--decision-dir", str(TINY_DIR), "--for", "stutter", "--for", "repeats",
                                  "-o", str(tmp_path / "planned.json")])
    assert planned.exit_code == 3 and "not better by the tests it is for (stutter, repeats)" in planned.output
    assert json.loads((tmp_path / "planned.json").read_text(encoding="utf-8"))["tests_for_better"] == ["stutter", "repeats"]
    unknown = runner.invoke(app, [*base, "--for", "fluency"])
    assert unknown.exit_code == 1 and "--for fluency: not a test of the rule; one of bleu, stutter" in unknown.output
