"""Benchmarks and profiles of the project itself (`scripts/benchmark.py`, `scripts/profiler.py`): each
prints its figures and writes JSON; run them from a source checkout on an otherwise idle machine. Not
part of the installed package; their committed figures are in `benchmarks/results/`.

Every JSON object a benchmark writes (in `benchmarks/results/`, `docs/results/`, `runs/`, a run's
`benchmark.json`, or where its `--output`, `--out`, `--json` or `-o` says) gets the machine's load average before and after the run, and `busy: true` where
the machine was already busy when it started: such figures are not speed figures."""

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]  # the source checkout the benchmarks run in
BUSY_PER_CORE = 0.5  # a 1-minute load average above this per core before a run: the machine was busy
# where benchmarks write their JSON by default (a run's own files, such as its checkpoint's meta.json, are not touched)
WATCHED = ("benchmarks/results/*.json", "docs/results/*.json", "runs/*.json", "runs/*/benchmark.json")
OUTPUT_OPTIONS = ("--output", "--out", "--json", "-o")


def _outputs(argv: list[str]) -> list[Path]:
    """The files named by --output, --out, --json or -o in a benchmark's options."""
    found = []
    for i, arg in enumerate(argv):
        if arg in OUTPUT_OPTIONS and i + 1 < len(argv):
            found.append(Path(argv[i + 1]))
        elif arg.split("=", 1)[0] in OUTPUT_OPTIONS and "=" in arg:
            found.append(Path(arg.split("=", 1)[1]))
    return found


def _written_since(began: float, argv: list[str]) -> list[Path]:
    """The JSON files written since `began` where benchmarks write them."""
    candidates = [p for pattern in WATCHED for p in REPO.glob(pattern)]
    candidates += [p for p in _outputs(argv) if p.suffix == ".json"]
    return sorted({p for p in candidates if p.is_file() and p.stat().st_mtime >= began})


def record_load(paths: list[Path], before: list[float], after: list[float], cores: int) -> bool:
    """Add the load averages to each JSON object in `paths`; True where the machine was busy before."""
    busy = before[0] > BUSY_PER_CORE * cores
    for path in paths:
        try:
            figures = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(figures, dict):
            figures["machine_load"] = {"before": [round(x, 2) for x in before], "after": [round(x, 2) for x in after],
                                       "cores": cores, "busy": busy}
            path.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    return busy


def run_entry(entries: dict[str, Callable[[], Any]], usage: str) -> int:
    """`python scripts/<entry>.py NAME [options]`: run entries[NAME] with the options as its own argv, and
    record the machine's load around it in the JSON it writes (`record_load`)."""
    if len(sys.argv) < 2 or sys.argv[1] not in entries:
        print(usage, file=sys.stderr)
        return 2
    name = sys.argv.pop(1)
    sys.argv[0] = f"{Path(sys.argv[0]).name} {name}"
    cores, before, began = os.cpu_count() or 1, list(os.getloadavg()), time.time() - 1
    result = entries[name]()
    written = _written_since(began, sys.argv[1:])
    if record_load(written, before, list(os.getloadavg()), cores):
        print(f"{name}: the machine was busy when it started (load average {before[0]:.2f} on {cores} cores): "
              "its times are not speed figures; rerun on an idle machine", file=sys.stderr)
    return result if isinstance(result, int) else 0


def write_results(result: dict[str, Any], output: Path, markdown_path: Path | None,
                  markdown: Callable[[dict[str, Any]], str]) -> None:
    """A benchmark's result as JSON at `output` and, where asked, as Markdown (`markdown(result)`) at
    `markdown_path`; says what it wrote."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if markdown_path:
        markdown_path.write_text(markdown(result), encoding="utf-8")
    print(f"wrote {output}" + (f" and {markdown_path}" if markdown_path else ""))


def simulation_main(argv: list[str] | None, doc: str | None, name: str, unit: str,
                    simulate: Callable[[int], list[dict[str, Any]]], markdown: Callable[[dict[str, Any]], str]) -> int:
    """The entry of a simulation benchmark (`sequential`, `release-size`): --studies simulated `unit`s per
    cell, the rows of `simulate(studies)` as JSON at --output and, where asked, Markdown at --markdown."""
    import argparse

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--studies", type=int, default=20_000, help=f"simulated {unit} per cell")
    parser.add_argument("--output", type=Path, default=Path(f"runs/bench-{name}.json"))
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    result = {"date": time.strftime("%Y-%m-%d"), "studies": args.studies, "json": str(args.output),
              "command": f"python scripts/benchmark.py {name} --studies {args.studies}",
              "rows": simulate(args.studies)}
    write_results(result, args.output, args.markdown, markdown)
    return 0


def generated_by(result: dict[str, Any], unit: str) -> str:
    """A simulation report's line that says how to repeat it and where its figures are."""
    return (f"Generated by `{result['command']}` on {result['date']} ({result['studies']:,} simulated {unit} a cell; "
            f"figures in [{result['json']}](../../{result['json']})).")
