"""`translate compare --verify`: a committed run retrained up to its first validation reproduces its
training losses and dev BLEU there, and a committed value that moved is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.study.compare import compare
from translate.study.verify import verify


@pytest.mark.slow
def test_verify_retrains_up_to_the_first_validation_and_names_what_moved(tmp_path: Path, tiny_config: RunConfig) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 40, "train.validate_every": 20, "train.threads": 1})
    out, work = tmp_path / "study", tmp_path / "work"
    threads = torch.get_num_threads()
    try:
        compare(cfg, ["additive"], [1], out, work)
        [verdict] = verify(cfg, ["additive", "dot"], [1], out, work)  # dot has no committed run: not verified
        assert verdict.reproduces and verdict.detail == "reproduces 2 logged training losses and dev BLEU at step 20"
        assert json.loads((work / "verify" / "additive-seed1" / "metrics.jsonl").read_text(encoding="utf-8").splitlines()[-1]
                          )["step"] == 20  # it stopped at the first validation
        metrics = out / "runs" / "additive-seed1" / "metrics.jsonl"
        lines = metrics.read_text(encoding="utf-8").splitlines()
        first = json.loads(lines[0])
        lines[0] = json.dumps({**first, "loss": first["loss"] + 0.5})
        metrics.write_text("\n".join(lines) + "\n", encoding="utf-8")
        [verdict] = verify(cfg, ["additive"], [1], out, work)
        assert not verdict.reproduces and verdict.detail.startswith(
            f"differs: training loss at step {first['step']}: {first['loss'] + 0.5} -> {first['loss']}")
        metrics.unlink()  # a study committed without its metrics: the dev BLEU alone is compared
        record = json.loads((out / "runs" / "additive-seed1" / "compare.json").read_text(encoding="utf-8"))
        step, bleu = record["curve"][0]
        record["curve"][0] = [step, bleu + 1]
        (out / "runs" / "additive-seed1" / "compare.json").write_text(json.dumps(record), encoding="utf-8")
        [verdict] = verify(cfg, ["additive"], [1], out, work)
        assert not verdict.reproduces and verdict.detail.startswith(f"differs: dev BLEU at step {step}: {bleu + 1} -> {bleu}")
    finally:
        torch.set_num_threads(threads)
