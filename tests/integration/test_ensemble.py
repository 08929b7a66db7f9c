"""Ensemble decoding: the mean of the members' log-probabilities, searched like one model."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from tests.conftest import TINY_DIR
from translate.checkpoint.store import load_checkpoint, save_checkpoint
from translate.cli.app import app
from translate.config.loading import apply_overrides
from translate.config.paths import with_members
from translate.config.schema import RunConfig
from translate.data.batch import pad
from translate.data.tokenizer import Tokenizer, train_tokenizer
from translate.errors import ConfigError
from translate.evaluation.evaluate import evaluate_checkpoint
from translate.inference.build import load_translator
from translate.inference.translator import Ensemble, TorchEngine, Translator
from translate.model import Seq2Seq, build_model
from translate.tokens import BOS_ID

SENTENCES = ["I like tea.", "Where is the school?", "Thank you.", "We are friends.", "It is sunny today."]
runner = CliRunner()


def model(cfg: RunConfig, tokenizers: tuple[Tokenizer, Tokenizer], seed: int, **overrides: object) -> Seq2Seq:
    torch.manual_seed(seed)
    return build_model(apply_overrides(cfg, overrides).model if overrides else cfg.model,
                       len(tokenizers[0]), len(tokenizers[1])).eval()


def saved(tmp: Path, name: str, cfg: RunConfig, tokenizers: tuple[Tokenizer, Tokenizer], seed: int,
          **overrides: object) -> Path:
    cfg = apply_overrides(cfg, overrides) if overrides else cfg
    save_checkpoint(tmp / name, cfg.artifact(), model(cfg, tokenizers, seed), *tokenizers, {"step": 1})
    return tmp / name


def test_a_step_is_the_mean_of_the_members_log_probabilities(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    members = [model(tiny_config, tiny_tokenizers, 0), model(tiny_config, tiny_tokenizers, 1, **{
        "model.attention.scorer": "dot", "model.rnn_type": "lstm"})]
    engine = TorchEngine(Ensemble(members).eval())
    sources = [[5, 6, 7, 2], [8, 9, 2]]
    src, lens = pad(sources), torch.tensor([4, 3])
    with torch.no_grad():
        ctx, _ = engine.encoded(sources, tiny_config.decode)
        alone = [m.encode(src, lens) for m in members]
        for next_tokens in ([BOS_ID, BOS_ID], [11, 12], [13, 3]):
            mixed, ctx = engine.step(np.array(next_tokens), ctx)
            steps = [m.step(torch.tensor(next_tokens), c) for m, c in zip(members, alone)]
            alone = [c for _, c in steps]
            expected = ((steps[0][0] + steps[1][0]) / 2).numpy()
            np.testing.assert_allclose(mixed, expected, atol=1e-6)
            assert not np.allclose(mixed, steps[0][0].numpy(), atol=1e-3)  # the second member counts


@pytest.mark.parametrize("beam", [1, 3])
def test_copies_of_one_model_translate_as_that_model(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer], beam: int) -> None:
    single = model(tiny_config, tiny_tokenizers, 0)
    decode = apply_overrides(tiny_config.decode, {"beam_size": beam, "n_best": beam})
    one = Translator(single, *tiny_tokenizers, decode).translate_n_best(SENTENCES)
    three = Translator(Ensemble([single, copy.deepcopy(single), copy.deepcopy(single)]).eval(), *tiny_tokenizers,
                       decode).translate_n_best(SENTENCES)
    assert [[t.text for t in n] for n in three] == [[t.text for t in n] for n in one]
    assert [[round(t.score, 4) for t in n] for n in three] == [[round(t.score, 4) for t in n] for n in one]


def test_an_ensemble_is_batch_invariant_and_differs_from_its_members(
        tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    members = [model(tiny_config, tiny_tokenizers, seed) for seed in (0, 1)]
    translator = Translator(Ensemble(members).eval(), *tiny_tokenizers, tiny_config.decode)
    together = translator.translate(SENTENCES)
    assert [translator.translate([s])[0] for s in SENTENCES] == together
    scores = [translator.translate_n_best([s])[0][0].score for s in SENTENCES[:2]]
    first = Translator(members[0], *tiny_tokenizers, tiny_config.decode)
    assert scores != [first.translate_n_best([s])[0][0].score for s in SENTENCES[:2]]


def test_members_must_share_direction_and_vocabularies(
        tmp_path: Path, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    a = saved(tmp_path, "a", tiny_config, tiny_tokenizers, 0)
    b = saved(tmp_path, "b", tiny_config, tiny_tokenizers, 1, **{"model.attention.scorer": "bilinear"})
    assert load_translator([a, b]).translate(["Thank you."])  # other attention: fine
    reverse = apply_overrides(tiny_config, {"data.direction": "zh-en"})
    c = saved(tmp_path, "c", reverse, tiny_tokenizers[::-1], 0)
    with pytest.raises(ConfigError, match=r"ensemble: .*/c translates zh-en but .*/a translates en-zh"):
        load_translator([a, c])
    from translate.data.readers import read_tsv

    ds, _ = read_tsv(TINY_DIR / "train.tsv")
    other_src = Tokenizer(train_tokenizer(ds["en"], "en", apply_overrides(tiny_config.tokenizer, {"en_vocab_size": 60})))
    d = tmp_path / "d"
    save_checkpoint(d, tiny_config.artifact(), model(tiny_config, (other_src, tiny_tokenizers[1]), 0), other_src,
                    tiny_tokenizers[1], {"step": 1})
    with pytest.raises(ConfigError, match=rf"ensemble: .*/d has another source vocabulary than .*/a \(60 vs {len(tiny_tokenizers[0])} pieces"):
        load_translator([a, d])


def test_the_cli_decodes_an_ensemble_in_text_file_and_evaluate(
        tmp_path: Path, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    a = saved(tmp_path, "a", tiny_config, tiny_tokenizers, 0)
    b = saved(tmp_path, "b", tiny_config, tiny_tokenizers, 1)
    expected = Translator.from_ensemble([load_checkpoint(a), load_checkpoint(b)]).translate(SENTENCES[:2])
    result = runner.invoke(app, ["text", "-m", str(a), "-m", str(b), *SENTENCES[:2]])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == expected
    (tmp_path / "in.txt").write_text("\n".join(SENTENCES[:2]) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["file", str(tmp_path / "in.txt"), "-m", str(a), "-m", str(b)])
    assert result.exit_code == 0 and result.stdout.splitlines() == expected
    for engine in ("onnx", "torch"):  # both engines decode ensembles, alike
        result = runner.invoke(app, ["text", "-m", str(a), "-m", str(b), "--engine", engine, *SENTENCES[:2]])
        assert result.exit_code == 0 and result.stdout.splitlines() == expected, result.output
    evaluation, written = evaluate_checkpoint([a, b], "dev", data_dir=str(TINY_DIR))
    alone, _ = evaluate_checkpoint(a, "dev", data_dir=str(TINY_DIR))
    assert written == [] and evaluation.hypotheses != alone.hypotheses
    result = runner.invoke(app, ["evaluate", "-m", str(a), "-m", str(b), "--data-dir", str(TINY_DIR)])
    assert result.exit_code == 0 and result.output.startswith(f"BLEU {evaluation.report.bleu:.2f} ")


def test_a_model_folder_ships_members_that_ensemble_decodes(
        tmp_path: Path, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    a = saved(tmp_path, "a", tiny_config, tiny_tokenizers, 0)
    b = saved(a / "members", "1", tiny_config, tiny_tokenizers, 1)
    c = saved(a / "members", "2", tiny_config, tiny_tokenizers, 2, **{"model.attention.scorer": "dot"})
    (a / "members" / "notes").mkdir()  # not a checkpoint: not a member
    assert with_members([a]) == [a, b, c]
    explicit = runner.invoke(app, ["text", "-m", str(a), "-m", str(b), "-m", str(c), *SENTENCES])
    shipped = runner.invoke(app, ["text", "-m", str(a), "--ensemble", *SENTENCES])
    assert shipped.exit_code == 0, shipped.output
    assert shipped.stdout == explicit.stdout
    assert shipped.stdout != runner.invoke(app, ["text", "-m", str(a), *SENTENCES]).stdout  # the members count
    (tmp_path / "in.txt").write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["file", str(tmp_path / "in.txt"), "-m", str(a), "--ensemble"]).stdout == explicit.stdout
    together, _ = evaluate_checkpoint([a, b, c], "dev", data_dir=str(TINY_DIR))
    result = runner.invoke(app, ["evaluate", "-m", str(a), "--ensemble", "--data-dir", str(TINY_DIR)])
    assert result.exit_code == 0 and result.output.startswith(f"BLEU {together.report.bleu:.2f} ")
    on_torch = runner.invoke(app, ["text", "-m", str(a), "--ensemble", "--engine", "torch", *SENTENCES])
    assert on_torch.exit_code == 0 and on_torch.stdout == explicit.stdout
    alone = runner.invoke(app, ["text", "-m", str(b), "--ensemble", *SENTENCES])
    assert alone.exit_code == 0 and alone.stdout.splitlines() == load_translator(b).translate(SENTENCES)
    assert f"{b} has no ensemble members" in alone.stderr and "decoded alone" in alone.stderr
