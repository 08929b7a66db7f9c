"""Benchmark: the Python API (`translate.load(...).translate(lines)`) against `translate file` on the same
lines, each in a fresh process (start-up, model load and translation), alternately; wall seconds and
peak RSS of each run, the medians printed and all written as JSON.

    python scripts/benchmark.py python-api --lines 200 --repeats 3 \
        --output benchmarks/results/2026-12-05-python-api.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

API = """
import sys, translate
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
out = translate.load(direction=sys.argv[3]).translate(lines)
open(sys.argv[2], "w", encoding="utf-8").write("".join(line + "\\n" for line in out))
"""


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one child process run to its end."""
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - began
    if status != 0:
        raise SystemExit(f"{' '.join(command[:4])}...: exit status {status}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--direction", default="zh-en")
    parser.add_argument("--data", type=Path, default=Path("data/tatoeba-cmn-eng/test.tsv"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    column = 1 if args.direction == "zh-en" else 0
    lines = [row.split("\t")[column] for row in args.data.read_text(encoding="utf-8").splitlines()[:args.lines]]
    runs: dict[str, list[tuple[float, float]]] = {"translate file": [], "python api": []}
    outputs: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.txt"
        source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        cli = [sys.executable, "-m", "translate", "file", str(source), "-o", f"{tmp}/cli.txt", "--direction", args.direction]
        api = [sys.executable, "-c", API, str(source), f"{tmp}/api.txt", args.direction]
        for _ in range(args.repeats):
            runs["translate file"].append(timed(cli))
            runs["python api"].append(timed(api))
        outputs = {name: (Path(tmp) / f"{name}.txt").read_text(encoding="utf-8") for name in ("cli", "api")}
    figures: dict[str, Any] = {"lines": len(lines), "direction": args.direction, "machine": platform.processor() or
                               platform.machine(), "load_average_before": os.getloadavg(),
                               "same_translations": outputs["cli"] == outputs["api"], "runs": {}}
    for name, measured in runs.items():
        seconds, rss = [s for s, _ in measured], [r for _, r in measured]
        figures["runs"][name] = {"seconds": [round(s, 2) for s in seconds], "median_seconds": round(statistics.median(seconds), 2),
                                 "peak_rss_mb": [round(r) for r in rss]}
        print(f"{name:<15} {statistics.median(seconds):.2f} s (runs {', '.join(f'{s:.2f}' for s in seconds)}), "
              f"peak RSS {max(rss):.0f} MB")
    print(f"same translations: {figures['same_translations']}")
    if args.output:
        args.output.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.output}")
