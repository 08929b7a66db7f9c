"""The tables and figures of an attention study, written from the small result files of finished runs.

Reads only what `translate.compare` keeps per run (compare.json, test.hyp.txt, attention.json), so
the report can be rebuilt on a machine without any weights.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.config import RunConfig
from translate.data.corpus import load_eval_split
from translate.metrics import paired_bootstrap
from translate.plots import BarRow, Heatmap, plot_bleu, plot_curves, plot_heatmaps

BASELINE = "none"


@dataclass
class RunFigures:
    """What one finished run contributes to the study (kept as compare.json in its results folder)."""

    mechanism: str
    seed: int
    parameters: int
    steps: int
    train_tokens_per_second: float
    decode_sentences_per_second: float
    dev_bleu: float
    test_bleu: float
    test_chrf: float
    attention_entropy: float | None
    curve: list[tuple[float, float]]  # (update, dev BLEU) at each validation
    attention_argmax_share: float | None = None
    minutes: float | None = None  # training wall time, validation included
    best_step: int | None = None
    stop_reason: str = ""

    @classmethod
    def load(cls, path: Path) -> RunFigures:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["curve"] = [tuple(p) for p in data["curve"]]
        return cls(**data)


def _mean_std(values: list[float]) -> tuple[float, float | None]:
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else None)


def _p_values(figures: list[RunFigures], order: list[str], reference: str, out_dir: Path, refs: list[str],
              tgt_lang: str) -> tuple[dict[tuple[str, int], Any], str]:
    """Paired bootstrap of every run against the run of `reference` with the same seed."""
    results: dict[tuple[str, int], Any] = {}
    signature = ""
    for seed in sorted({f.seed for f in figures}):
        names = [n for n in order if any(f.mechanism == n and f.seed == seed for f in figures)]
        if reference not in names or len(names) < 2:
            continue
        names = [reference] + [n for n in names if n != reference]
        systems = [(n, (out_dir / "runs" / f"{n}-seed{seed}" / "test.hyp.txt").read_text(encoding="utf-8").splitlines())
                   for n in names]
        paired, signature = paired_bootstrap(systems, refs, tgt_lang)
        results.update({(p.name, seed): p for p in paired})
    return results, signature


def _row(name: str, runs: list[RunFigures], vs_none: dict[tuple[str, int], Any], vs_best: dict[tuple[str, int], Any],
         best: str) -> dict[str, Any]:
    first = runs[0]
    bleu, bleu_std = _mean_std([f.test_bleu for f in runs])
    chrf, chrf_std = _mean_std([f.test_chrf for f in runs])
    p_none, p_best = vs_none.get((name, first.seed)), vs_best.get((name, first.seed))

    def rounded(value: float | None, digits: int = 2) -> float | None:
        return None if value is None else round(value, digits)

    return {
        "mechanism": name, "seeds": len(runs), "parameters": first.parameters,
        "steps_mean": round(statistics.mean(f.steps for f in runs)),
        "minutes_mean": rounded(statistics.mean(f.minutes for f in runs) if all(f.minutes for f in runs) else None, 1),
        "train_tok_per_s": first.train_tokens_per_second, "decode_sent_per_s": first.decode_sentences_per_second,
        "dev_bleu_mean": rounded(statistics.mean(f.dev_bleu for f in runs)),
        "test_bleu_mean": rounded(bleu), "test_bleu_std": rounded(bleu_std),
        "test_chrf_mean": rounded(chrf), "test_chrf_std": rounded(chrf_std),
        "test_bleu_seed1": first.test_bleu, "test_bleu_ci95": rounded(p_none.ci if p_none else (p_best.ci if p_best else None)),
        "p_vs_none": None if p_none is None or p_none.p_value is None else round(p_none.p_value, 4),
        "p_vs_best": None if name == best or p_best is None or p_best.p_value is None else round(p_best.p_value, 4),
        "attention_entropy": rounded(first.attention_entropy, 3),
        "attention_argmax_share": rounded(first.attention_argmax_share, 3),
    }


def write_report(base: RunConfig, figures: list[RunFigures], out_dir: Path) -> None:
    """results.md/.csv/.json, bleu.png, dev_bleu_curves.png and heatmaps.png from the finished runs."""
    names = list(dict.fromkeys(f.mechanism for f in figures))
    order = ([BASELINE] if BASELINE in names else []) + [n for n in names if n != BASELINE]
    by_name = {n: [f for f in figures if f.mechanism == n] for n in order}
    best = max(order, key=lambda n: statistics.mean(f.test_bleu for f in by_name[n]))
    refs = load_eval_split(base.data, "test")[1]
    vs_none, signature = _p_values(figures, order, BASELINE, out_dir, refs, base.data.tgt_lang)
    vs_best, signature_best = _p_values(figures, order, best, out_dir, refs, base.data.tgt_lang)
    rows = [_row(n, by_name[n], vs_none, vs_best, best) for n in order]
    signature = signature or signature_best
    (out_dir / "results.json").write_text(json.dumps({"rows": rows, "best": best, "bootstrap_signature": signature,
                                                      "runs": [dataclasses.asdict(f) for f in figures]},
                                                     indent=1), encoding="utf-8")
    with open(out_dir / "results.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (out_dir / "results.md").write_text(markdown(rows, best, signature), encoding="utf-8")
    plot_bleu([BarRow(r["mechanism"], r["test_bleu_mean"], r["test_bleu_std"] or r["test_bleu_ci95"] or 0.0)
               for r in rows], out_dir / "bleu.png",
              f"{base.data.direction}, test BLEU by attention mechanism (mean over seeds; bars: std, or 95 % CI for one seed)")
    plot_curves({n: by_name[n][0].curve for n in order}, out_dir / "dev_bleu_curves.png")
    grid = heatmap_grid({n: out_dir / "runs" / f"{n}-seed{by_name[n][0].seed}" for n in order})
    if grid:
        plot_heatmaps(grid, out_dir / "heatmaps.png")


def heatmap_grid(results: dict[str, Path]) -> list[list[Heatmap]]:
    """Rows: the chosen test sentences; columns: mechanisms with attention (from attention.json)."""
    grid: list[list[Heatmap]] = []
    for name, folder in results.items():
        path = folder / "attention.json"
        if not path.is_file():
            continue
        for row, record in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            while len(grid) <= row:
                grid.append([])
            grid[row].append(Heatmap(name, record["weights"], record["source_pieces"], record["target_pieces"]))
    return grid


def _cell(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "–"
    return f"{mean:.2f} ± {std:.2f}" if std is not None else f"{mean:.2f}"


def markdown(rows: list[dict[str, Any]], best: str, signature: str) -> str:
    head = ("| mechanism | seeds | params | updates (mean) | minutes (mean) | train tgt tok/s | decode sent/s | "
            "test BLEU mean ± std | 95 % CI (seed 1) | test chrF mean ± std | p vs none | p vs best | "
            "attn entropy | weight on argmax |\n|" + "---|" * 14 + "\n")
    lines = []
    for r in rows:
        ci = "–" if r["test_bleu_ci95"] is None else f"± {r['test_bleu_ci95']:.2f}"
        p_none = "–" if r["p_vs_none"] is None else f"{r['p_vs_none']:.4f}"
        p_best = "(best)" if r["mechanism"] == best else ("–" if r["p_vs_best"] is None else f"{r['p_vs_best']:.4f}")
        minutes = "–" if r["minutes_mean"] is None else f"{r['minutes_mean']:.1f}"
        lines.append(
            f"| {r['mechanism']} | {r['seeds']} | {r['parameters']:,} | {r['steps_mean']:,} | {minutes} | "
            f"{r['train_tok_per_s']:,.0f} | {r['decode_sent_per_s']:.0f} | {_cell(r['test_bleu_mean'], r['test_bleu_std'])} | "
            f"{ci} | {_cell(r['test_chrf_mean'], r['test_chrf_std'])} | {p_none} | {p_best} | "
            f"{_cell(r['attention_entropy'], None)} | {_cell(r['attention_argmax_share'], None)} |")
    note = (f"\nPaired bootstrap (seed 1 of each mechanism against seed 1 of `none` and of the best, {best}): "
            f"sacrebleu `{signature}`. Entropy (nats) and weight on the argmax position: teacher-forced dev "
            f"references, mean over target tokens.\n") if signature else ""
    return head + "\n".join(lines) + "\n" + note
