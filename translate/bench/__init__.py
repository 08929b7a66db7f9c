"""Benchmarks and profiles of the project itself (`scripts/benchmark.py`, `scripts/profiler.py`): each
prints its figures and writes JSON; run them from a source checkout on an otherwise idle machine."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # the source checkout the benchmarks run in
