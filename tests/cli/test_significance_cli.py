"""`translate significance`: two systems' hypothesis files (seeds each) against references, its JSON, its
verdicts and its errors naming the file at fault."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from translate.cli.app import app

runner = CliRunner()
WORDS = ("the", "cat", "dog", "sat", "on", "a", "mat", "ran", "far", "home", "quickly", "slowly", "big", "small", "red",
         "blue")


def write(tmp: Path, name: str, lines: list[str]) -> Path:
    path = tmp / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def edited(refs: list[str], drop: float, seed: int) -> list[str]:
    """Hypotheses made from the references by dropping each word with probability `drop`."""
    rng = random.Random(seed)
    return [" ".join(w for w in ref.split() if rng.random() > drop) for ref in refs]


def test_three_seeds_a_side_a_clear_difference_is_decided_and_reported_as_json(tmp_path: Path) -> None:
    rng = random.Random(0)
    refs = [" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(300)]
    ref = write(tmp_path, "ref.txt", refs)
    a = [write(tmp_path, f"a{k}.txt", edited(refs, 0.1, k)) for k in range(3)]
    b = [write(tmp_path, f"b{k}.txt", edited(refs, 0.3, 10 + k)) for k in range(3)]
    args = ["significance", "--ref", str(ref), *[x for p in a for x in ("--a", str(p))],
            *[x for p in b for x in ("--b", str(p))]]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert {"delta", "ci_low", "ci_high", "p_value", "verdict", "seeds_needed"} <= set(record)
    assert record["verdict"] == "decided" and record["delta"] > 10 and record["ci_low"] > 0 and record["tokenize"] == "13a"
    assert record["seeds_a"] == record["seeds_b"] == 3 and record["seed_variance_measured"]
    plain = runner.invoke(app, args)
    assert plain.exit_code == 0 and ": decided" in plain.stdout


def test_one_seed_a_side_is_never_decided_and_says_why(tmp_path: Path) -> None:
    rng = random.Random(1)
    refs = [" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(200)]
    ref = write(tmp_path, "ref.txt", refs)
    a, b = write(tmp_path, "a.txt", edited(refs, 0.05, 1)), write(tmp_path, "b.txt", edited(refs, 0.6, 2))
    result = runner.invoke(app, ["significance", "--ref", str(ref), "--a", str(a), "--b", str(b)])
    assert result.exit_code == 0, result.output
    assert ": not resolved" in result.stdout and "seed variance of a side with one seed is not measured" in result.stdout


def test_files_that_do_not_match_the_references_are_named(tmp_path: Path) -> None:
    ref = write(tmp_path, "ref.txt", ["a b", "c d"])
    short = write(tmp_path, "short.txt", ["a b"])
    result = runner.invoke(app, ["significance", "--ref", str(ref), "--a", str(short), "--b", str(ref)])
    assert result.exit_code == 1 and f"--a {short}: 1 lines, but --ref {ref} has 2" in result.output
    missing = runner.invoke(app, ["significance", "--ref", str(ref), "--a", str(ref), "--b", str(tmp_path / "no.txt")])
    assert missing.exit_code == 1 and "--b: no such file" in missing.output
    bad = runner.invoke(app, ["significance", "--ref", str(ref), "--a", str(ref), "--b", str(ref), "--tokenize", "x"])
    assert bad.exit_code == 2 and "use zh or 13a" in bad.output
