"""`translate serve --study`: a study's runs translating the user's own text side by side."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from translate.checkpoint.store import load_checkpoint
from translate.errors import ConfigError
from translate.inference.translator import Translator
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings
from translate.serve.study import Study

RUNS = ["additive-seed1", "dot-seed1"]


@pytest.fixture
def client(both_directions: Models, tiny_study: Path) -> Iterator[TestClient]:
    models = Models(list(both_directions.by_name.values()), Study(tiny_study, max_loaded=1))
    with TestClient(create_app(models, ServeSettings(burst=1000)), base_url="http://localhost") as c:
        yield c


def test_the_study_lists_its_runs_table_and_figures(client: TestClient) -> None:
    study = client.get("/study").json()
    assert [(r["name"], r["mechanism"], r["seed"], r["test_bleu"]) for r in study["runs"]] == [
        ("additive-seed1", "additive", 1, 12.5), ("dot-seed1", "dot", 1, 10.25)]
    assert [row["mechanism"] for row in study["table"]] == ["additive", "dot"] and study["figures"] == ["bleu.png"]
    figure = client.get("/study/figures/bleu.png")
    assert figure.status_code == 200 and figure.headers["content-type"] == "image/png"
    for name in ("notes.txt", "..%2Fresults.json", "results.json"):
        assert client.get(f"/study/figures/{name}").status_code == 404, name


def test_one_text_translated_by_each_run_as_the_run_alone_translates_it(client: TestClient, tiny_study: Path) -> None:
    alone = {run: Translator.from_loaded(load_checkpoint(tiny_study / "runs" / run)) for run in RUNS}
    beam = alone[RUNS[0]].decode.beam_size  # the checkpoints' own beam: what `translate` alone uses
    out = client.post("/study/translate", json={"q": "the dog runs", "runs": RUNS, "beam": beam})
    assert out.status_code == 200, out.text
    rows = out.json()["translations"]
    for row, run in zip(rows, RUNS):
        expected = alone[run].translate(["the dog runs"])[0]
        assert (row["name"], row["translation"], row["source"], row["target"]) == (run, expected, "en", "zh")
        [block] = row["attention"]
        assert len(block["weights"]) == len(row["target_pieces"]) and len(block["weights"][0]) == len(row["source_pieces"])
    assert client.post("/study/translate", json={"q": "the dog runs", "runs": RUNS, "attention": False}).json()[
        "translations"][0]["attention"] is None


@pytest.mark.parametrize("body,status,message", [
    ({"q": "a cat", "runs": ["additive-seed1", "nope-seed1"]}, 404, "no run nope-seed1 in the study; it has: additive-seed1, dot-seed1"),
    ({"q": "a cat", "runs": RUNS * 3}, 422, "at most 4 items"),
    ({"q": "a cat", "runs": ["dot-seed1", "dot-seed1"]}, 422, "a run is named twice"),
    ({"q": "a cat", "runs": []}, 422, "at least 1 item"),
    ({"q": "x" * 1001, "runs": RUNS}, 413, "max_chars=1000"),
])
def test_study_requests_are_checked_like_the_others(client: TestClient, body: dict[str, object], status: int,
                                                    message: str) -> None:
    out = client.post("/study/translate", json=body)
    assert out.status_code == status and message in out.json()["error"], out.text


def test_a_lone_surrogate_is_a_422(client: TestClient) -> None:
    out = client.post("/study/translate", content=b'{"q": "a \\ud800", "runs": ["dot-seed1", "additive-seed1"]}',
                      headers={"Content-Type": "application/json"})
    assert out.status_code == 422 and "unpaired UTF-16 surrogate" in out.json()["error"]


def test_a_study_without_weights_is_browsed_from_its_files(both_directions: Models, tiny_study: Path,
                                                            tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a translate compare folder"):
        Study(tmp_path)
    (tmp_path / "runs").mkdir()
    with pytest.raises(ConfigError, match="no finished run"):
        Study(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(tiny_study, copy, ignore=shutil.ignore_patterns("best"))  # the results without the weights
    study = Study(copy)
    assert list(study.runs) == RUNS and all(run.weights is None for run in study.runs.values())
    assert all(run.weights is not None for run in Study(copy, work_dir=tiny_study / "runs").runs.values())  # --study-runs
    with TestClient(create_app(Models(list(both_directions.by_name.values()), study), ServeSettings(burst=1000)), base_url="http://localhost") as c:
        assert [run["weights"] for run in c.get("/study").json()["runs"]] == [False, False]
        refused = c.post("/study/translate", json={"q": "a cat", "runs": ["dot-seed1"]})
        assert refused.status_code == 409 and "has no weights here" in refused.json()["error"]


COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "compare-converged-en-zh"


def test_a_committed_study_shows_its_test_translations_and_attention(both_directions: Models) -> None:
    study = Study(COMMITTED)
    assert study.test_set is not None and study.test_set.target == "zh"
    with TestClient(create_app(Models(list(both_directions.by_name.values()), study), ServeSettings(burst=1000)), base_url="http://localhost") as c:
        view = c.get("/study/testset", params={"mechanism": "additive,dot", "limit": 5}).json()
        assert view["runs"] == ["additive-seed1", "additive-seed2", "additive-seed3", "dot-seed1", "dot-seed2", "dot-seed3"]
        spreads = [row["spread"] for row in view["rows"]]
        assert len(spreads) == 5 and spreads == sorted(spreads, reverse=True)
        first = view["rows"][0]
        line = first["line"]
        hypotheses = (COMMITTED / "runs" / "dot-seed2" / "test.hyp.txt").read_text(encoding="utf-8").splitlines()
        by_run = {t["run"]: t for t in first["translations"]}
        assert by_run["dot-seed2"]["translation"] == hypotheses[line - 1]
        assert max(t["chrf"] for t in first["translations"]) - min(t["chrf"] for t in first["translations"]) == first["spread"]
        assert c.get("/study/testset", params={"mechanism": "nope"}).status_code == 404
        assert c.get("/study/testset", params={"limit": 0}).status_code == 422
        attention = c.get("/study/runs/additive-seed1/attention").json()["examples"]
        assert attention and all(len(e["weights"]) == len(e["target_pieces"]) for e in attention)
        assert c.get("/study/runs/..%2Fetc/attention").status_code == 404


def test_a_bad_attention_file_is_named(tiny_study: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_study, copy)
    (copy / "runs" / "dot-seed1" / "attention.json").write_text('[{"source_pieces": ["a"], "target_pieces": ["b"], '
                                                                 '"weights": [[0.5, 0.5]]}]')
    with pytest.raises(ConfigError, match=r"dot-seed1/attention.json: example 1: .* do not fit together"):
        Study(copy)


def test_without_a_study_there_is_no_study_route(both_directions: Models) -> None:
    with TestClient(create_app(both_directions, ServeSettings()), base_url="http://localhost") as c:
        assert c.get("/study").status_code == 404
