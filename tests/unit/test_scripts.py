"""Scripts: CC-CEDICT gloss parsing, the synthetic scale corpus, the argmax twin of a soft model, the study driver,
the search profile."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
import torch

from translate.config.schema import RunConfig
from translate.data.batch import collate
from translate.data.tokenizer import Tokenizer, source_ids, target_ids
from translate.inference import search
from translate.inference.translator import Translator
from translate.model import Seq2Seq
from translate.model.seq2seq import DecodingContext
from translate.study.compare import MECHANISMS

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CEDICT = """# CC-CEDICT
吃 吃 [chi1] /to eat/to consume/to eat at (a cafeteria etc)/to eradicate/
喫 吃 [chi1] /variant of 吃[chi1]/
環境 环境 [huan2 jing4] /environment/circumstances/surroundings/CL:個|个[ge4]/ambient/
北京 北京 [Bei3 jing1] /Beijing, capital of People's Republic of China/Peking/PRC government/
郑 郑 [Zheng4] /surname Zheng/
哈密瓜 哈密瓜 [ha1 mi4 gua1] /Hami melon (a variety of muskmelon) (Cucumis melo var. saccharinus)/
"""


def test_cedict_glosses_become_short_translations() -> None:
    make = script("make_dictionary_pairs")
    assert make.clean_gloss("to eat at (a cafeteria etc)") == "to eat at"
    assert make.clean_gloss("Beijing, capital of People's Republic of China") == "Beijing"
    for pointer in ("variant of 吃[chi1]", "CL:個|个[ge4]", "surname Zheng", "see 吃[chi1]", "a very long gloss of six words"):
        assert make.clean_gloss(pointer) is None, pointer
    pairs = list(make.parse_cedict(CEDICT.splitlines(), None, glosses=2))
    assert pairs == [("to eat", "吃"), ("to consume", "吃"), ("environment", "环境"), ("circumstances", "环境"),
                     ("Beijing", "北京"), ("Peking", "北京"), ("Hami melon", "哈密瓜")]
    assert list(make.parse_cedict(CEDICT.splitlines(), {"环境"}, glosses=1)) == [("environment", "环境")]


def test_synthetic_corpus_rows_survive_deduplication() -> None:
    make = script("make_synthetic_corpus")
    pairs = [(f"Sentence {i}.", f"句子{i}。") for i in range(500)]
    rows = list(make.variations(pairs, 3000, seed=0))
    assert len(rows) == 3000 and rows[:500] == pairs
    assert len(set(rows)) > 2990  # almost every changed copy is new
    assert rows == list(make.variations(pairs, 3000, seed=0))


def test_the_argmax_twin_of_a_soft_model_attends_to_its_most_attended_position(
        tiny_model: Seq2Seq, tiny_config: RunConfig, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    src_tok, tgt_tok = tiny_tokenizers
    twin = script("argmax_attention_eval").argmax_twin(tiny_model, tiny_config.model, len(src_tok), len(tgt_tok))
    src = [source_ids(ids) for ids in src_tok.encode(["I like tea very much.", "Hello."])]
    tgt = [target_ids(ids) for ids in tgt_tok.encode(["我非常喜欢茶。", "你好。"])]
    batch = collate(src, tgt)
    with torch.no_grad():
        soft = tiny_model.eval()(batch.src, batch.src_lens, batch.tgt_in).weights
        hard = twin(batch.src, batch.src_lens, batch.tgt_in).weights
    # the first step's query is the same in both (later ones differ: input feeding reads the context)
    assert torch.equal(hard[:, 0], torch.nn.functional.one_hot(soft[:, 0].argmax(-1), soft.size(-1)).float())
    real = batch.tgt_out != 0
    assert torch.equal(hard[real].max(-1).values, torch.ones(int(real.sum())))  # one position at every step
    assert not torch.equal(soft[real], hard[real])


def test_a_twin_model_translates_with_its_checkpoints_languages(tmp_path: Path, tiny_config: RunConfig,
                                                                 tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    """The evaluation scripts decode a variant of a loaded model through `Translator.from_loaded(loaded,
    variant)`: a zh->en checkpoint's Chinese input is normalised (Simplified, full-width punctuation)
    as `translate` does it. (Built with the bare constructor they scored zh->en on raw input.)"""
    from translate.checkpoint.store import load_checkpoint, save_checkpoint
    from translate.config.loading import apply_overrides
    from translate.model import build_model

    en_tok, zh_tok = tiny_tokenizers
    cfg = apply_overrides(tiny_config, {"data.direction": "zh-en"})
    torch.manual_seed(0)
    save_checkpoint(tmp_path / "zh-en", cfg.artifact(), build_model(cfg.model, len(zh_tok), len(en_tok)).eval(),
                    zh_tok, en_tok, {"step": 1})
    loaded = load_checkpoint(tmp_path / "zh-en")
    twin = script("argmax_attention_eval").argmax_twin(loaded.model, cfg.model, len(zh_tok), len(en_tok))
    translator = Translator.from_loaded(loaded, twin)
    assert translator.model is twin and (translator.src_lang, translator.tgt_lang) == ("zh", "en")
    raw = "我們喜歡茶,你呢?"  # Traditional characters, half-width punctuation
    assert translator.encode_sources([raw]) == [source_ids(ids) for ids in zh_tok.encode(["我们喜欢茶，你呢？"])]
    assert translator.encode_sources([raw]) != [source_ids(ids) for ids in zh_tok.encode([raw])]  # the normalisation matters here
    assert Translator.from_loaded(loaded).translate([raw]) == Translator.from_checkpoint(tmp_path / "zh-en").translate([raw])


def driver_first_pass() -> list[str]:
    """The presets of scripts/converged_study.sh's FIRST_PASS array, in order."""
    text = (SCRIPTS / "converged_study.sh").read_text(encoding="utf-8")
    return text.split("FIRST_PASS=(", 1)[1].split(")", 1)[0].split()


def test_the_study_driver_runs_every_preset_and_only_presets() -> None:
    """scripts/converged_study.sh lists each `translate compare` preset once in its first pass."""
    text = (SCRIPTS / "converged_study.sh").read_text(encoding="utf-8")
    assert sorted(driver_first_pass()) == sorted(MECHANISMS)
    defaults = [line.split(":-", 1)[1].rstrip("}") for line in text.splitlines() if line.startswith(("MULTIHEAD=", "HARD="))]
    assert len(defaults) == 2 and all(name in MECHANISMS for name in defaults)


def test_the_readme_study_table_shows_seeds_intervals_and_the_cap() -> None:
    """scripts/study_readme_table.py: one seed -> the bootstrap interval; several -> mean ± std and how
    many seeds a p-value pairs; the cap and the best row are marked; hard rows attend to one position."""
    def row(mechanism: str, seeds: int, steps: float, p_best: float | None, entropy: float | None) -> dict:
        return {"mechanism": mechanism, "seeds": seeds, "steps_mean": steps, "test_bleu_mean": 30.0 + seeds,
                "test_bleu_std": 0.25 if seeds > 1 else None, "test_bleu_ci95": 1.4, "test_chrf_mean": 27.0,
                "test_chrf_std": 0.5 if seeds > 1 else None, "p_vs_none": 0.2, "seeds_paired_vs_none": seeds,
                "p_vs_best": p_best, "seeds_paired_vs_best": seeds, "attention_entropy": entropy,
                "attention_argmax_share": 1.0 if entropy == 0 else 0.5, "train_tok_per_s": 5123.4}
    results = {"best": "additive", "rows": [row("additive", 3, 6000, None, 1.2), row("dot", 1, 4500, 0.01, 0.7),
                                            row("hard-reinforce", 1, 6000, 0.5, 0.0)]}
    lines = script("study_readme_table").table(results, cap=6000).splitlines()
    assert lines[2] == ("| additive | 3 | 6,000 (cap) | **33.00 ± 0.25** | 27.00 ± 0.50 | 0.200 (3 seeds) | (best) "
                        "| 1.20 | 0.50 | 5,123 |")
    assert lines[3] == "| dot | 1 | 4,500 | 31.00 (95 % CI ± 1.40) | 27.00 | 0.200 | **0.010** | 0.70 | 0.50 | 5,123 |"
    assert "| 0 (one position) | 1.00 |" in lines[4]


def test_the_study_driver_skips_finished_runs_passes_extra_arguments_and_survives_a_failure(tmp_path: Path) -> None:
    """scripts/converged_study.sh with a stand-in `translate` on PATH: a run with a committed
    compare.json is not started, COMPARE_ARGS reaches every call, and a failing run does not stop the plan."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPTS / "converged_study.sh", tmp_path / "scripts")
    finished = tmp_path / "docs" / "compare-converged-en-zh" / "runs" / "none-seed1"
    finished.mkdir(parents=True)
    (finished / "compare.json").write_text("{}", encoding="utf-8")
    calls = tmp_path / "calls.txt"
    stub = tmp_path / "bin" / "translate"
    stub.parent.mkdir()
    stub.write_text(f'#!/usr/bin/env bash\necho "$*" >> {calls}\n[[ "$*" != *"--mechanisms dot "* ]]\n', encoding="utf-8")
    stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}", "STAGE": "first-pass",
           "COMPARE_ARGS": "--set device=cuda --set train.amp=off"}
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "converged_study.sh")], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    lines = calls.read_text(encoding="utf-8").splitlines()
    mechanisms = [line.split("--mechanisms ")[1].split()[0] for line in lines]
    assert mechanisms == [name for name in driver_first_pass() if name != "none"]
    assert all(line.endswith("--set device=cuda --set train.amp=off") for line in lines)
    assert "dot seed 1 (en-zh) failed; going on" in done.stderr


def test_the_study_driver_stops_at_once_without_the_translate_command(tmp_path: Path) -> None:
    """Without `translate` on PATH (environment not activated) the driver says so and stops,
    instead of reporting every run of the plan as failed."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPTS / "converged_study.sh", tmp_path / "scripts")
    bin_dir = tmp_path / "bin"  # only what the driver needs besides bash's builtins
    bin_dir.mkdir()
    dirname = shutil.which("dirname")
    assert dirname is not None
    (bin_dir / "dirname").symlink_to(dirname)
    done = subprocess.run([shutil.which("bash") or "/bin/bash", str(tmp_path / "scripts" / "converged_study.sh")],
                          env={"PATH": str(bin_dir)}, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "no `translate` command on PATH" in done.stderr
    assert "failed; going on" not in done.stderr


def test_the_search_profile_labels_every_region_and_restores_what_it_wrapped(
        monkeypatch: pytest.MonkeyPatch, tiny_model: Seq2Seq, tiny_tokenizers: tuple[Tokenizer, Tokenizer],
        tiny_config: RunConfig) -> None:
    """scripts/profile_search.py on a tiny model with beam 3: the search's phases and the model's
    parts all show up as profiler regions, the output layer inside the step, and afterwards search,
    the decoding context and the model are the unwrapped originals (same translations)."""
    monkeypatch.syspath_prepend(str(SCRIPTS))  # the script imports bench's PhaseHooks
    profile = script("profile_search")
    translator = Translator(tiny_model, *tiny_tokenizers, tiny_config.decode)
    sources = ["I like tea.", "Where is the station?", "He runs.", "Thank you very much."] * 20
    originals = (search._top_candidates, search._still_open, DecodingContext.select, DecodingContext.reorder)
    before = translator.translate(sources, tiny_config.decode)
    figures = profile.profile_search(translator, sources, tiny_config.decode)
    regions = figures["regions_ms"]
    for name in ("encoder", "decoder.attention", "decoder.combine", "decoder.generator (output layer)",
                 "decoder.rnn0", "search._top_candidates", "search._advance", "context.reorder"):
        assert regions[name] > 0, name
    assert regions["decoder.generator (output layer)"] < regions["model.step (decoder + log-softmax)"]
    assert 0 < figures["matrix_products_share"] < 1
    assert (search._top_candidates, search._still_open, DecodingContext.select, DecodingContext.reorder) == originals
    assert "step" not in vars(tiny_model) and not tiny_model.encoder._forward_hooks
    assert translator.translate(sources, tiny_config.decode) == before


def test_the_engine_benchmark_compares_both_engines_on_the_test_split(tmp_path: Path, tiny_model: Seq2Seq,
                                                                      tiny_config: RunConfig,
                                                                      tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.checkpoint.store import save_checkpoint

    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 1})
    figures = script("bench_engines").test_split(str(tmp_path / "ckpt"), 6)
    assert figures["sentences"] == 6
    for label in ("beam5", "greedy"):
        row = figures[label]
        assert row["identical_translations"] == 6
        assert row["onnx"]["bleu"] == row["torch"]["bleu"] and row["onnx"]["sentences_per_s"] > 0
