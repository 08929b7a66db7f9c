"""The size and power of the seed-and-sentence test (`translate.evaluation.significance.seeds_and_sentences`)
against Welch's t on the seeds' scores and the earlier two-level bootstrap, by simulation:

1. the crossed design with a cheap metric (the mean of per-sentence scores): seeds 2, 3, 5 and 10 a side;
   equal seed spreads (0.3 a side) and spreads 8x apart (0.1 and 0.8); 300 and 2,000 sentences; with and
   without shared sentence effects (SD 15); seed by sentence noise SD 10; null and a true difference of 1;
2. BLEU on hypotheses made from a reference by random edits (the same generator on both sides, 3 seeds a
   side; each seed drops words at its own rate around its side's, so seeds spread as trained ones do).

    python scripts/benchmark.py significance --studies 400 --output benchmarks/results/DATE-significance.json \\
        --markdown docs/results/significance.md

Writes JSON, and with --markdown the page generated from it. Not timed: any machine gives the same figures.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binom

from benchmarks import REPO, write_results
from translate.evaluation.metrics import bleu_metric
from translate.evaluation.significance import compare_runs, seeds_and_sentences, two_level_bootstrap, welch

SEEDS = (2, 3, 5, 10)
SPREADS = ((0.3, 0.3), (0.1, 0.8))
SENTENCES = (300, 2000)
SHARED = (0.0, 15.0)
NOISE = 10.0
SHIFT = 1.0


def _score(sums: np.ndarray) -> np.ndarray:
    return np.asarray(sums[:, 0] / sums[:, 1])


def _runs(rng: np.random.Generator, seeds: int, mean: float, seed_sd: float, shared: np.ndarray) -> list[np.ndarray]:
    out = []
    for _ in range(seeds):
        values = rng.normal(mean, seed_sd) + shared + rng.normal(0, NOISE, size=len(shared))
        out.append(np.stack([values, np.ones_like(values)], axis=1))
    return out


def _corpus(side: list[np.ndarray]) -> list[float]:
    return [float(_score(s.sum(axis=0)[None])[0]) for s in side]


def crossed(studies: int, samples: int) -> list[dict[str, Any]]:
    rows = []
    for seeds in SEEDS:
        for sd_a, sd_b in SPREADS:
            for sentences in SENTENCES:
                for shared_sd in SHARED:
                    row: dict[str, Any] = {"seeds": seeds, "seed_sd": [sd_a, sd_b], "sentences": sentences,
                                           "shared_sd": shared_sd}
                    for label, shift in (("null", 0.0), ("shift", SHIFT)):
                        rng = np.random.default_rng([seeds, int(10 * sd_a), sentences, int(shared_sd), int(shift)])
                        ours = theirs = old = 0
                        for study in range(studies):
                            shared = rng.normal(0, shared_sd, size=sentences)
                            a = _runs(rng, seeds, 30 + shift, sd_a, shared)
                            b = _runs(rng, seeds, 30, sd_b, shared)
                            ours += seeds_and_sentences(a, b, _score, samples=samples, seed=study).p_value < 0.05
                            theirs += welch(_corpus(a), _corpus(b)) < 0.05
                            old += two_level_bootstrap(a, b, _score, samples=samples, seed=study).p_value < 0.05
                        row[label] = {"test": ours / studies, "welch": theirs / studies, "two_level": old / studies}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
    return rows


def _edited(refs: list[str], drop: float, rng: random.Random) -> list[str]:
    return [" ".join(w for w in ref.split() if rng.random() > drop) for ref in refs]


def edits(studies: int, samples: int, sentences: int = 500) -> dict[str, Any]:
    """BLEU on edited references: each seed's drop rate is its side's plus a seed effect (SD 0.01)."""
    pairs = [line.split("\t") for line in (REPO / "data/tatoeba-cmn-eng/test.tsv").read_text(encoding="utf-8").splitlines()]
    refs = [p[0] for p in pairs[:sentences]]
    metric = bleu_metric("en")
    out: dict[str, Any] = {"sentences": sentences, "seeds": 3, "drop": 0.2, "seed_sd": 0.01, "drop_shift": 0.01}
    for label, shift in (("null", 0.0), ("shift", 0.01)):
        rng = random.Random(label)
        ours = theirs = 0
        for study in range(studies):
            a = [_edited(refs, 0.2 - shift + rng.gauss(0, 0.01), rng) for _ in range(3)]
            b = [_edited(refs, 0.2 + rng.gauss(0, 0.01), rng) for _ in range(3)]
            result = compare_runs(a, b, refs, "en", samples=samples, seed=study, aso=False)
            ours += result.p_value < 0.05
            theirs += welch([metric.corpus_score(h, [refs]).score for h in a],
                            [metric.corpus_score(h, [refs]).score for h in b]) < 0.05
        out[label] = {"test": ours / studies, "welch": theirs / studies}
        print(json.dumps({label: out[label]}), flush=True)
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = ["# The seed-and-sentence test: size and power by simulation", "",
             (f"Generated by `{result['command']}` on {result['date']} ({result['studies']} studies a cell, "
             f"{result['samples']} bootstrap resamples a comparison; figures in [{result['json']}](../../{result['json']}))."),
             "", ("Share of comparisons called different at 5 %: under the null (size; nominal 5 %) and with a true "
             f"difference of {SHIFT:g} (power). `test`: the seed-and-sentence test (`translate.evaluation.significance`); "
             "`welch`: Welch's t on the seeds' scores; `two-level`: the earlier two-level bootstrap. Seed by sentence "
             f"noise SD {NOISE:g}; seed SDs per side as given."), "",
             "| seeds | seed SD a / b | sentences | shared SD | size: test | welch | two-level | power: test | welch | two-level |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["crossed"]:
        n, s = row["null"], row["shift"]
        lines.append(f"| {row['seeds']} | {row['seed_sd'][0]:g} / {row['seed_sd'][1]:g} | {row['sentences']} | "
                     f"{row['shared_sd']:g} | {100 * n['test']:.1f} % | {100 * n['welch']:.1f} % | "
                     f"{100 * n['two_level']:.1f} % | {100 * s['test']:.1f} % | {100 * s['welch']:.1f} % | "
                     f"{100 * s['two_level']:.1f} % |")
    sizes = [row["null"]["test"] for row in result["crossed"]]
    gains = [row["shift"]["test"] - row["shift"]["welch"] for row in result["crossed"]]
    studies = result["studies"]
    low, high = (float(binom.ppf(q, studies, 0.05)) / studies for q in (0.025, 0.975))
    welch_sizes = [row["null"]["welch"] for row in result["crossed"]]
    lines += ["", (f"Size of the test over the grid: {100 * min(sizes):.1f} % to {100 * max(sizes):.1f} % "
              f"(mean {100 * float(np.mean(sizes)):.1f} %; Welch's {100 * min(welch_sizes):.1f} % to "
              f"{100 * max(welch_sizes):.1f} %, mean {100 * float(np.mean(welch_sizes)):.1f} %); with {studies} "
              f"studies a cell, a test of true size 5 % shows {100 * low:.1f} % to {100 * high:.1f} % in 95 % of "
              f"cells (binomial), so a cell outside 3.5-6.5 % is not by itself evidence against the test. Its "
              f"power minus Welch's: {100 * min(gains):+.1f} to {100 * max(gains):+.1f} points (mean "
              f"{100 * float(np.mean(gains)):+.1f}).")]
    e = result.get("edits")
    if e:
        lines += ["", (f"BLEU on hypotheses made from {e['sentences']} Tatoeba test references by dropping words "
                  f"(3 seeds a side, drop rate {e['drop']:g} with seed SD {e['seed_sd']:g}; shifted: side A drops "
                  f"{e['drop_shift']:g} less): called different under the null {100 * e['null']['test']:.1f} % (Welch "
                  f"{100 * e['null']['welch']:.1f} %), with the shift {100 * e['shift']['test']:.1f} % (Welch "
                  f"{100 * e['shift']['welch']:.1f} %).")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--studies", type=int, default=400, help="simulated studies per cell and hypothesis")
    parser.add_argument("--samples", type=int, default=200, help="bootstrap resamples per comparison")
    parser.add_argument("--edit-studies", type=int, default=200, help="studies of the BLEU-on-edits simulation")
    parser.add_argument("--output", type=Path, default=Path("runs/bench-significance.json"))
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--from-json", type=Path, help="only write --markdown from a JSON this benchmark wrote")
    args = parser.parse_args(argv)
    if args.from_json:
        args.markdown.write_text(markdown(json.loads(args.from_json.read_text(encoding="utf-8"))), encoding="utf-8")
        print(f"wrote {args.markdown}")
        return 0
    result: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "studies": args.studies, "samples": args.samples,
                              "json": str(args.output),
                              "command": f"python scripts/benchmark.py significance --studies {args.studies} --samples "
                                         f"{args.samples} --edit-studies {args.edit_studies}"}
    result["crossed"] = crossed(args.studies, args.samples)
    if args.edit_studies:
        result["edits"] = edits(args.edit_studies, args.samples)
    write_results(result, args.output, args.markdown, markdown)
    return 0
