"""Benchmarks and profiles of the project itself (`scripts/benchmark.py`, `scripts/profiler.py`): each
prints its figures and writes JSON; run them from a source checkout on an otherwise idle machine. Not
part of the installed package; their committed figures are in `benchmarks/results/`."""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]  # the source checkout the benchmarks run in


def run_entry(entries: dict[str, Callable[[], Any]], usage: str) -> int:
    """`python scripts/<entry>.py NAME [options]`: run entries[NAME] with the options as its own argv."""
    if len(sys.argv) < 2 or sys.argv[1] not in entries:
        print(usage, file=sys.stderr)
        return 2
    name = sys.argv.pop(1)
    sys.argv[0] = f"{Path(sys.argv[0]).name} {name}"
    result = entries[name]()
    return result if isinstance(result, int) else 0
