"""Where a study's runs execute: the plan's waves, the executors' events (a worker that dies, a run that
fails), `--status`, and a tiny study run by two worker processes, with one worker killed mid-run,
equal to the same study run one run after another."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from translate.cli.app import app
from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.errors import TrainingError
from translate.study.compare import FAULT_ENV, StudyRun, compare, plan
from translate.study.executors import Event, LocalWorkers, Sequential
from translate.study.status import STATUS_FILE, status_table
from translate.training.signals import stop_signals


def test_runs_that_start_from_another_run_wait_for_it(tmp_path: Path) -> None:
    out, work = tmp_path / "out", tmp_path / "work"
    waves = plan(["none", "hard-reinforce-warm", "additive", "hard-reinforce-warm-lowlr"], [1], out, work)
    assert waves == [[StudyRun("none", 1), StudyRun("additive", 1)],
                     [StudyRun("hard-reinforce-warm", 1), StudyRun("hard-reinforce-warm-lowlr", 1)]]
    # the source is not part of the command: it is trained first, once, and not recorded
    assert plan(["hard-reinforce-warm", "hard-reinforce-warm-lowlr"], [1, 2], out, work) == [
        [StudyRun("additive", 1, train_only=True), StudyRun("additive", 2, train_only=True)],
        [StudyRun(m, s) for m in ("hard-reinforce-warm", "hard-reinforce-warm-lowlr") for s in (1, 2)]]
    (out / "runs" / "none-seed1").mkdir(parents=True)
    (out / "runs" / "none-seed1" / "compare.json").write_text("{}", encoding="utf-8")  # finished: not planned
    (work / "additive-seed1").mkdir(parents=True)
    (work / "additive-seed1" / "train_summary.json").write_text("{}", encoding="utf-8")  # trained: not again
    assert plan(["none", "hard-reinforce-warm"], [1], out, work) == [[StudyRun("hard-reinforce-warm", 1)]]


def toy_run(task: tuple[str, str]) -> str:
    """A run for the executors: "die" kills its worker the first time (a marker file says it did)."""
    kind, marker = task
    if kind == "die" and not Path(marker).exists():
        Path(marker).touch()
        os._exit(9)
    if kind == "bad":
        raise ValueError("no such corpus\nsecond line")
    return kind.upper()


@pytest.mark.slow
def test_a_dead_worker_s_runs_start_again_and_a_failing_run_is_reported(tmp_path: Path) -> None:
    marker = str(tmp_path / "died")
    tasks = [("a", marker), ("die", marker), ("bad", marker), ("b", marker)]
    events: list[Event[Any]] = []
    LocalWorkers(2, 1).run(toy_run, [tasks[:2], tasks[2:]], events.append)
    finished = {e.task[0]: e.result for e in events if e.kind == "finished"}
    assert finished == {"a": "A", "die": "DIE", "b": "B"}  # the killed run finished in a fresh pool
    assert [e.task[0] for e in events if e.kind == "retried"].count("die") == 1
    assert [(e.task[0], e.reason) for e in events if e.kind == "failed"] == [("bad", "ValueError: no such corpus")]
    # the second wave starts after the first has ended
    order = [(e.kind, e.task[0]) for e in events]
    assert max(order.index(("finished", k)) for k in ("a", "die")) < order.index(("started", "bad"))
    sequential: list[Event[Any]] = []
    Sequential().run(toy_run, [tasks[:1], tasks[2:]], sequential.append)
    assert [(e.kind, e.task[0], e.result, e.reason) for e in sequential if e.kind != "started"] == [
        ("finished", "a", "A", ""), ("failed", "bad", None, "ValueError: no such corpus"), ("finished", "b", "B", "")]


def stoppable_run(task: tuple[str, str]) -> str:
    """A run that stops as training does: a stop signal is held until the "update" under way ends, then a
    "checkpoint" is written (half a second, outside the held block, as `training.train` saves) and a
    file says it was; "quick" finishes at once."""
    kind, folder = task
    if kind == "quick":
        return kind
    with stop_signals() as signals:
        (Path(folder) / "started").touch()
        for _ in range(1200):  # a minute at most
            with signals.held():
                time.sleep(0.05)
            if signals.received:
                time.sleep(0.5)  # the interrupted run's checkpoint: a second signal now would lose it
                (Path(folder) / "saved").write_text(signals.received, encoding="utf-8")
                raise KeyboardInterrupt(signals.received)
    return "done"


_DRIVER = """
import sys
from tests.integration.test_executors import stoppable_run
from translate.study.executors import LocalWorkers, terminate_as_interrupt
with terminate_as_interrupt():
    LocalWorkers(2, 1).run(stoppable_run, [[("quick", sys.argv[1]), ("long", sys.argv[1])]], lambda event: None)
"""


@pytest.mark.slow
def test_a_stopped_study_ends_its_running_run_at_a_checkpoint_and_its_idle_worker_with_it(tmp_path: Path) -> None:
    """SIGTERM to a driver with one run and one idle worker: the run writes its checkpoint (one signal, not
    a second from a pool broken by the idle worker's death) and every process ends."""
    root = Path(__file__).resolve().parents[2]
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, str(tmp_path)], cwd=root,
                              env={**os.environ, "PYTHONPATH": str(root)}, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "started").exists():
            assert driver.poll() is None and time.monotonic() < deadline, driver.stderr.read() if driver.stderr else ""
            time.sleep(0.1)
        time.sleep(2.0)  # both workers up: one running, the quick run's waiting for work
        driver.send_signal(signal.SIGTERM)
        driver.wait(timeout=60)  # not a hang
    finally:
        if driver.poll() is None:
            driver.kill()
    assert (tmp_path / "saved").read_text(encoding="utf-8") == "SIGTERM"
    assert driver.returncode != 0  # stopped, not finished


class _BreakingPool:
    """A pool whose runs finish at once and that is found broken at the submit after `runs` of them: a
    worker that died while the other run of its wave finished, so no wait ever saw its future fail."""

    def __init__(self, runs: int) -> None:
        self.left = runs

    def submit(self, fn: Any, task: Any) -> Future[Any]:
        if self.left == 0:
            raise BrokenProcessPool("a child process terminated abruptly")
        self.left -= 1
        future: Future[Any] = Future()
        future.set_result(fn(task))
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_a_pool_found_broken_at_a_submit_is_replaced_and_its_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    pools = iter([_BreakingPool(2), _BreakingPool(10)])
    monkeypatch.setattr(LocalWorkers, "_pool", lambda self: next(pools))
    events: list[Event[Any]] = []
    LocalWorkers(2, 1).run(str.upper, [["a", "b", "c"]], events.append)
    assert [(e.kind, e.task) for e in events] == [("started", "a"), ("started", "b"), ("finished", "a"),
                                                  ("finished", "b"), ("started", "c"), ("finished", "c")]


def _results(out: Path) -> dict[str, Any]:
    """What must not depend on the executor: scores, curves, steps, hypotheses, attention."""
    runs: dict[str, Any] = {}
    for folder in sorted((out / "runs").iterdir()):
        record = json.loads((folder / "compare.json").read_text(encoding="utf-8"))
        runs[folder.name] = ({k: record[k] for k in ("steps", "best_step", "dev_bleu", "test_bleu", "test_chrf", "curve",
                                                    "attention_entropy")},
                             (folder / "test.hyp.txt").read_bytes(), (folder / "dev.hyp.txt").read_bytes())
    return runs


def sequential_study(tiny_config: RunConfig, tmp_path: Path) -> RunConfig:
    """The reference the executors are held to: a tiny study (none, additive × seeds 1, 2) run one run after
    another into tmp_path/sequential; returns its configuration (one thread per run)."""
    cfg = apply_overrides(tiny_config, {"train.max_steps": 40, "train.validate_every": 20, "train.threads": 1})
    threads = torch.get_num_threads()
    try:
        compare(cfg, ["none", "additive"], [1, 2], tmp_path / "sequential", tmp_path / "work-sequential")
    finally:
        torch.set_num_threads(threads)
    return cfg


@pytest.mark.slow
def test_two_workers_one_killed_mid_run_give_the_sequential_study(tmp_path: Path, tiny_config: RunConfig,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = sequential_study(tiny_config, tmp_path)
    monkeypatch.setenv(FAULT_ENV, "additive-seed1")  # its worker dies at the run's first validation
    out, work = tmp_path / "jobs", tmp_path / "work-jobs"
    compare(cfg, ["none", "additive"], [1, 2], out, work, LocalWorkers(2, 1))
    assert (work / "additive-seed1.fault-fired").exists()
    assert _results(out) == _results(tmp_path / "sequential")
    rows = json.loads((out / "results.json").read_text(encoding="utf-8"))["rows"]
    assert [(r["mechanism"], r["seeds"]) for r in rows] == [("none", 2), ("additive", 2)]  # each run once
    status = json.loads((out / STATUS_FILE).read_text(encoding="utf-8"))
    assert {name: entry["state"] for name, entry in status["runs"].items()} == {
        "none-seed1": "done", "none-seed2": "done", "additive-seed1": "done", "additive-seed2": "done"}
    table = CliRunner().invoke(app, ["compare", "--status", "--out", str(out)])
    assert table.exit_code == 0 and table.stdout.strip().splitlines()[-1] == "4 done"


def test_status_lists_each_run_and_a_failed_run_fails_the_command(tmp_path: Path, tiny_config: RunConfig) -> None:
    """A run that cannot start fails with its reason; the status says so; the command exits 1 naming it."""
    cfg = apply_overrides(tiny_config, {"data.data_dir": str(tmp_path / "no-corpus")})
    with pytest.raises(TrainingError, match=r"1 run\(s\) failed: none-seed1 \(.*no-corpus"):
        compare(cfg, ["none"], [1], tmp_path / "out", tmp_path / "work")
    lines = status_table(tmp_path / "out").splitlines()
    assert lines[0].startswith("none-seed1  failed") and "no-corpus" in lines[0] and lines[-1] == "1 failed"
    # a running entry whose driver is gone reads as interrupted
    status = json.loads((tmp_path / "out" / STATUS_FILE).read_text(encoding="utf-8"))
    status["driver"]["pid"] = 2**22 + 12345  # no such process
    status["runs"]["none-seed1"] = {"state": "running", "where": "here"}
    (tmp_path / "out" / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")
    assert "interrupted" in status_table(tmp_path / "out").splitlines()[0]
    shutil.rmtree(tmp_path / "out")
    assert "no study here" in status_table(tmp_path / "out")


def test_status_gives_each_finished_run_its_score_and_why_it_stopped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    results = {"runs/dot-seed1/compare.json": {"dev_bleu": 35.291, "steps": 20500,
                                               "stop_reason": "early stopping: no dev BLEU gain in 4 validations"},
               "sweep/none~lr=0.002-seed1/sweep.json": {"dev_bleu": 25.0, "steps": 7460,
                                                        "stop_reason": "reached train.max_tokens=15,000,000 target tokens"},
               "sweep/dot~lr=0.004-seed1/sweep.json": {"dev_bleu": 30.0, "steps": 9000}}
    for name, record in results.items():
        (out / name).parent.mkdir(parents=True)
        (out / name).write_text(json.dumps(record), encoding="utf-8")
    (out / STATUS_FILE).write_text(json.dumps({"driver": {}, "runs": {
        "none~lr=0.002-seed1": {"state": "done"}, "dot~lr=0.004-seed1": {"state": "done"},
        "additive-seed1": {"state": "pending"}}}), encoding="utf-8")
    lines = [" ".join(line.split()) for line in status_table(out).splitlines()]
    assert lines == [
        "additive-seed1 pending",
        "dot-seed1 done dev BLEU 35.29, 20,500 updates, stopped by patience",
        "dot~lr=0.004-seed1 done dev BLEU 30.00, 9,000 updates, why it stopped not recorded",
        ("none~lr=0.002-seed1 done dev BLEU 25.00, 7,460 updates, stopped by reached train.max_tokens=15,000,000 target "
         "tokens (not converged)"),
        "1 pending, 3 done"]


@pytest.mark.slow
def test_a_terminated_driver_stops_its_workers_and_the_study_resumes(tmp_path: Path) -> None:
    """SIGTERM to `translate compare --jobs 2` (kill, a job scheduler): the workers stop between two updates
    with resumable checkpoints, none trains on as an orphan, the status says interrupted; the same command
    then finishes the study."""
    tiny = Path(__file__).resolve().parents[1] / "data" / "tiny"
    sets = {"data.cache_dir": tmp_path / "cache", "data.batch_tokens": 120, "data.max_tokens": 40,
            "tokenizer.en_vocab_size": 70, "tokenizer.zh_vocab_size": 70, "tokenizer.byte_fallback": "false",
            "model.embedding_size": 16, "model.hidden_size": 16, "decode.beam_size": 3, "train.validate_every": 100,
            "train.log_every": 10}
    command = [sys.executable, "-m", "translate", "compare", "--jobs", "2", "--mechanisms", "none,additive",
               "--steps", "400", "--out", str(tmp_path / "study"), "--work", str(tmp_path / "work"), "--data-dir", str(tiny),
               *[arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]]
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    logs = [tmp_path / "work" / run / "train.log" for run in ("none-seed1", "additive-seed1")]
    deadline = time.monotonic() + 120
    while not all(log.is_file() and "step" in log.read_text(encoding="utf-8") for log in logs):
        assert time.monotonic() < deadline and driver.poll() is None, driver.stderr.read() if driver.stderr else ""
        time.sleep(0.5)
    workers = _children(driver.pid)
    assert len(workers) >= 2
    driver.send_signal(signal.SIGTERM)
    assert driver.wait(timeout=120) != 0
    time.sleep(1)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()], workers  # no orphan left training
    assert all("interrupted at step" in log.read_text(encoding="utf-8") for log in logs)
    assert status_table(tmp_path / "study").splitlines()[-1] == "2 interrupted"
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert all("resumed at step" in log.read_text(encoding="utf-8") for log in logs)
    assert status_table(tmp_path / "study").splitlines()[-1] == "2 done"


def _children(pid: int) -> list[int]:
    """The worker processes whose parent is `pid` (Linux /proc; multiprocessing's resource tracker left out)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found
