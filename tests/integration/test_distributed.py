"""Data-parallel training with 2 CPU processes (gloo), as torchrun would start them: the update
equals the single-process update on the combined batch (loss normalised by the global token
count, unequal token counts per process), and a 2-process resume equals an uninterrupted run."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.multiprocessing as mp
from safetensors.torch import load_file

from tests.conftest import tiny_overrides
from translate.config.loading import load_config
from translate.data.batching import BatchStream
from translate.data.corpus import prepare_data
from translate.errors import CheckpointError
from translate.model import build_model
from translate.training.loss import compute_loss

pytestmark = pytest.mark.slow  # seconds each: `pytest -m "not slow"` skips them in the inner loop

STEPS = 3


def _overrides(tmp: Path, **extra: Any) -> dict[str, Any]:
    return tiny_overrides(tmp, **{"train.label_smoothing": 0.0, "train.schedule": "constant", "train.warmup_steps": 1,
                                  "train.learning_rate": 0.05, "train.min_learning_rate": 0.05, "train.weight_decay": 0.0,
                                  "train.clip_norm": 1e6, "train.validate_every": 1000, "train.average_last": 0,
                                  "train.threads": 1, "device": "cpu", **extra})


def _sgd(model: Any, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=lr)


def _worker(rank: int, world: int, port: int, overrides: dict[str, Any], resume: bool) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world),
                      LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world))
    import translate.training.trainer as trainer_module
    from translate.training.train import train

    trainer_module.make_optimizer = _sgd  # plain SGD: the update is the gradient, nothing adaptive
    train(load_config(None, overrides), resume=resume)


def _run(world: int, overrides: dict[str, Any], resume: bool = False) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(_worker, args=(world, port, overrides, resume), nprocs=world, join=True)


def _weights(run: Path) -> dict[str, torch.Tensor]:
    return load_file(run / "last" / "model.safetensors")


def test_two_processes_make_the_single_process_update_on_the_combined_batch(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, **{"train.max_steps": STEPS})
    _run(2, overrides)
    cfg = load_config(None, overrides)
    # the reference: one process, the same initial weights, each step on both processes' batches at once
    data = prepare_data(cfg.data, cfg.tokenizer)
    torch.manual_seed(cfg.train.seed)
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer)).train()
    sgd = torch.optim.SGD(model.parameters(), lr=cfg.train.learning_rate)
    stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, cfg.train.seed)
    pairs = []  # the global order, two batches a step (an odd last batch of an epoch is dropped)
    for epoch in range(STEPS):
        order = stream.epoch_batches(epoch)
        pairs += [(order[2 * i], order[2 * i + 1]) for i in range(len(order) // 2)]
    token_counts = []
    for step in range(STEPS):
        outs = [compute_loss(model, stream.batch(pairs[step][rank]), 0.0) for rank in (0, 1)]
        tokens = sum(o.tokens for o in outs)
        token_counts.append([o.tokens for o in outs])
        loss = sum(o.loss * o.tokens for o in outs) / tokens
        sgd.zero_grad()
        loss.backward()
        sgd.step()
    assert any(a != b for a, b in token_counts), "the test needs unequal token counts per process"
    saved = _weights(cfg.run_dir)
    reference = model.state_dict()
    for key, value in saved.items():
        torch.testing.assert_close(value.float(), reference[key].float(), atol=2e-6, rtol=1e-5, msg=key)
    log = (cfg.run_dir / "train.log").read_text()
    assert "data-parallel: 2 processes" in log


def test_two_process_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    whole = _overrides(tmp_path / "a", **{"train.max_steps": 4})
    _run(2, whole)
    parts = _overrides(tmp_path / "b", **{"train.max_steps": 1})  # stops inside the first epoch
    _run(2, parts)
    with pytest.raises(CheckpointError, match="trained with 2 process"):  # one process cannot resume it mid-epoch
        from translate.training.train import train

        train(load_config(None, {**parts, "train.max_steps": 4}), resume=True)
    _run(2, {**parts, "train.max_steps": 4}, resume=True)
    a, b = _weights(load_config(None, whole).run_dir), _weights(load_config(None, parts).run_dir)
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=0, rtol=0, msg=key)


def test_under_torchrun_a_refused_setting_is_reported_once_without_tracebacks(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or shutil.which("torchrun")
    if torchrun is None:
        pytest.skip("torchrun is not installed next to this Python")
    sets = [f"--set={key}={value}" for key, value in _overrides(tmp_path, **{"tokenizer.zh_vocab_size": 50}).items()]
    result = subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2", "-m", "translate", "train", *sets],
                            capture_output=True, text=True, timeout=300, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert output.count("error: tokenizer.zh_vocab_size=50 is too small") == 1, output
    assert "[rank0]" not in output and "[rank1]" not in output  # no process prints a traceback of its own
    assert not [line for line in output.splitlines() if line.strip().startswith("File ") and "/translate/" in line]


def test_a_killed_rank_ends_the_run_within_a_minute_and_the_run_resumes(tmp_path: Path) -> None:
    import shutil
    import signal
    import subprocess
    import sys
    import time

    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or shutil.which("torchrun")
    if torchrun is None:
        pytest.skip("torchrun is not installed next to this Python")
    overrides = _overrides(tmp_path, **{"train.max_steps": 100_000, "train.validate_every": 20})
    launcher = subprocess.Popen([torchrun, "--standalone", "--nproc-per-node", "2", "-m", "translate", "train",
                                 *[f"--set={k}={v}" for k, v in overrides.items()]],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run = tmp_path / "runs" / "tiny"
    try:
        deadline = time.monotonic() + 120
        while not (run / "last" / "meta.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.5)
        workers = subprocess.run(["pgrep", "-P", str(launcher.pid)], capture_output=True, text=True,
                                 check=False).stdout.split()
        assert len(workers) == 2, workers
        os.kill(int(max(workers, key=int)), signal.SIGKILL)  # rank 1 (started second) dies
        killed = time.monotonic()
        launcher.wait(timeout=60)
        assert launcher.returncode != 0 and time.monotonic() - killed < 60
    finally:
        if launcher.poll() is None:
            launcher.kill()
    from translate.errors import CheckpointError
    from translate.training.train import train

    step = __import__("json").loads((run / "last" / "meta.json").read_text())["step"]
    try:
        result = train(load_config(None, {**overrides, "train.max_steps": step + 5}), resume=True)
    except CheckpointError as exc:
        # torchrun stopped rank 0 inside an epoch (it saved there): that data position resumes only with 2 processes
        assert "resume it with 2 (torchrun --nproc-per-node 2)" in str(exc)
        again = subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2", "-m", "translate", "train", "--resume",
                                str(run), f"--max-steps={step + 5}"], check=False, capture_output=True, text=True,
                               timeout=300)
        assert again.returncode == 0, again.stderr[-2000:]
        step_now = __import__("json").loads((run / "last" / "meta.json").read_text())["step"]
        assert step_now == step + 5
    else:
        assert result.state.step == step + 5  # continued from its last checkpoint, not from scratch
