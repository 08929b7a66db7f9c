"""A study's state, run by run: `<out>/status.json`, written only by the driver (`translate compare`) as
its runs start, finish or fail, and read by `translate compare --status`. A run with results
(`<out>/runs/<run>/compare.json`) is done whatever the file says; a run the file calls running whose
driver is gone was interrupted (the next `translate compare` resumes it)."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

STATUS_FILE = "status.json"
STATES = ("pending", "running", "done", "failed", "interrupted")


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())


class StudyStatus:
    """The driver's record of its runs; every change is written at once (atomically)."""

    def __init__(self, out_dir: Path, executor: str, runs: list[str]) -> None:
        self.path = out_dir / STATUS_FILE
        self.driver = {"host": socket.gethostname(), "pid": os.getpid(), "executor": executor, "started": _now()}
        earlier = read_status(out_dir).get("runs", {})
        self.runs: dict[str, dict[str, Any]] = {name: earlier[name] for name in earlier if name not in runs}
        self.runs.update({name: {"state": "pending"} for name in runs})
        self.write()

    def set(self, run: str, state: str, where: str = "", reason: str = "") -> None:
        self.runs[run] = {"state": state, "since": _now(), **({"where": where} if where else {}),
                          **({"reason": reason} if reason else {})}
        self.write()

    def write(self) -> None:
        tmp = self.path.with_name(f"{self.path.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps({"driver": self.driver, "updated": _now(), "runs": self.runs}, indent=1,
                                  ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)


def read_status(out_dir: Path) -> dict[str, Any]:
    path = out_dir / STATUS_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _driver_alive(driver: dict[str, Any]) -> bool:
    if driver.get("host") != socket.gethostname():
        return True  # another machine's driver: it cannot be checked from here
    try:
        os.kill(int(driver.get("pid", 0)), 0)
    except (ProcessLookupError, ValueError, OverflowError):
        return False
    except PermissionError:
        return True
    return int(driver.get("pid", 0)) > 0


def study_states(out_dir: Path) -> list[dict[str, Any]]:
    """Every run the study knows (its results or the status file), with its state, where and why."""
    status = read_status(out_dir)
    runs: dict[str, dict[str, Any]] = {name: dict(entry) for name, entry in status.get("runs", {}).items()}
    alive = _driver_alive(status.get("driver", {}))
    for entry in runs.values():
        if entry.get("state") == "running" and not alive:
            entry.update(state="interrupted", reason="its driver stopped; rerun the command to resume it")
    for record in (out_dir / "runs").glob("*/compare.json"):
        runs[record.parent.name] = {**runs.get(record.parent.name, {}), "state": "done"}
        runs[record.parent.name].pop("reason", None)
    for name, entry in runs.items():
        if entry.get("state") == "done":
            found = outcome(out_dir, name)
            if found:
                entry["outcome"] = found
    return [{"run": name, **runs[name]} for name in sorted(runs)]


def outcome(out_dir: Path, run: str) -> str:
    """A finished run's dev BLEU, updates and why it stopped, from its results (runs/<run>/compare.json, or
    a trial's sweep/<run>/sweep.json); "" where there are none or they cannot be read."""
    for path in (out_dir / "runs" / run / "compare.json", out_dir / "sweep" / run / "sweep.json"):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        steps = f"{int(record['steps']):,} updates, " if record.get("steps") is not None else ""
        why = f"stopped by {stopped_by(record['stop_reason'])}" if record.get("stop_reason") else "why it stopped not recorded"
        return f"dev BLEU {float(record.get('dev_bleu', 0.0)):.2f}, {steps}{why}"
    return ""


def stopped_by(reason: str | None) -> str:
    """Why a run stopped, in a table's words: patience (converged), or its budget (not converged)."""
    if not reason:
        return "not recorded"
    if reason.startswith("early stopping"):
        return "patience"
    return f"{reason.split(':')[0]} (not converged)"


def status_table(out_dir: Path) -> str:
    """`translate compare --status`: one line per run (a finished one with its dev BLEU, updates and why it
    stopped), then the count of each state."""
    rows = study_states(out_dir)
    if not rows:
        return f"{out_dir}: no study here (no {STATUS_FILE}, no runs/*/compare.json)"
    width = max(len(r["run"]) for r in rows)
    lines = [f"{r['run']:<{width}}  {r['state']:<11}  {r.get('since', ''):<19}  "
             f"{r.get('where', '')}{'  ' + r['reason'] if r.get('reason') else ''}"
             f"{'  ' + r['outcome'] if r.get('outcome') else ''}".rstrip() for r in rows]
    counts = {state: sum(r["state"] == state for r in rows) for state in STATES}
    return "\n".join(lines + [", ".join(f"{n} {state}" for state, n in counts.items() if n)])
