"""The markdown tables of an attention study's report: the mechanisms' table, dropped and repeated
content, and the pairs asked about. Pure functions of the rows and pairs that `translate.study.report`
computes; a test is shown as A - B with its 95 % interval, p-value, Holm correction and verdict."""

from __future__ import annotations

from typing import Any

from translate.evaluation.significance import holm

SIGNIFICANT = 0.05  # p-values below are set in bold


def cell(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "–"
    return f"{mean:.2f} ± {std:.2f}" if std is not None else f"{mean:.2f}"


def with_column_holm(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The "vs none" and "vs best" tests of the rows, each column corrected as one family (Holm)."""
    for column in ("vs_none", "vs_best"):
        tested = [r for r in rows if r.get(column)]
        for row, adjusted in zip(tested, holm([r[column]["p_value"] for r in tested])):
            row[column] = corrected(row[column], adjusted)
    return rows


def decided(test: dict[str, Any], p_holm: float, alpha: float = SIGNIFICANT) -> bool:
    """A question is decided when the seeds' variance was measured (2+ seeds a side), the interval
    excludes zero and the corrected p-value is below `alpha` (SIGNIFICANT; lower where the study looks
    more than once: `translate.study.looks`)."""
    return bool(test.get("resolved")) and bool(test.get("seed_variance_measured")) and p_holm < alpha


def corrected(test: dict[str, Any], p_holm: float, alpha: float = SIGNIFICANT) -> dict[str, Any]:
    """A test with its Holm-corrected p, whether that decides it at `alpha`, and its verdict after the
    correction (the test's own verdict is at the uncorrected 5 %: "decided" there may be "not resolved"
    here; below 5 %, "equivalent" too needs its equivalence p below `alpha`)."""
    verdict = test.get("verdict")
    if verdict == "decided" and not decided(test, p_holm, alpha):
        verdict = "not resolved"
    if verdict == "equivalent" and alpha < SIGNIFICANT and not float(test.get("equivalence_p", 1.0)) < alpha:
        verdict = "not resolved"
    return {**test, "p_holm": round(p_holm, 4), "decided": decided(test, p_holm, alpha),
            **({"verdict": verdict} if verdict is not None else {})}


def marked_name(row: dict[str, Any]) -> str:
    """The mechanism, marked † when some of its runs were not converged (not stopped by patience)."""
    return str(row["mechanism"]) + (" †" if row.get("converged_runs", row["seeds"]) < row["seeds"] else "")


def _test_cell(test: dict[str, Any] | None) -> str:
    """A test in a table cell: A − B with its 95 % interval, p (Holm), and the verdict; bold when decided."""
    if not test:
        return "–"
    low, high = test["ci95"]
    holm_p = test.get("p_holm")
    text = (f"{test['delta']:+.2f} [{low:+.2f}, {high:+.2f}], p {test['p_value']:.3f}"
            + ("" if holm_p is None else f" (Holm {holm_p:.3f})"))
    if test.get("decided"):
        return f"**{text}**"
    if not test.get("seed_variance_measured"):
        return text + ", 1 seed: seed variance not measured"
    if test.get("verdict") == "equivalent":
        return text + f", equivalent within ±{test.get('margin', 0.5):g}"
    if not test["resolved"]:
        return text + ", not resolved"
    return text


def _p_cell(p_value: float | None, seeds: int | None) -> str:
    if p_value is None:
        return "–"
    text = f"{p_value:.4f}" + (f" ({seeds} seeds)" if seeds and seeds > 1 else "")
    return f"**{text}**" if p_value < SIGNIFICANT else text


def adequacy_markdown(rows: list[dict[str, Any]]) -> str:
    """Dropped and repeated content on test, for the mechanisms whose runs measured it ("" if none did)."""
    measured = [r for r in rows if "test_repeats_per_100" in r]
    if not measured:
        return ""
    lines = ["", ("Dropped and repeated content on test (mean over seeds; `translate.evaluation.adequacy`): repeated "
                  "n-grams the source does not hold, per 100 sentences (the references' own rate beside it); source "
                  "pieces that received < 0.2 attention in all; CC-CEDICT everyday words of the source whose "
                  "translations are all missing from the output:"), "",
             "| mechanism | repeats / 100 sentences | references | unattended source pieces % | dictionary words missing % |",
             "|---|---|---|---|---|"]
    for r in measured:
        lines.append(f"| {marked_name(r)} | {cell(r.get('test_repeats_per_100'), None)} | "
                     f"{cell(r.get('test_reference_repeats_per_100'), None)} | {cell(r.get('test_unattended'), None)} | "
                     f"{cell(r.get('test_dictionary_missing'), None)} |")
    return "\n".join(lines) + "\n"


def pairs_markdown(pairs: list[dict[str, Any]], marked: dict[str, str] | None = None) -> str:
    """The pairs' table; `marked`: each mechanism's name as the tables show it (with † when not converged)."""
    marked = marked or {}
    if not pairs:
        return ""
    lines = ["", ("Pairs the study asks about (A against B over their common seeds): A − B in test BLEU with its "
                  "95 % interval, the p-value and its Holm correction over the pairs asked, ASO's ε_min over the "
                  "seeds' BLEU (< 0.5: A tends to score above B), and the seeds per side that give 80 % power for "
                  "a difference of this size at the spreads observed (a power analysis; \"cannot\": the test set's "
                  "own part, which more seeds do not shrink, is estimated and too large). Bold: decided (2 or more "
                  "seeds a side, Holm p < 0.05); \"equivalent\": both one-sided tests against the declared margin "
                  "reject."), "",
             "| A | B | what it isolates | seeds | BLEU A | BLEU B | A − B [95 % CI], p (Holm) | ASO ε_min | seeds to resolve |",
             "|" + "---|" * 9]
    if any("looks" in p for p in pairs):  # seeds added until resolved (`translate.study.looks`)
        lines[1] += (" Seeds were added to open questions one look at a time, each look tested at Pocock's level "
                     "for the looks allowed (decided: Holm p below it); the last column counts the looks each took.")
        lines[3], lines[4] = lines[3] + " looks |", lines[4] + "---|"
    for p in pairs:
        test = p if "ci95" in p else None  # pairs of reports older than the interval carry a p-value only
        shown = _test_cell(test) if test else _p_cell(p.get("p_value"), None)
        aso = "–" if p.get("aso_eps_min") is None else f"{p['aso_eps_min']:.2f}"
        needed = ("–" if p.get("seeds_needed") is None else "> 100" if p["seeds_needed"] > 100
                  else str(p["seeds_needed"] or "cannot"))
        lines.append(f"| {marked.get(p['a'], p['a'])} | {marked.get(p['b'], p['b'])} | {p['question']} | {', '.join(map(str, p['seeds']))} | {p['bleu_a']:.2f} | "
                     f"{p['bleu_b']:.2f} | {shown} | {aso} | {needed} |" + (f" {p['looks']} |" if "looks" in p else ""))
    return "\n".join(lines) + "\n"


def markdown(rows: list[dict[str, Any]], best: str, signature: str) -> str:
    head = ("| mechanism | seeds | params | updates (mean) | minutes (mean) | train tgt tok/s | decode sent/s | "
            "test BLEU mean ± std | 95 % CI (first seed) | test chrF mean ± std | vs none: Δ [95 % CI], p | "
            "vs best: Δ [95 % CI], p | attn entropy | weight on argmax |\n|" + "---|" * 14 + "\n")
    lines = []
    for r in rows:
        ci = "–" if r["test_bleu_ci95"] is None else f"± {r['test_bleu_ci95']:.2f}"
        vs_none = _test_cell(r["vs_none"]) if r.get("vs_none") else _p_cell(r["p_vs_none"], r["seeds_paired_vs_none"])
        vs_best = _test_cell(r["vs_best"]) if r.get("vs_best") else _p_cell(r["p_vs_best"], r["seeds_paired_vs_best"])
        minutes = "–" if r["minutes_mean"] is None else f"{r['minutes_mean']:.1f}"
        lines.append(
            f"| {marked_name(r)} | {r['seeds']} | {r['parameters']:,} | {r['steps_mean']:,} | {minutes} | "
            f"{r['train_tok_per_s']:,.0f} | {r['decode_sent_per_s']:.0f} | {cell(r['test_bleu_mean'], r['test_bleu_std'])} | "
            f"{ci} | {cell(r['test_chrf_mean'], r['test_chrf_std'])} | "
            f"{vs_none} | {'(best)' if r['mechanism'] == best else vs_best} | "
            f"{cell(r['attention_entropy'], None)} | {cell(r['attention_argmax_share'], None)} |")
    unconverged = [r for r in rows if r.get("converged_runs", r["seeds"]) < r["seeds"]]
    marks = ("\n† not converged: " + "; ".join(
        f"{r['mechanism']} {r['seeds'] - r['converged_runs']} of {r['seeds']} runs" for r in unconverged)
        + " not stopped by patience (the update cap, the time budget, or no recorded reason): not converged.\n"
        ) if unconverged else ""
    note = (f"\nSignificance: test BLEU against `none` and against the best mechanism at the study's model size "
            f"({best}) by the seed-and-sentence test (`translate.evaluation.significance`): Welch's t on the "
            f"seeds' BLEU with Welch-Satterthwaite degrees of freedom, plus the test set's own part from a "
            f"sentence bootstrap, each seed's sentence noise counted once; Δ is the difference of the means over "
            f"seeds; each column's p-values Holm-corrected together. Bold: decided (the corrected p < "
            f"{SIGNIFICANT}, with 2 or more seeds a side); \"not resolved\": not decided; \"1 seed\": the seeds' "
            f"variance of that side is not measured and the question is never decided. 1,000 resamples; the "
            f"first seed's interval by sacrebleu `{signature}`. Entropy (nats) and weight on the argmax "
            f"position: teacher-forced dev references, mean over target tokens and seeds.\n") if signature else ""
    return head + "\n".join(lines) + "\n" + marks + note
