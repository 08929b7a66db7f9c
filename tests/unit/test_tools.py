"""Tools around the model: CC-CEDICT gloss parsing (`translate.data.lexicon`), the synthetic scale corpus and the
profiles and benchmarks (`benchmarks/`, not installed), the study driver (`scripts/converged_study.sh`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks import engines, search_profile, synthetic
from translate.config.schema import RunConfig
from translate.data import lexicon
from translate.data.tokenizer import Tokenizer
from translate.inference.search import REGIONS
from translate.inference.translator import Translator
from translate.model import Seq2Seq
from translate.study.presets import PRESETS

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


CEDICT = """# CC-CEDICT
吃 吃 [chi1] /to eat/to consume/to eat at (a cafeteria etc)/to eradicate/
喫 吃 [chi1] /variant of 吃[chi1]/
環境 环境 [huan2 jing4] /environment/circumstances/surroundings/CL:個|个[ge4]/ambient/
北京 北京 [Bei3 jing1] /Beijing, capital of People's Republic of China/Peking/PRC government/
郑 郑 [Zheng4] /surname Zheng/
哈密瓜 哈密瓜 [ha1 mi4 gua1] /Hami melon (a variety of muskmelon) (Cucumis melo var. saccharinus)/
"""


def test_cedict_glosses_become_short_translations() -> None:
    make = lexicon
    assert make.clean_gloss("to eat at (a cafeteria etc)") == "to eat at"
    assert make.clean_gloss("Beijing, capital of People's Republic of China") == "Beijing"
    for pointer in ("variant of 吃[chi1]", "CL:個|个[ge4]", "surname Zheng", "see 吃[chi1]", "a very long gloss of six words"):
        assert make.clean_gloss(pointer) is None, pointer
    pairs = list(make.parse_cedict(CEDICT.splitlines(), None, glosses=2))
    assert pairs == [("to eat", "吃"), ("to consume", "吃"), ("environment", "环境"), ("circumstances", "环境"),
                     ("Beijing", "北京"), ("Peking", "北京"), ("Hami melon", "哈密瓜")]
    assert list(make.parse_cedict(CEDICT.splitlines(), {"环境"}, glosses=1)) == [("environment", "环境")]


def test_synthetic_corpus_rows_survive_deduplication() -> None:
    make = synthetic
    pairs = [(f"Sentence {i}.", f"句子{i}。") for i in range(500)]
    rows = list(make.variations(pairs, 3000, seed=0))
    assert len(rows) == 3000 and rows[:500] == pairs
    assert len(set(rows)) > 2990  # almost every changed copy is new
    assert rows == list(make.variations(pairs, 3000, seed=0))


def driver_first_pass() -> list[str]:
    """The presets of scripts/converged_study.sh's first pass, in order: `translate compare --list`."""
    return list(PRESETS)


# a stand-in `translate` answers `compare --list` as the real one does (the driver's first pass comes from it)
LIST = '[[ "$*" == "compare --list" ]] && { printf "%s\\n" ' + " ".join(f"'{n}'" for n in PRESETS) + "; exit 0; }"


RECORD = 'echo "$*" >> CALLS'  # a stand-in command's body: write its arguments to the calls file


def run_driver(tmp: Path, stage: str, stubs: dict[str, str], **env: str) -> tuple[str, list[str]]:
    """Run a copy of scripts/converged_study.sh in `tmp` at STAGE=`stage`, stand-in commands first on PATH (name ->
    bash body; CALLS in it names the calls file). Asserts exit status 0; returns stderr and the lines of calls."""
    (tmp / "scripts").mkdir()
    shutil.copy(SCRIPTS / "converged_study.sh", tmp / "scripts")
    calls, bin_dir = tmp / "calls.txt", tmp / "bin"
    bin_dir.mkdir()
    for name, body in stubs.items():
        body = f"{LIST}\n{body}" if name == "translate" else body
        (bin_dir / name).write_text(f"#!/usr/bin/env bash\n{body.replace('CALLS', str(calls))}\n", encoding="utf-8")
        (bin_dir / name).chmod(0o755)
    done = subprocess.run(["bash", str(tmp / "scripts" / "converged_study.sh")], capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "STAGE": stage, **env},
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr, calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []


def test_the_study_driver_runs_every_preset_and_only_presets() -> None:
    """scripts/converged_study.sh's first pass is every `translate compare` preset, as `--list` prints them."""
    from typer.testing import CliRunner

    from translate.cli.app import app

    text = (SCRIPTS / "converged_study.sh").read_text(encoding="utf-8")
    assert "mapfile -t FIRST_PASS < <(translate compare --list)" in text
    listed = CliRunner().invoke(app, ["compare", "--list"])
    assert listed.exit_code == 0 and listed.stdout.split() == list(PRESETS)
    defaults = [line.split(":-", 1)[1].rstrip("}") for line in text.splitlines() if line.startswith(("MULTIHEAD=", "HARD="))]
    assert len(defaults) == 2 and all(name in PRESETS for name in defaults)


def test_the_study_driver_skips_finished_runs_passes_extra_arguments_and_survives_a_failure(tmp_path: Path) -> None:
    """scripts/converged_study.sh with a stand-in `translate` on PATH: a run with a committed
    compare.json is not started, COMPARE_ARGS reaches every call, and a failing run does not stop the plan."""
    finished = tmp_path / "docs" / "compare-converged-en-zh" / "runs" / "none-seed1"
    finished.mkdir(parents=True)
    (finished / "compare.json").write_text("{}", encoding="utf-8")
    stderr, lines = run_driver(tmp_path, "first-pass", {"translate": RECORD + '\n[[ "$*" != *"--mechanisms dot "* ]]'},
                               COMPARE_ARGS="--set device=cuda --set train.amp=off")
    mechanisms = [line.split("--mechanisms ")[1].split()[0] for line in lines]
    assert mechanisms == [name for name in driver_first_pass() if name != "none"]
    assert all(line.endswith("--set device=cuda --set train.amp=off") for line in lines)
    assert "dot seed 1 (en-zh) failed; going on" in stderr


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


def test_the_search_profile_times_every_named_region_and_leaves_the_model_as_it_was(
        tiny_model: Seq2Seq, tiny_tokenizers: tuple[Tokenizer, Tokenizer], tiny_config: RunConfig) -> None:
    """The decoding profile on a tiny model with beam 3: the search's named regions and the model's parts all
    show up, the output layer inside the model step, and afterwards no hook is left (same translations)."""
    translator = Translator(tiny_model, *tiny_tokenizers, tiny_config.decode)
    sources = ["I like tea.", "Where is the station?", "He runs.", "Thank you very much."] * 20
    before = translator.translate(sources, tiny_config.decode)
    figures = search_profile.profile_search(translator, sources, tiny_config.decode)
    regions = figures["regions_ms"]
    for name in ("encoder", "decoder.attention", "decoder.combine", "decoder.generator (output layer)",
                 "decoder.rnn0", *REGIONS):
        assert regions[name] > 0, name
    assert regions["decoder.generator (output layer)"] < regions["model.step"]
    assert 0 < figures["matrix_products_share"] < 1
    assert not tiny_model.encoder._forward_hooks and not tiny_model.decoder.generator._forward_pre_hooks
    assert translator.translate(sources, tiny_config.decode) == before


def test_the_engine_benchmark_compares_both_engines_on_the_test_split(tmp_path: Path, tiny_model: Seq2Seq,
                                                                      tiny_config: RunConfig,
                                                                      tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.checkpoint.store import save_checkpoint

    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 1})
    figures = engines.test_split(str(tmp_path / "ckpt"), 6)
    assert figures["sentences"] == 6
    for label in ("beam5", "greedy"):
        row = figures[label]
        assert row["identical_translations"] == 6
        assert row["onnx"]["bleu"] == row["torch"]["bleu"] and row["onnx"]["sentences_per_s"] > 0


def test_no_script_shadows_a_standard_library_module() -> None:
    """`python scripts/x.py` puts scripts/ first on sys.path: a scripts/profile.py would replace the standard
    library's `profile`, which PyTorch imports (through cProfile) while training."""
    import sys

    shadowing = [p.name for p in SCRIPTS.glob("*.py") if p.stem in sys.stdlib_module_names]
    assert shadowing == [], f"rename: {shadowing}"


@pytest.mark.slow  # 5-9 s
def test_the_benchmark_and_profiler_entries_list_their_names_and_pass_options_on() -> None:
    import sys

    for entry, names in (("benchmark.py", ("train", "peer", "engines", "prepare", "serve-load")),
                         ("profiler.py", ("search", "train", "roofline", "ops", "steps"))):
        bare = subprocess.run([sys.executable, str(SCRIPTS / entry)], check=False, capture_output=True, text=True,
                              timeout=120)
        assert bare.returncode == 2 and all(f"{entry} {name}" in bare.stderr for name in names), bare.stderr
    helped = subprocess.run([sys.executable, str(SCRIPTS / "profiler.py"), "steps", "--help"], check=False,
                            capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: profiler.py steps")


def test_the_setup_script_refuses_an_unknown_option_before_installing_anything(tmp_path: Path) -> None:
    """`scripts/setup.sh --brwoser` stops with exit 2 naming the valid options (nothing created)."""
    shutil.copytree(SCRIPTS, tmp_path / "scripts")
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh"), "--brwoser"], check=False,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "'--brwoser'" in done.stderr and "--browser" in done.stderr
    assert not (tmp_path / ".venv").exists()
    helped = subprocess.run(["bash", str(tmp_path / "scripts" / "setup.sh"), "--help"], check=False,
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--browser" in helped.stdout and not (tmp_path / ".venv").exists()


def test_scripts_stay_thin_drivers_of_the_package() -> None:
    """scripts/ holds at most 8 drivers; none imports another script or a private name of the package."""
    import re

    files = sorted(p.name for p in SCRIPTS.iterdir() if p.is_file())
    assert len(files) <= 8, files
    for path in SCRIPTS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+scripts\b", text, re.MULTILINE), path.name
        assert not re.search(r"^\s*from\s+translate\S*\s+import\s+.*\b_\w+", text, re.MULTILINE), path.name


def test_a_benchmarks_json_records_the_load_and_a_busy_machine_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """scripts/benchmark.py's entry: the JSON a benchmark writes gets the load average before and after its
    run; where the machine was busy before it started, the JSON says busy and stderr says why."""
    import json
    import sys

    import benchmarks

    out = tmp_path / "figures.json"

    def bench() -> None:
        out.write_text(json.dumps({"sentences_per_second": 100.0}), encoding="utf-8")

    for load, busy in (([0.1, 0.2, 0.3], False), ([9.0, 9.0, 9.0], True)):
        monkeypatch.setattr(benchmarks.os, "getloadavg", lambda load=load: tuple(load))
        monkeypatch.setattr(sys, "argv", ["benchmark.py", "bench", "--output", str(out)])
        assert benchmarks.run_entry({"bench": bench}, "usage") == 0
        figures = json.loads(out.read_text(encoding="utf-8"))
        assert figures["sentences_per_second"] == 100.0 and figures["machine_load"]["before"] == load
        assert figures["machine_load"]["busy"] is busy
        assert ("the machine was busy" in capsys.readouterr().err) is busy
