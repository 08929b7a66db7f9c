"""The README's table of the converged attention study, printed from a study's results.json.

    python scripts/study_readme_table.py docs/compare-converged-en-zh/results.json --cap 6000

`translate compare --report-only` rewrites results.md/.json after every run; this prints the shorter
table the README carries (one line per mechanism: updates, test BLEU with its 95 % interval or the
mean ± std over seeds, chrF, the p-values, attention sharpness, training speed), so that updating the
README after a run is a copy, not an edit by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

LABELS = {  # what a reader needs next to a preset's name
    "additive-kv": "learned key and value projections",
    "scaled-dot-kv": "learned key and value projections",
    "multihead": "4 heads, additive",
    "multihead-ln": "+ layer norm of query and context",
    "multihead-ln-dot": "4 dot heads + layer norm",
    "multihead-ln-scaled-dot": "4 scaled-dot heads + layer norm",
    "multihead-ln-scaled-dot-1head": "1 scaled-dot head of 256 + layer norm",
    "multihead-ln-scaled-dot-8heads": "8 scaled-dot heads of 32 + layer norm",
    "self-attention+additive": "encoder self-attention layer",
    "hard-marginal": "exact marginalisation over the position, argmax decoding",
    "hard-reinforce-warm-dot": "REINFORCE warm-started from the dot model",
    "hard-reinforce-warm-lowlr": "REINFORCE warm-started, fine-tuning LR 2e-4",
    "dot-h512": "hidden 512",
    "scaled-dot-h512": "hidden 512",
}
WARM = "{cap:,} soft + {steps:,} hard"  # warm starts report their own updates only
UPDATES = {"hard-reinforce-warm": WARM, "hard-reinforce-warm-lowlr": WARM,
           "hard-reinforce-warm-dot": WARM.replace("soft", "soft dot")}
HEADER = ("| mechanism | seeds | updates | test BLEU | test chrF | p vs none | p vs best | attn entropy (nats) "
          "| weight on argmax | train tgt tok/s |\n|---|---|---|---|---|---|---|---|---|---|")


def p_value(p: float | None, seeds: int | None) -> str:
    if p is None:
        return "–"
    text = f"{p:.3f}" + (f" ({seeds} seeds)" if seeds and seeds > 1 else "")
    return f"**{text}**" if p < 0.05 else text


def bleu(row: dict[str, Any], best: bool) -> str:
    if row["seeds"] > 1 and row["test_bleu_std"] is not None:
        text = f"{row['test_bleu_mean']:.2f} ± {row['test_bleu_std']:.2f}"
    else:
        text = f"{row['test_bleu_mean']:.2f} (95 % CI ± {row['test_bleu_ci95']:.2f})"
    return f"**{text}**" if best else text


def chrf(row: dict[str, Any]) -> str:
    std = row["test_chrf_std"]
    return f"{row['test_chrf_mean']:.2f}" + (f" ± {std:.2f}" if row["seeds"] > 1 and std is not None else "")


def updates(row: dict[str, Any], cap: int) -> str:
    steps = round(row["steps_mean"])
    if row["mechanism"] in UPDATES:
        return UPDATES[row["mechanism"]].format(cap=cap, steps=steps)
    return f"{steps:,}" + (" (cap)" if steps >= cap else "")


def attention(row: dict[str, Any]) -> tuple[str, str]:
    if row["attention_entropy"] is None:
        return "–", "–"
    if row["mechanism"].startswith("hard-"):  # all decode with one position (hard-marginal: its argmax)
        return "0 (one position)", f"{row['attention_argmax_share']:.2f}"
    return f"{row['attention_entropy']:.2f}", f"{row['attention_argmax_share']:.2f}"


def table(results: dict[str, Any], cap: int) -> str:
    lines = [HEADER]
    for row in results["rows"]:
        name = row["mechanism"]
        label = f"{name} ({LABELS[name]})" if name in LABELS else name
        best = name == results["best"]
        entropy, share = attention(row)
        p_best = "(best)" if best else p_value(row["p_vs_best"], row["seeds_paired_vs_best"])
        lines.append(f"| {label} | {row['seeds']} | {updates(row, cap)} | {bleu(row, best)} | {chrf(row)} | "
                     f"{p_value(row['p_vs_none'], row['seeds_paired_vs_none'])} | {p_best} | {entropy} | {share} | "
                     f"{row['train_tok_per_s']:,.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path, help="a study's results.json")
    parser.add_argument("--cap", type=int, default=6000, help="the study's update cap (--steps)")
    args = parser.parse_args(argv)
    print(table(json.loads(args.results.read_text(encoding="utf-8")), args.cap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
