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


def test_a_study_needs_runs_with_their_weights(tiny_study: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a translate compare folder"):
        Study(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(tiny_study, copy, ignore=shutil.ignore_patterns("best"))  # the results without the weights
    with pytest.raises(ConfigError, match="no finished run has its weights"):
        Study(copy)
    assert list(Study(copy, work_dir=tiny_study / "runs").runs) == RUNS  # weights kept elsewhere (--study-runs)


def test_without_a_study_there_is_no_study_route(both_directions: Models) -> None:
    with TestClient(create_app(both_directions, ServeSettings()), base_url="http://localhost") as c:
        assert c.get("/study").status_code == 404
