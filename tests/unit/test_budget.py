"""The expected best score after n trials (Dodge et al. 2019) and choices at an edge of a searched range."""

from __future__ import annotations

import itertools
import json
import random
import shutil
from pathlib import Path

import pytest

from translate.study.budget import edge, edges, expected_best, expected_best_curve
from translate.study.sweep import edge_note, sweep_markdown

TUNED = Path(__file__).resolve().parents[2] / "docs" / "compare-tuned-en-zh"


def test_the_expected_best_of_n_trials_has_its_closed_form() -> None:
    assert expected_best([1.0, 2.0, 3.0], 1) == pytest.approx(2.0)  # one trial: the mean
    assert expected_best([1.0, 2.0, 3.0], 2) == pytest.approx(22 / 9)  # 1·1/9 + 2·3/9 + 3·5/9
    assert expected_best([3.0, 1.0, 2.0], 200) == pytest.approx(3.0)  # many: the maximum
    with pytest.raises(ValueError):
        expected_best([], 1)


def test_the_expected_best_matches_drawing_trials_and_never_falls() -> None:
    rng = random.Random(0)
    scores = [rng.uniform(10, 30) for _ in range(7)]
    curve = expected_best_curve(scores)
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(curve)) and curve[-1] <= max(scores)
    draws = [max(rng.choice(scores) for _ in range(3)) for _ in range(40000)]
    assert sum(draws) / len(draws) == pytest.approx(curve[2], abs=0.1)


def test_a_choice_at_a_bound_of_its_range_is_at_an_edge() -> None:
    rates = [5e-4, 1e-3, 2e-3]  # positive over a factor of 4: a log scale, 1e-3 the middle
    assert edge(2e-3, rates) == "upper" and edge(5e-4, rates) == "lower" and edge(1e-3, rates) is None
    dropouts = [0.1, 0.2, 0.3, 0.4, 0.5]
    assert edge(0.5, dropouts) == "upper" and edge(0.3, dropouts) is None and edge(0.1, dropouts) == "lower"
    assert edge(0.3, [0.3]) is None  # one value: no range
    assert edges({"train.learning_rate": "2e-3", "model.attention.scorer": "dot"},
                 {"train.learning_rate": ["5e-4", "1e-3", "2e-3"], "model.attention.scorer": ["dot", "additive"]}) == {
        "train.learning_rate": "upper"}


def test_a_tuners_range_is_read_on_the_scale_it_was_drawn_on() -> None:
    """A grid's values over a factor of 4 are read on a log scale; a tuner's range says its own scale."""
    batches = [300.0, 8000.0]
    assert edge(5897, batches) == "upper"  # log scale: the upper 10 % starts at 5,761
    assert edge(5897, batches, log=False) is None and edge(7300, batches, log=False) == "upper"
    assert edge(1000, batches, log=False) == "lower" and edge(1100, batches, log=False) is None
    rates = [1e-4, 3e-2]
    assert edge(3e-3, rates, log=True) is None and edge(3e-3, rates, log=False) == "lower"
    assert edges({"data.batch_tokens": "5897", "train.learning_rate": "0.018"},
                 {"data.batch_tokens": ["300", "8000"], "train.learning_rate": ["1e-4", "3e-2"]},
                 {"data.batch_tokens": False, "train.learning_rate": True}) == {"train.learning_rate": "upper"}


def test_the_edge_note_asks_to_widen_only_what_can_be_widened() -> None:
    assert edge_note({"dot": {}}) == "No choice lies at an edge of its searched range."
    only_ends = edge_note({"dot": {}}, {"dot": {"model.dropout": "lower", "train.warmup_steps": "lower"}})
    assert only_ends == ("No choice lies at an edge that can be widened. At the end of what the configuration accepts, "
                         "where nothing lies beyond: dot (dropout at the lower end, warmup_steps at the lower end).")
    assert "Widen" in edge_note({"dot": {"train.learning_rate": "upper"}}, {"dot": {}})


def test_the_committed_tuned_study_says_its_learning_rates_lie_at_the_grids_upper_end(tmp_path: Path) -> None:
    """Every mechanism of docs/compare-tuned-en-zh chose the largest learning rate of its grid: the report
    marks each, from a sweep.json written before the searched values were recorded."""
    shutil.copy(TUNED / "sweep.json", tmp_path / "sweep.json")
    chosen = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))["chosen"]
    text = sweep_markdown(tmp_path)
    assert text.count("(upper edge)") == len(chosen) and "Widen the range" in text


def test_the_eta_counts_down_whichever_budget_ends_first() -> None:
    from translate.training.progress import eta

    assert eta(100, 60.0, 1_000, 0.0) == 540.0  # 900 steps at 0.6 s
    assert eta(100, 60.0, 1_000, 0.0, tokens=50_000, max_tokens=100_000) == 60.0  # the token budget ends first
    assert eta(100, 60.0, 0, 0.0, tokens=50_000, max_tokens=100_000) == 60.0
    assert eta(100, 60.0, 0, 0.0) is None
