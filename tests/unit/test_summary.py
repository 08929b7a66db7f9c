"""The README's orderings are generated from the studies' results.json (`translate summary`): the committed
text is what the command writes, and each verdict reads as the study's file says."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from translate.cli.app import app
from translate.study.summary import BEGIN, END, block, committed_block, study_line

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_orderings_are_what_the_studies_generate() -> None:
    studies = sorted(p for p in (ROOT / "docs").glob("compare-*") if (p / "results.json").is_file())
    assert len(studies) >= 9
    committed = committed_block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert committed is not None, "README.md holds no generated orderings block"
    assert committed == block(studies), "README.md's orderings differ from `translate summary docs/compare-*`: run it with --write README.md"


def _study(tmp_path: Path, pairs: list[dict[str, object]], converged: int = 0) -> Path:
    folder = tmp_path / "compare-toy-zh-en"
    folder.mkdir()
    rows = [{"mechanism": "additive", "seeds": 3, "converged_runs": converged}, {"mechanism": "dot", "seeds": 3}]
    (folder / "results.json").write_text(json.dumps({"rows": rows, "pairs": pairs}), encoding="utf-8")
    return folder


def test_each_verdict_reads_as_the_study_says(tmp_path: Path) -> None:
    pairs = [
        {"a": "additive", "b": "dot", "delta": -1.25, "p_value": 0.001, "p_holm": 0.003, "verdict": "decided", "decided": True},
        {"a": "dot", "b": "none", "delta": 0.1, "p_value": 0.8, "p_holm": 0.8, "verdict": "equivalent", "margin": 0.5},
        {"a": "additive", "b": "none", "delta": 0.3, "p_value": 0.4, "p_holm": 0.8, "verdict": "not resolved",
         "seeds_needed": 12, "seed_variance_measured": True},
        {"a": "hard", "b": "none", "delta": 0.3, "p_value": 0.4, "p_holm": 0.8, "verdict": "not resolved",
         "seeds_needed": None, "seed_variance_measured": False},
        {"a": "copy", "b": "none", "delta": 0.2, "p_value": 0.4, "p_holm": 0.8, "verdict": "not resolved",
         "seeds_needed": 0, "seed_variance_measured": True},
    ]
    line = study_line(_study(tmp_path, pairs, converged=2))
    assert line.startswith("- `compare-toy-zh-en` (zh→en; 6 runs, 2 stopped by patience, 4 at their update cap). ")
    assert "decided: dot over additive (+1.25 BLEU, Holm p 0.003)" in line
    assert "equivalent: dot and none within ±0.5 BLEU (+0.10)" in line
    assert "additive against none (+0.30; 12 seeds a side for 80 % power)" in line
    assert "hard against none (+0.30; one seed on a side: its seed variance is unmeasured)" in line
    assert "copy against none (+0.20; more seeds cannot resolve it)" in line


def test_summary_writes_its_block_and_refuses_a_file_without_markers(tmp_path: Path) -> None:
    study = _study(tmp_path, [])
    page = tmp_path / "page.md"
    page.write_text(f"intro\n\n{BEGIN}\nold words\n{END}\n\nafter\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["summary", str(study), "--write", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    assert "old words" not in text and "no questions declared" in text and text.endswith("\n\nafter\n")
    bare = tmp_path / "bare.md"
    bare.write_text("nothing here\n", encoding="utf-8")
    refused = CliRunner().invoke(app, ["summary", str(study), "--write", str(bare)])
    assert refused.exit_code != 0 and "holds no generated block" in refused.output
    missing = CliRunner().invoke(app, ["summary", str(tmp_path / "nowhere")])
    assert missing.exit_code != 0 and "no results.json" in missing.output


def test_a_study_whose_questions_have_no_runs_on_both_sides_says_so(tmp_path: Path) -> None:
    folder = _study(tmp_path, [])
    assert study_line(folder).endswith(": no questions declared.")
    (folder / "questions.tsv").write_text("# a<TAB>b<TAB>why\nadditive\tdot\tthe score\nadditive\tnone\tattention\n",
                                          encoding="utf-8")
    assert study_line(folder).endswith(": 2 questions declared, none with runs on both sides yet.")
