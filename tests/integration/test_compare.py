"""`translate compare` on the tiny corpus: tables, plots, resumption; the CJK font for heatmaps."""

from __future__ import annotations

import csv
import dataclasses
import json
import logging
import shutil
import subprocess
import typing
from pathlib import Path

import pytest
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

from translate.cli.study import compare as compare_command
from translate.config.attention import ATTENTION_KINDS
from translate.config.loading import apply_overrides, load_config
from translate.config.schema import RunConfig
from translate.data.corpus import load_eval_split
from translate.errors import ConfigError
from translate.study import report as compare_report
from translate.study.compare import compare, parse_mechanisms, rebuild_report
from translate.study.plots import cjk_font
from translate.study.presets import PRESETS

REPO = Path(__file__).resolve().parents[2]


def test_presets_cover_every_attention_kind() -> None:
    kinds = {overrides["model.attention.kind"] for overrides in PRESETS.values()}
    assert kinds == set(ATTENTION_KINDS)
    assert any(o.get("model.encoder_self_attention") for o in PRESETS.values())
    option = typing.get_type_hints(compare_command, include_extras=True)["mechanisms"].__metadata__[0]
    help_text = option.help  # the CLI help names every preset, generated from the registry
    assert all(name in help_text for name in PRESETS)
    for overrides in PRESETS.values():  # every preset is a valid configuration
        apply_overrides(RunConfig(), overrides)
    with pytest.raises(ConfigError, match="valid: none, additive"):
        parse_mechanisms("additive,luong")


def test_heatmap_font_draws_han_characters() -> None:
    family = cjk_font()
    assert family is not None
    path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    font = FT2Font(path)
    assert all(font.get_char_index(ord(ch)) != 0 for ch in "我喜欢茶。你好？")


def test_a_run_says_which_cpu_it_was_trained_on_and_a_retrain_elsewhere_is_told_why_it_may_differ(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from translate import machine
    from translate.study import verify as study_verify

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD  EPYC 9R14\n", encoding="utf-8")
    assert machine.cpu_model(cpuinfo) == "AMD EPYC 9R14"
    assert machine.cpu_model(tmp_path / "absent") != ""  # the platform's name instead
    assert machine.describe().startswith(f"{machine.cpu_model()}, ")
    monkeypatch.setattr(study_verify, "cpu_model", lambda: "AMD EPYC 9R14")
    committed = compare_report.RunFigures(mechanism="dot", seed=2, parameters=1, steps=1, train_tokens_per_second=1.0,
                                          decode_sentences_per_second=1.0, dev_bleu=1.0, test_bleu=1.0, test_chrf=1.0,
                                          attention_entropy=None, curve=[])
    assert study_verify.other_cpu(committed) == ""  # a run older than the record: nothing to say
    same = dataclasses.replace(committed, machine="AMD EPYC 9R14, 2 cores, 2 threads, torch 2.13.0+cpu")
    assert study_verify.other_cpu(same) == ""
    other = dataclasses.replace(committed, machine="Intel(R) Xeon(R) Platinum 8488C, 2 cores, 2 threads, torch 2.13.0")
    assert study_verify.other_cpu(other) == (
        "; it was trained on Intel(R) Xeon(R) Platinum 8488C and this machine has AMD EPYC 9R14: another CPU model "
        "rounds some float sums otherwise, so verify it on the CPU model it was trained on")


def test_the_committed_studies_declare_pairs_of_presets(tmp_path: Path) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    for study in ("compare-converged-en-zh", "compare-converged-zh-en"):
        pairs = compare_report.read_questions(docs / study)
        assert len(pairs) > 20 and all(a in PRESETS and b in PRESETS for a, b, _ in pairs)
    assert compare_report.read_questions(tmp_path) == []  # a study without the file asks nothing
    (tmp_path / compare_report.QUESTIONS_FILE).write_text("# a comment\n\nadditive\tdot\tscoring\nadditive dot\n",
                                                          encoding="utf-8")
    with pytest.raises(ConfigError, match=r"questions.tsv:4: expected mechanism A<TAB>mechanism B<TAB>what"):
        compare_report.read_questions(tmp_path)


@pytest.mark.slow
def test_compare_writes_tables_plots_and_resumes(tmp_path: Path, tiny_config: RunConfig,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 10, "train.validate_every": 5, "decode.beam_size": 2})
    out, work = tmp_path / "cmp", tmp_path / "work"
    compare(cfg, ["none", "additive", "multihead"], [1, 2], out, work)
    for name in ("results.md", "results.csv", "results.json", "bleu.png", "dev_bleu_curves.png", "heatmaps.png",
                 "bleu_by_length.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    rows = list(csv.DictReader((out / "results.csv").read_text(encoding="utf-8").splitlines()))
    assert [r["mechanism"] for r in rows] == ["none", "additive", "multihead"]
    assert all(int(r["steps_mean"]) == 10 and r["seeds"] == "2" and r["test_bleu_std"] != "" for r in rows)
    best = json.loads((out / "results.json").read_text(encoding="utf-8"))["best"]
    for row in rows:
        assert (row["p_vs_none"] == "") == (row["mechanism"] == "none")
        assert (row["p_vs_best"] == "") == (row["mechanism"] == best)
        assert row["seeds_paired_vs_none"] == ("" if row["mechanism"] == "none" else "2")  # paired over both seeds
    assert rows[0]["attention_entropy"] == "" and float(rows[1]["attention_entropy"]) > 0
    assert 0 < float(rows[1]["attention_argmax_share"]) <= 1
    markdown = (out / "results.md").read_text(encoding="utf-8")
    assert "| additive † |" in markdown and "bs:1000" in markdown  # † : stopped by the update cap, not by patience
    # the procedure was fixed before the first run, and the report prints its hash
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    assert plan["before_first_run"] and plan["plan"]["mechanisms"] == ["none", "additive", "multihead"]
    assert plan["plan"]["seeds"] == [1, 2] and plan["plan"]["budget"]["max_steps"] == 10 and not plan["deviations"]
    assert f"`plan.json` sha256 `{plan['hash']}`" in markdown and "before the first run" in markdown
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["plan_hash"] == plan["hash"]
    # BLEU by source length: every test sentence in one group, one value per group for each mechanism
    by_length = json.loads((out / "results.json").read_text(encoding="utf-8"))["bleu_by_length"]
    assert by_length["unit"] == "words" and sum(g["sentences"] for g in by_length["groups"]) == len(
        load_eval_split(cfg.data, "test")[0])
    assert list(by_length["bleu"]) == ["none", "additive", "multihead"]
    assert all(len(v) == len(by_length["groups"]) and all(0 <= b <= 100 for b in v) for v in by_length["bleu"].values())
    assert "Test BLEU by source length" in markdown
    # each run's small results sit under out/runs/ (no weights); the weights stay in the work folder
    kept = out / "runs" / "additive-seed1"
    assert {p.name for p in kept.iterdir()} >= {"compare.json", "test.hyp.txt", "dev.hyp.txt", "train_summary.json",
                                                 "attention.json"}
    assert not list(out.rglob("*.safetensors")) and list((work / "additive-seed1").rglob("*.safetensors"))
    attention = json.loads((kept / "attention.json").read_text(encoding="utf-8"))
    assert attention and all(len(r["weights"]) == len(r["target_pieces"]) for r in attention)
    assert all(abs(sum(row) - 1) < 0.01 for r in attention for row in r["weights"])
    assert not (out / "runs" / "none-seed1" / "attention.json").exists()
    # resuming on a machine without the weights: the committed results are enough
    shutil.rmtree(work)
    stamp = (kept / "compare.json").stat().st_mtime_ns
    compare(cfg, ["none", "additive", "multihead"], [1, 2], out, work)
    assert (kept / "compare.json").stat().st_mtime_ns == stamp and not work.exists()
    assert list(csv.DictReader((out / "results.csv").read_text(encoding="utf-8").splitlines())) == rows
    # the tables can be rebuilt from the committed results alone (`translate compare --report-only`)
    (out / "results.csv").unlink()
    rebuild_report(cfg, out)
    assert list(csv.DictReader((out / "results.csv").read_text(encoding="utf-8").splitlines())) == rows
    # a later command for one mechanism keeps the finished runs of the others in the tables; its departure
    # from the plan is recorded with its time and reason, and the report lists it
    compare(cfg, ["additive"], [1], out, work, deviate="one more look at additive")
    assert list(csv.DictReader((out / "results.csv").read_text(encoding="utf-8").splitlines())) == rows
    deviation = json.loads((out / "plan.json").read_text(encoding="utf-8"))["deviations"][0]
    assert deviation["changed"] == ["mechanisms", "seeds"] and deviation["reason"] == "one more look at additive"
    assert deviation["was"]["seeds"] == [1, 2] and deviation["now"]["seeds"] == [1] and deviation["at"].endswith("Z")
    assert "deviation at " in (out / "results.md").read_text(encoding="utf-8")
    # pairs the study asks about: reported once both sides have finished runs, paired over common seeds
    (out / compare_report.QUESTIONS_FILE).write_text("multihead\tadditive\theads\nadditive\tdot\tabsent\n", encoding="utf-8")
    rebuild_report(cfg, out)
    pairs = json.loads((out / "results.json").read_text(encoding="utf-8"))["pairs"]
    assert [(p["a"], p["b"], p["seeds"]) for p in pairs] == [("multihead", "additive", [1, 2])]
    means = {r["mechanism"]: float(r["test_bleu_mean"]) for r in rows}
    assert abs(pairs[0]["bleu_a"] - means["multihead"]) < 0.01 and abs(pairs[0]["bleu_b"] - means["additive"]) < 0.01
    assert "| multihead † | additive † | heads | 1, 2 |" in (out / "results.md").read_text(encoding="utf-8")
    # a run of another model size (the √d check at width 512) is never the "best" reference, however high
    wide = out / "runs" / "dot-h512-seed1"
    shutil.copytree(out / "runs" / "additive-seed1", wide)
    record = json.loads((wide / "compare.json").read_text(encoding="utf-8"))
    (wide / "compare.json").write_text(json.dumps({**record, "mechanism": "dot-h512", "test_bleu": 99.0}), encoding="utf-8")
    rebuild_report(cfg, out)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert "dot-h512" in [r["mechanism"] for r in results["rows"]] and results["best"] == best != "dot-h512"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.mark.slow
def test_a_committed_study_rebuilds_its_report_from_a_fresh_clone(tmp_path: Path, tiny_config: RunConfig,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    """The repository's .gitignore keeps every per-run result file of a study under docs/; a clone rebuilds
    the same tables; without the hypotheses the figures that need them come from the committed results.json."""
    cfg = apply_overrides(tiny_config, {"train.max_steps": 6, "train.validate_every": 3, "decode.beam_size": 1})
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    shutil.copy(REPO / ".gitignore", repo / ".gitignore")
    study = repo / "docs" / "study"
    compare(cfg, ["none", "additive"], [1], study, tmp_path / "work")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "study")
    _git(tmp_path, "clone", "-q", str(repo), "clone")
    cloned = tmp_path / "clone" / "docs" / "study"
    assert {p.name for p in (cloned / "runs" / "additive-seed1").iterdir()} >= {"compare.json", "test.hyp.txt",
                                                                                 "attention.json"}
    expected = {name: (study / name).read_text(encoding="utf-8") for name in ("results.md", "results.json")}
    (cloned / "results.md").unlink()
    (cloned / "heatmaps.png").unlink()
    rebuild_report(cfg, cloned)
    assert {name: (cloned / name).read_text(encoding="utf-8") for name in expected} == expected
    assert (cloned / "heatmaps.png").is_file()
    # a mechanism's attention matrices not at hand: the complete figure stays, and the log names the run
    drawn = (cloned / "heatmaps.png").read_bytes()
    attention = cloned / "runs" / "additive-seed1" / "attention.json"
    attention.rename(tmp_path / "attention.json")
    with caplog.at_level(logging.WARNING, logger="translate.study.report"):
        rebuild_report(cfg, cloned)
    assert (cloned / "heatmaps.png").read_bytes() == drawn
    assert "heatmaps.png not redrawn: attention.json missing" in caplog.text and "additive-seed1" in caplog.text
    (tmp_path / "attention.json").rename(attention)
    # hypotheses gone (a study committed before they were kept): intervals and p-values carried over
    additive = cloned / "runs" / "additive-seed1"
    hypotheses = (additive / "test.hyp.txt").read_bytes()
    for hyp in cloned.glob("runs/*/test.hyp.txt"):
        hyp.unlink()
    rebuild_report(cfg, cloned)
    assert (cloned / "results.md").read_text(encoding="utf-8") == expected["results.md"]
    # a run measured again (other scores, its own hypotheses): no carried p-values for it, the others' stay
    before = json.loads(expected["results.json"])
    record = json.loads((additive / "compare.json").read_text(encoding="utf-8"))
    (additive / "compare.json").write_text(json.dumps({**record, "test_bleu": record["test_bleu"] + 1}), encoding="utf-8")
    (additive / "test.hyp.txt").write_bytes(hypotheses)
    for _ in range(2):  # and the next rebuild does not bring the old p-values back
        rebuild_report(cfg, cloned)
        after = json.loads((cloned / "results.json").read_text(encoding="utf-8"))
        rows = {r["mechanism"]: r for r in after["rows"]}
        assert rows["additive"]["test_bleu_mean"] == round(record["test_bleu"] + 1, 2)
        assert rows["additive"]["p_vs_none"] is None and rows["additive"]["test_bleu_ci95"] is None
        assert rows["none"] == before["rows"][0] and after["bleu_by_length"] == before["bleu_by_length"]
    (additive / "compare.json").write_text(json.dumps(record), encoding="utf-8")
    (additive / "test.hyp.txt").unlink()
    # ... but only for exactly the runs they were computed for
    extra = cloned / "runs" / "dot-seed1"
    shutil.copytree(cloned / "runs" / "additive-seed1", extra)
    record = json.loads((extra / "compare.json").read_text(encoding="utf-8"))
    (extra / "compare.json").write_text(json.dumps({**record, "mechanism": "dot"}), encoding="utf-8")
    with pytest.raises(ConfigError, match="test.hyp.txt missing .* for none-seed1"):
        rebuild_report(cfg, cloned)


def test_report_only_refuses_a_direction_other_than_the_runs_trained_in(tmp_path: Path) -> None:
    """The direction picks the BLEU tokenizer and how source lengths are counted: rewriting a zh→en study's
    tables as en→zh would score English with the Chinese tokenizer, so the command names the option instead."""
    study = tmp_path / "study"
    shutil.copytree(REPO / "docs" / "compare-converged-zh-en" / "runs", study / "runs")
    with pytest.raises(ConfigError, match=r"additive-seed1/config.yaml translates zh-en, this command en-zh "
                                          r"\(data.direction\): give --direction zh-en"):
        rebuild_report(load_config(None, {}), study)
    assert not (study / "results.md").exists()


@pytest.mark.slow
def test_the_committed_zh_en_study_rebuilds_every_table_and_figure_from_its_files(tmp_path: Path) -> None:
    """docs/compare-converged-zh-en holds every run's hypotheses and attention matrices: with its questions
    and without its results files and figures, --report-only writes the same tables (intervals, p-values,
    BLEU by length computed again, not carried over) and every figure."""
    study = tmp_path / "study"
    shutil.copytree(REPO / "docs" / "compare-converged-zh-en" / "runs", study / "runs")
    shutil.copy(REPO / "docs" / "compare-converged-zh-en" / "questions.tsv", study)  # what the study asks
    rebuild_report(load_config(None, {"data.direction": "zh-en"}), study)
    for name in ("results.md", "results.csv", "results.json"):
        assert (study / name).read_text(encoding="utf-8") == (
            REPO / "docs" / "compare-converged-zh-en" / name).read_text(encoding="utf-8"), name
    assert all((study / name).is_file() for name in ("bleu.png", "dev_bleu_curves.png", "bleu_by_length.png",
                                                      "heatmaps.png"))


@pytest.mark.slow
def test_the_study_runs_zh_en_too(tmp_path: Path, tiny_config: RunConfig) -> None:
    """The study's zh→en stage: tables measure Chinese sources in characters, the attention
    matrices have Chinese source pieces, and the warm-started hard preset finds the zh→en
    additive run of the same seed (not retrained) and accepts its direction."""
    from translate.study.compare import study_run_config
    from translate.training.resume import init_source

    cfg = apply_overrides(tiny_config, {"data.direction": "zh-en", "train.max_steps": 10, "train.validate_every": 5,
                                        "decode.beam_size": 2})
    out, work = tmp_path / "cmp", tmp_path / "work"
    compare(cfg, ["none", "additive"], [1], out, work)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [r["mechanism"] for r in results["rows"]] == ["none", "additive"]
    assert results["bleu_by_length"]["unit"] == "characters"
    assert (out / "heatmaps.png").is_file() and (out / "bleu_by_length.png").is_file()
    attention = json.loads((out / "runs" / "additive-seed1" / "attention.json").read_text(encoding="utf-8"))
    assert any("\u4e00" <= ch <= "\u9fff" for record in attention for piece in record["source_pieces"] for ch in piece)
    stamp = (work / "additive-seed1" / "best" / "model.safetensors").stat().st_mtime_ns
    warm = study_run_config(cfg, "hard-reinforce-warm", 1, work)
    assert warm.train.init_from == str(work / "additive-seed1") and warm.data.direction == "zh-en"
    assert (work / "additive-seed1" / "best" / "model.safetensors").stat().st_mtime_ns == stamp  # reused
    started, loaded = init_source(warm)
    assert loaded is not None and loaded.artifact.direction == "zh-en" and started.model.attention.kind == "hard"


def test_until_resolved_adds_seeds_only_to_open_questions_and_reports_the_looks(tmp_path: Path,
                                                                             tiny_config: RunConfig) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 6, "train.validate_every": 3, "decode.beam_size": 1})
    out, work = tmp_path / "seq", tmp_path / "work"
    out.mkdir()
    (out / compare_report.QUESTIONS_FILE).write_text("additive\tdot\tthe score\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="below the 2 planned seeds"):
        compare(cfg, ["additive", "dot"], [1, 2], out, work, until_resolved=1)
    compare(cfg, ["additive", "dot", "none"], [1, 2], out, work, until_resolved=3)
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))["plan"]
    assert plan["until_resolved"] == {"max_seeds": 3, "planned_seeds": 2, "looks": 2, "alpha_per_look": 0.0294,
                                      "correction": "Pocock's constant level per look"}
    [pair] = json.loads((out / "results.json").read_text(encoding="utf-8"))["pairs"]
    seeds = {p.name for p in (out / "runs").iterdir()}
    if pair["looks"] == 2:  # open after the planned seeds: one more seed on both sides of the question only
        assert {"additive-seed3", "dot-seed3"} <= seeds and "none-seed3" not in seeds and pair["seeds"] == [1, 2, 3]
    else:  # settled at the first look: nothing added
        assert pair["verdict"] in ("decided", "equivalent") and not any(s.endswith("seed3") for s in seeds)
    if pair["verdict"] == "decided":
        assert pair["p_holm"] < 0.0294
    assert "| looks |" in (out / "results.md").read_text(encoding="utf-8")


def test_until_resolved_needs_declared_questions(tmp_path: Path, tiny_config: RunConfig) -> None:
    with pytest.raises(ConfigError, match="no questions.tsv"):
        compare(tiny_config, ["additive"], [1, 2], tmp_path / "q", tmp_path / "w", until_resolved=4)
