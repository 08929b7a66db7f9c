"""The tables and figures of an attention study, written from the small result files of finished runs.

Reads only what `translate.study.compare` keeps per run (compare.json, test.hyp.txt, attention.json), so
the report can be rebuilt on a machine without any weights. Where a run's hypotheses are not at hand,
the figures that need them are carried over from the results.json written when they were.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import logging
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.config.schema import RunConfig
from translate.data.corpus import load_eval_split
from translate.errors import ConfigError
from translate.evaluation.by_length import Bucket, bleu_by_length, by_length_markdown, length_buckets
from translate.evaluation.metrics import paired_bootstrap
from translate.evaluation.significance import Comparison, compare_runs, holm
from translate.study.plan import plan_markdown, read_plan
from translate.study.plots import BarRow, Heatmap, plot_bleu, plot_by_length, plot_curves, plot_heatmaps
from translate.study.sweep import sweep_markdown
from translate.study.tables import (
    SIGNIFICANT,
    adequacy_markdown,
    corrected,
    markdown,
    marked_name,
    pairs_markdown,
    with_column_holm,
)

logger = logging.getLogger(__name__)

BASELINE = "none"
WIDEST = 6  # mechanisms side by side in heatmaps.png before the grid turns
QUESTIONS_FILE = "questions.tsv"  # in a study's folder: the pairs it asks about (a<TAB>b<TAB>what A vs B isolates)


def read_questions(out_dir: Path) -> list[tuple[str, str, str]]:
    """The pairs a study declares in its folder (none without the file); a pair is reported once both
    mechanisms have finished runs with a seed in common. Errors name the file and line."""
    path = out_dir / QUESTIONS_FILE
    if not path.is_file():
        return []
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not all(f.strip() for f in fields) or fields[0] == fields[1]:
            raise ConfigError(f"{path}:{number}: expected mechanism A<TAB>mechanism B<TAB>what A vs B isolates, "
                              f"A and B different; found {line[:80]!r}")
        a, b, question = (f.strip() for f in fields)
        pairs.append((a, b, question))
    return pairs


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
    machine: str = ""  # where it was trained (translate.machine.describe); "" in runs older than the field
    # dropped and repeated content on test (translate.evaluation.adequacy.Adequacy.to_dict); None in older runs
    adequacy: dict[str, Any] | None = None
    values: dict[str, str] | None = None  # what a sweep chose and the run trained with (None: no sweep, or older)

    def record(self) -> dict[str, Any]:
        """As compare.json and results.json hold it (without `machine`, `adequacy` or `values` where they are
        not known)."""
        data = dataclasses.asdict(self)
        for key in ("machine", "adequacy", "values"):
            if not data[key]:
                del data[key]
        return data

    @classmethod
    def load(cls, path: Path) -> RunFigures:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["curve"] = [tuple(p) for p in data["curve"]]
        return cls(**data)


def converged(run: RunFigures) -> bool:
    """Whether patience stopped the run (no dev BLEU gain in train.patience validations): the update cap,
    the time budget and a signal are safety nets, not convergence, and a run that records no reason (older
    than `stop_reason`) is not known to have converged."""
    return run.stop_reason.startswith("early stopping")


def _mean_std(values: list[float]) -> tuple[float, float | None]:
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else None)


def _hypotheses(out_dir: Path, name: str, seed: int) -> list[str]:
    return (out_dir / "runs" / f"{name}-seed{seed}" / "test.hyp.txt").read_text(encoding="utf-8").splitlines()


def _intervals(figures: list[RunFigures], out_dir: Path, refs: list[str], tgt_lang: str) -> tuple[dict[str, float], str]:
    """The 95 % paired-bootstrap interval of each mechanism's first seed (sacrebleu), and the signature."""
    first: dict[str, RunFigures] = {}
    for f in sorted(figures, key=lambda f: f.seed):
        first.setdefault(f.mechanism, f)
    systems = [(name, _hypotheses(out_dir, name, f.seed)) for name, f in first.items()]
    if len(systems) < 2:  # sacrebleu's test needs a baseline and one system
        return {}, ""
    paired, signature = paired_bootstrap(systems, refs, tgt_lang)
    return {p.name: p.ci for p in paired}, signature


def _significance(by_name: dict[str, list[RunFigures]], reference: str, out_dir: Path, refs: list[str],
                  tgt_lang: str) -> dict[str, Comparison]:
    """Every mechanism against `reference`, over all the seeds of each (`significance.compare_runs`)."""
    return {name: compare_runs([_hypotheses(out_dir, name, f.seed) for f in runs],
                               [_hypotheses(out_dir, reference, f.seed) for f in by_name[reference]], refs, tgt_lang,
                               aso=False)
            for name, runs in by_name.items() if name != reference and reference in by_name}


def _pair(a: str, b: str, question: str, seeds: list[int], out_dir: Path, refs: list[str], tgt_lang: str) -> dict[str, Any]:
    """One pair the study asks about: A's runs against B's, with `seeds` the seeds each side has (the
    seed-and-sentence test; ASO over the seeds' BLEU)."""
    result = compare_runs([_hypotheses(out_dir, a, s) for s in seeds], [_hypotheses(out_dir, b, s) for s in seeds],
                          refs, tgt_lang)
    return {"a": a, "b": b, "question": question, "seeds": seeds, "bleu_a": round(result.mean_a, 2),
            "bleu_b": round(result.mean_b, 2), **_test_fields(result)}


def _test_fields(result: Comparison) -> dict[str, Any]:
    return {"delta": round(result.delta, 2), "ci95": [round(result.ci_low, 2), round(result.ci_high, 2)],
            "p_value": round(result.p_value, 4), "resolved": result.resolved,
            "seed_variance_measured": result.seed_variance_measured, "seeds_needed": result.seeds_needed,
            "aso_eps_min": None if result.aso_eps_min is None else round(result.aso_eps_min, 3),
            "verdict": result.verdict, "margin": result.margin,
            "equivalence_p": None if result.equivalence_p is None else round(result.equivalence_p, 4)}


def _questions(by_name: dict[str, list[RunFigures]], out_dir: Path, refs: list[str], tgt_lang: str) -> list[dict[str, Any]]:
    """The study's declared pairs (`read_questions`) that have finished runs on both sides, over the seeds
    both have; their p-values corrected together (Holm)."""
    pairs = []
    sequential = (read_plan(out_dir) or {}).get("plan", {}).get("until_resolved")
    for a, b, question in read_questions(out_dir):
        seeds = sorted({f.seed for f in by_name.get(a, [])} & {f.seed for f in by_name.get(b, [])})
        if seeds:
            pair = _pair(a, b, question, seeds, out_dir, refs, tgt_lang)
            if sequential:  # looks taken: the planned one, then one per seed added
                pair["looks"] = max(1, len(seeds) - int(sequential["planned_seeds"]) + 1)
            pairs.append(pair)
    return with_holm(pairs, float(sequential["alpha_per_look"]) if sequential else SIGNIFICANT)


def with_holm(pairs: list[dict[str, Any]], alpha: float = SIGNIFICANT) -> list[dict[str, Any]]:
    """Each pair with `p_holm`: its p-value corrected for the number of pairs asked (Holm-Bonferroni);
    a pair counts as decided when its interval excludes zero and its corrected p is below `alpha`
    (SIGNIFICANT, or the level of each look of a study that adds seeds: `translate.study.looks`)."""
    tested = [i for i, p in enumerate(pairs) if p.get("p_value") is not None]
    adjusted = holm([pairs[i]["p_value"] for i in tested])
    out = [dict(p, p_holm=None) for p in pairs]
    for i, value in zip(tested, adjusted):
        out[i] = corrected(out[i], value, alpha)
    return out


CARRIED = ("test_bleu_ci95", "p_vs_none", "seeds_paired_vs_none", "p_vs_best", "seeds_paired_vs_best",
           "vs_none", "vs_best")


def _carried(out_dir: Path, figures: list[RunFigures], by_name: dict[str, list[RunFigures]], best: str,
             missing: list[str], refs: list[str], buckets: list[Bucket],
             tgt_lang: str) -> tuple[list[dict[str, Any]], str, list[dict[str, Any]], dict[str, list[float]]]:
    """Rows, signature, pairs and BLEU by length when some runs' test hypotheses are not at hand.

    What needs hypotheses (intervals, p-values, BLEU by length) is taken from the results.json that
    was written when they were, provided it covers exactly the same runs; the rest comes from the
    runs' compare.json as usual. A run whose compare.json differs from the one results.json holds was
    measured again: its BLEU by length comes from its hypotheses; its row's intervals and p-values are left
    empty (they need the hypotheses of the runs it is compared with); its pairs are computed again where
    both sides' hypotheses are at hand, else they keep their BLEU but no p-value. If the best mechanism
    changed with it, no row keeps its p-value against the best."""
    path = out_dir / "results.json"
    previous = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    had = {(r["mechanism"], r["seed"]): r for r in previous.get("runs", [])}
    if set(had) != {(f.mechanism, f.seed) for f in figures}:
        raise ConfigError(f"test.hyp.txt missing in {out_dir / 'runs'} for {', '.join(missing[:5])}"
                          f"{' ...' if len(missing) > 5 else ''}: intervals and p-values need every run's test "
                          f"hypotheses, and {path.name} does not hold figures for exactly these runs")
    again = {f.mechanism for f in figures if json.loads(json.dumps(f.record())) != had[(f.mechanism, f.seed)]}
    kept = {r["mechanism"]: r for r in previous["rows"]}
    carried = CARRIED if best == previous["best"] else tuple(k for k in CARRIED if not k.endswith("vs_best"))
    rows = [{**_row(n, runs, None, None, None), **({} if n in again else {k: kept[n][k] for k in carried})}
            for n, runs in by_name.items()]
    pairs = []
    for pair in previous["pairs"]:
        at_hand = all(f"{name}-seed{seed}" not in missing for name in (pair["a"], pair["b"]) for seed in pair["seeds"])
        if (pair["a"] in again or pair["b"] in again) and at_hand:
            pair = _pair(pair["a"], pair["b"], pair["question"], pair["seeds"], out_dir, refs, tgt_lang)
        elif pair["a"] in again or pair["b"] in again:
            a, b = ([f.test_bleu for f in by_name[name] if f.seed in pair["seeds"]] for name in (pair["a"], pair["b"]))
            pair = {**pair, "bleu_a": round(statistics.mean(a), 2), "bleu_b": round(statistics.mean(b), 2), "p_value": None}
        pairs.append(pair)
    pairs = with_holm(pairs)
    by_length = dict(previous["bleu_by_length"]["bleu"])
    for name in again:
        if all(f"{name}-seed{f.seed}" not in missing for f in by_name[name]):
            by_length[name] = bleu_by_length([_hypotheses(out_dir, name, f.seed) for f in by_name[name]], refs,
                                             buckets, tgt_lang)
        else:
            by_length.pop(name, None)
    return rows, previous["bootstrap_signature"], pairs, by_length


def _row(name: str, runs: list[RunFigures], ci: float | None, vs_none: Comparison | None,
         vs_best: Comparison | None) -> dict[str, Any]:
    first = runs[0]
    bleu, bleu_std = _mean_std([f.test_bleu for f in runs])
    chrf, chrf_std = _mean_std([f.test_chrf for f in runs])

    def rounded(value: float | None, digits: int = 2) -> float | None:
        return None if value is None else round(value, digits)

    def mean_of(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return statistics.mean(known) if known and len(known) == len(values) else None

    adequacy = {} if not all(f.adequacy for f in runs) else {
        f"test_{key}": rounded(statistics.mean(f.adequacy[key] for f in runs if f.adequacy), 2)
        for key in ADEQUACY if all(f.adequacy and f.adequacy.get(key) is not None for f in runs)}
    return {
        "mechanism": name, "seeds": len(runs), "parameters": first.parameters,
        "steps_mean": round(statistics.mean(f.steps for f in runs)),
        "minutes_mean": rounded(mean_of([f.minutes for f in runs]), 1),
        "train_tok_per_s": first.train_tokens_per_second, "decode_sent_per_s": first.decode_sentences_per_second,
        "dev_bleu_mean": rounded(statistics.mean(f.dev_bleu for f in runs)),
        "test_bleu_mean": rounded(bleu), "test_bleu_std": rounded(bleu_std),
        "test_chrf_mean": rounded(chrf), "test_chrf_std": rounded(chrf_std),
        "test_bleu_seed1": first.test_bleu, "test_bleu_ci95": rounded(ci),
        "p_vs_none": None if vs_none is None else round(vs_none.p_value, 4),
        "seeds_paired_vs_none": None if vs_none is None else min(vs_none.seeds_a, vs_none.seeds_b),
        "p_vs_best": None if vs_best is None else round(vs_best.p_value, 4),
        "seeds_paired_vs_best": None if vs_best is None else min(vs_best.seeds_a, vs_best.seeds_b),
        "vs_none": None if vs_none is None else _test_fields(vs_none),
        "vs_best": None if vs_best is None else _test_fields(vs_best),
        "converged_runs": sum(converged(f) for f in runs),
        "attention_entropy": rounded(mean_of([f.attention_entropy for f in runs]), 3),
        "attention_argmax_share": rounded(mean_of([f.attention_argmax_share for f in runs]), 3),
        **adequacy,
    }


ADEQUACY = ("repeats_per_100", "reference_repeats_per_100", "unattended", "dictionary_missing")


def write_report(base: RunConfig, figures: list[RunFigures], out_dir: Path,
                 other_sizes: frozenset[str] = frozenset()) -> None:
    """results.md/.csv/.json, bleu.png, dev_bleu_curves.png, bleu_by_length.png and heatmaps.png from the finished runs.

    `other_sizes`: mechanisms whose model is another size than the study's (the √d check at width 512);
    "best", the reference of the "p vs best" column, is chosen among the others."""
    names = list(dict.fromkeys(f.mechanism for f in figures))
    order = ([BASELINE] if BASELINE in names else []) + [n for n in names if n != BASELINE]
    by_name = {n: sorted((f for f in figures if f.mechanism == n), key=lambda f: f.seed) for n in order}
    best = max([n for n in order if n not in other_sizes] or order,
               key=lambda n: statistics.mean(f.test_bleu for f in by_name[n]))
    sources, refs = load_eval_split(base.data, "test")
    buckets, unit = length_buckets(sources, base.data.src_lang), "characters" if base.data.src_lang == "zh" else "words"
    missing = [f"{f.mechanism}-seed{f.seed}" for f in figures
               if not (out_dir / "runs" / f"{f.mechanism}-seed{f.seed}" / "test.hyp.txt").is_file()]
    if missing:
        rows, signature, pairs, by_length = _carried(out_dir, figures, by_name, best, missing, refs, buckets,
                                                     base.data.tgt_lang)
    else:
        intervals, signature = _intervals(figures, out_dir, refs, base.data.tgt_lang)
        vs_none = _significance(by_name, BASELINE, out_dir, refs, base.data.tgt_lang)
        vs_best = _significance(by_name, best, out_dir, refs, base.data.tgt_lang)
        rows = with_column_holm([_row(n, by_name[n], intervals.get(n), vs_none.get(n), vs_best.get(n)) for n in order])
        pairs = _questions(by_name, out_dir, refs, base.data.tgt_lang)
        by_length = {n: bleu_by_length([_hypotheses(out_dir, n, f.seed) for f in by_name[n]], refs, buckets,
                                       base.data.tgt_lang) for n in order}
    plan = read_plan(out_dir)
    (out_dir / "results.json").write_text(json.dumps({"rows": rows, "best": best, "bootstrap_signature": signature,
                                                      **({"plan_hash": plan["hash"]} if plan else {}),
                                                      "pairs": pairs, "bleu_by_length": {
                                                          "unit": unit, "groups": [{"label": b.label, "sentences": len(b.indices)}
                                                                                   for b in buckets],
                                                          "bleu": by_length},
                                                      "runs": [f.record() for f in figures]},
                                                     indent=1), encoding="utf-8")
    with open(out_dir / "results.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(dict.fromkeys(key for row in rows for key in row)))
        writer.writeheader()
        writer.writerows(rows)
    marked = {r["mechanism"]: marked_name(r) for r in rows}  # † on the runs not converged, in every table
    (out_dir / "results.md").write_text(markdown(rows, best, signature) + adequacy_markdown(rows)
                                        + plan_markdown(out_dir)
                                        + sweep_markdown(out_dir) + pairs_markdown(pairs, marked)
                                        + by_length_markdown(buckets, {marked.get(n, n): v for n, v in by_length.items()},
                                                             unit), encoding="utf-8")
    plot_bleu([BarRow(marked_name(r), r["test_bleu_mean"], r["test_bleu_std"] or r["test_bleu_ci95"] or 0.0)
               for r in rows], out_dir / "bleu.png",
              f"{base.data.direction}, test BLEU by attention mechanism (mean over seeds; bars: std, or 95 % CI for one seed)")
    plot_curves({n + ("" if converged(by_name[n][0]) else " (not converged)"): by_name[n][0].curve for n in order},
                out_dir / "dev_bleu_curves.png")
    plot_by_length([b.label for b in buckets], by_length, out_dir / "bleu_by_length.png", unit)
    _draw_heatmaps({n: by_name[n][0] for n in order}, out_dir)


def lacking_files(run: RunFigures, folder: Path) -> list[str]:
    """What the report reads of a finished run and its folder lacks: test.hyp.txt, and attention.json
    for a mechanism with attention."""
    needed = ("test.hyp.txt", "attention.json") if run.attention_entropy is not None else ("test.hyp.txt",)
    return [name for name in needed if not (folder / name).is_file()]


def _draw_heatmaps(first: dict[str, RunFigures], out_dir: Path) -> None:
    """heatmaps.png from each mechanism's first seed; left as it is while one of them lacks its matrices
    (a figure short of some mechanisms would replace the complete one drawn when they were at hand)."""
    folders = {n: out_dir / "runs" / f"{n}-seed{f.seed}" for n, f in first.items()}
    lacking = [folders[n].name for n, f in first.items() if "attention.json" in lacking_files(f, folders[n])]
    if lacking:
        logger.warning("heatmaps.png not redrawn: attention.json missing in %s for %s%s", out_dir / "runs",
                       ", ".join(lacking[:5]), " ..." if len(lacking) > 5 else "")
        return
    grid = heatmap_grid(folders)
    if grid:  # rows are sentences; with many mechanisms, one row per mechanism reads better than a wide strip
        plot_heatmaps(grid if len(grid[0]) <= WIDEST else [list(column) for column in zip(*grid)],
                      out_dir / "heatmaps.png")


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
