"""`translate distil`: the distilled corpus is the teacher's own beam output, an interrupted run resumes
to the same corpus, and the length filter and kept references behave as documented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import TINY_DIR, tiny_overrides
from translate.cli.app import app
from translate.config.loading import apply_overrides
from translate.config.schema import DataConfig
from translate.data.corpus import read_clean
from translate.data.readers import read_tsv
from translate.errors import DataError
from translate.inference.build import load_translator
from translate.training.distillation import TEACHER_FILE, TeacherRow, distil_corpus, length_filter

runner = CliRunner()


@pytest.fixture(scope="module")
def teacher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("teacher")
    sets = [arg for key, value in tiny_overrides(tmp).items() for arg in ("--set", f"{key}={value}")]
    result = runner.invoke(app, ["train", *sets, "--max-steps", "40"])
    assert result.exit_code == 0, result.output
    return tmp / "runs" / "tiny"


def _train_lines(path: Path) -> list[tuple[str, str]]:
    ds, _ = read_tsv(path)
    return list(zip(ds["en"], ds["zh"]))


def test_the_distilled_corpus_is_the_teachers_beam_output(teacher: Path, tmp_path: Path) -> None:
    out = tmp_path / "kd"
    result = runner.invoke(app, ["distil", "-m", str(teacher), "--data-dir", str(TINY_DIR), "--out", str(out),
                                 "--beam", "3", "--engine", "torch", "--batch-size", "5"])
    assert result.exit_code == 0, result.output
    translator = load_translator([teacher / "best"], device="cpu")
    text = read_clean(DataConfig(data_dir=str(TINY_DIR)), "train", [])
    expected = translator.translate_n_best(list(text["en"]), apply_overrides(translator.decode, {"beam_size": 3}))
    pairs = _train_lines(out / "train.tsv")
    assert [en for en, _ in pairs] == list(text["en"])  # the corpus's order, English first
    assert [zh for _, zh in pairs] == [hyps[0].text for hyps in expected]
    rows = [TeacherRow.parse(line, "") for line in (out / TEACHER_FILE).read_text(encoding="utf-8").splitlines()]
    by_line = {row.line: row for row in rows}
    assert [round(by_line[i].score, 4) for i in range(len(expected))] == [round(h[0].score, 4) for h in expected]
    for split in ("dev.tsv", "test.tsv"):  # validation and test keep the real references
        assert (out / split).read_bytes() == (TINY_DIR / split).read_bytes()
    report = json.loads((out / "distil-report.json").read_text())
    assert report["distilled_pairs"] == len(expected) and report["reference_pairs"] == 0
    assert f"{len(expected)} distilled pairs" in result.output


def test_an_interrupted_run_resumes_to_the_same_corpus(teacher: Path, tmp_path: Path) -> None:
    options = {"teachers": [str(teacher)], "data_dir": str(TINY_DIR), "beam": 3, "chunk_lines": 5,
               "keep_references": True, "progress": lambda message: None}
    whole = distil_corpus(out=tmp_path / "whole", **options)  # type: ignore[arg-type]

    chunks: list[str] = []

    def stop_after_two(message: str) -> None:
        chunks.append(message)
        if sum(m.startswith("distilled") for m in chunks) == 2:
            raise KeyboardInterrupt

    out = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        distil_corpus(out=out, **{**options, "progress": stop_after_two})  # type: ignore[arg-type]
    assert not (out / "train.tsv").exists()
    with open(out / TEACHER_FILE, "a", encoding="utf-8") as stream:
        stream.write("17\t4\t")  # a crash in the middle of a row
    resumed = distil_corpus(out=out, **options)  # type: ignore[arg-type]
    assert resumed.resumed_at == [10]
    assert (out / "train.tsv").read_bytes() == (tmp_path / "whole" / "train.tsv").read_bytes()
    assert resumed.distilled_pairs == whole.distilled_pairs and resumed.reference_pairs == whole.reference_pairs

    with pytest.raises(DataError, match=r"other settings \(beam_size, decode differ\)"):
        distil_corpus(out=out, **{**options, "beam": 2})  # type: ignore[arg-type]


def test_kept_references_sit_beside_the_distilled_pairs(teacher: Path, tmp_path: Path) -> None:
    report = distil_corpus([str(teacher)], tmp_path / "kd", data_dir=str(TINY_DIR), keep_references=True,
                           progress=lambda message: None)
    pairs = _train_lines(tmp_path / "kd" / "train.tsv")
    references = _train_lines(TINY_DIR / "train.tsv")
    assert len(pairs) == report.distilled_pairs + report.reference_pairs
    assert report.reference_pairs == report.lines - report.equal_to_reference
    assert set(references) <= set(pairs)  # every original pair is there, once
    assert len(set(pairs)) == len(pairs)


def test_a_folder_that_is_not_a_distillation_is_left_alone(teacher: Path, tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    result = runner.invoke(app, ["distil", "-m", str(teacher), "--data-dir", str(TINY_DIR), "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "not empty and not a distillation folder" in result.output
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def _row(line: int, source: int, target: int, text: str = "x") -> TeacherRow:
    return TeacherRow(line, source, target, -1.0, text)


def test_the_length_filter_is_relative_to_the_median_ratio() -> None:
    rows = [_row(0, 10, 20), _row(1, 10, 21), _row(2, 10, 19), _row(3, 10, 2), _row(4, 10, 100),
            _row(5, 10, 0, ""), _row(6, 10, 10), _row(7, 10, 40)]
    median, dropped = length_filter(rows, 2.0)
    assert median == 20 / 10  # ratios 2.0, 2.1, 1.9, 0.2, 10, 1.0, 4.0: the empty row is not counted
    assert dropped == {3: "short", 4: "long", 5: "empty"}  # 1.0 and 4.0 are exactly 2x away: kept
    assert length_filter(rows, 0.0)[1] == {5: "empty"}  # no filter: only empty outputs go
