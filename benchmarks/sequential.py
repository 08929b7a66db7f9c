"""The size and power of `translate compare --until-resolved`, by simulation of the procedure itself: a
question starts with the planned seeds a side and gets one more seed a side at each look while it is
undecided, up to --max-seeds; every look tests at Pocock's level for the looks allowed
(`translate.study.looks`). Beside it, the same looks each at 5 %: what the correction is for.

    python scripts/benchmark.py sequential --studies 20000 --output benchmarks/results/DATE-sequential.json \\
        --markdown docs/results/sequential-looks.md

Seeds' scores only (Welch's t, the test's own yardstick for the seed component); seed SD 0.4 a side, or
0.4 and 3.2 (8x apart); a true difference of 0.8 BLEU for power. Not timed: any machine gives the same figures.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks import generated_by, simulation_main
from translate.study import looks

GRID = [(2, 5), (3, 5), (3, 8), (2, 10), (5, 10)]
SPREADS = [(0.4, 0.4), (0.4, 3.2)]
SHIFT = 0.8


def simulate(studies: int) -> list[dict[str, Any]]:
    rows = []
    for start, most in GRID:
        for spread_a, spread_b in SPREADS:
            k = looks.looks_allowed(start, most)
            row = {"planned": start, "max_seeds": most, "looks": k, "alpha_per_look": looks.alpha_per_look(k),
                   "seed_sd": [spread_a, spread_b],
                   "size": looks.sequential_size(start, most, spread_a, spread_b, studies, seed=1),
                   "power": looks.sequential_size(start, most, spread_a, spread_b, studies, seed=2, shift=SHIFT)}
            pocock = looks.POCOCK[k]
            looks.POCOCK[k] = 0.05  # every look at 5 %, uncorrected
            try:
                row["size_uncorrected"] = looks.sequential_size(start, most, spread_a, spread_b, studies, seed=1)
            finally:
                looks.POCOCK[k] = pocock
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def markdown(result: dict[str, Any]) -> str:
    lines = ["# Seeds added until resolved: the procedure's size and power by simulation", "", generated_by(result, "studies"), "",
             ("`translate compare --until-resolved --max-seeds N` adds one seed a side to an open question at each "
              "look and tests every look at Pocock's level for the looks allowed (`translate/study/looks.py`). "
              f"Size: the share of null questions ever decided; power: with a true difference of {SHIFT:g} BLEU; "
              "uncorrected: the same looks each at 5 %."), "",
             "| planned seeds | max seeds | looks | level per look | seed SD a / b | size | uncorrected size | power |",
             "|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        lines.append(f"| {row['planned']} | {row['max_seeds']} | {row['looks']} | {row['alpha_per_look']:g} | "
                     f"{row['seed_sd'][0]:g} / {row['seed_sd'][1]:g} | {100 * row['size']:.1f} % | "
                     f"{100 * row['size_uncorrected']:.1f} % | {100 * row['power']:.1f} % |")
    sizes = [row["size"] for row in result["rows"]]
    raw = [row["size_uncorrected"] for row in result["rows"]]
    lines += ["", (f"Size over the grid: {100 * min(sizes):.1f} % to {100 * max(sizes):.1f} % with the correction, "
                   f"{100 * min(raw):.1f} % to {100 * max(raw):.1f} % without it. Pocock's levels assume equally "
                   "spaced looks and a known variance; with a few seeds and spreads 8x apart Welch's t is itself a "
                   "little liberal, which the unequal-spread rows show.")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return simulation_main(argv, __doc__, "sequential", "studies", simulate, markdown)
