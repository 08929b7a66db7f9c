"""A decision's record as docs/results/decisions.md shows it: both sides' BLEU and defect counts and their
differences, read from the verdict's JSON (`translate decide -o VERDICT.json` writes it beside, as
VERDICT.md), so that the table says what the verdict says."""

from __future__ import annotations

from typing import Any

from translate.release.rule import DEFECTS, NAMES, QUANTITIES, _key


def _p(p: float) -> str:
    return f"p {p:.3f}" if p >= 0.001 else "p < 0.001"


def _difference(comparison: dict[str, Any]) -> str:
    return (f"{comparison['delta']:+.2f} [{comparison['ci_low']:+.2f}, {comparison['ci_high']:+.2f}], "
            f"{_p(comparison['p_value'])}")


def verdict_table(verdict: dict[str, Any], against: str = "released", candidate: str = "candidate") -> str:
    """The markdown table and verdict line of one decision (`verdict`: the JSON `translate decide` writes;
    `against`, `candidate`: how the rows name the two sides)."""
    defects = [(name, _key(name)) for name in (*DEFECTS, QUANTITIES, NAMES) if _key(name) in verdict]
    sentences = len(verdict["candidate"]["decision"][0]) if verdict.get("candidate") else verdict[defects[0][1]]["sentences"]
    split, test = verdict["decision_split"], verdict["tatoeba_test"]
    lines = [f"| | decision split ({sentences:,}) BLEU | Tatoeba test BLEU | " + " | ".join(n for n, _ in defects) + " |",
             "|---" * (3 + len(defects)) + "|",
             f"| {against} | {split['mean_b']:.2f} | {test['mean_b']:.2f} | "
             + " | ".join(str(verdict[key]["against"]) for _, key in defects) + " |",
             f"| {candidate} | {split['mean_a']:.2f} | {test['mean_a']:.2f} | "
             + " | ".join(str(verdict[key]["candidate"]) for _, key in defects) + " |",
             "| difference, 95 % interval, p; McNemar on the sentences where one side only has the defect | "
             f"{_difference(split)} | {_difference(test)} | "
             + " | ".join(f"{verdict[key]['candidate_only']} : {verdict[key]['against_only']}, {_p(verdict[key]['p_value'])}"
                          for _, key in defects) + " |",
             "",
             "Verdict: " + ("ships" if verdict["ships"] else "does not ship: " + "; ".join(verdict["reasons"]))
             + f" (tests for being better: {', '.join(verdict['tests_for_better'])}; Holm over {verdict['holm_family']})."]
    return "\n".join(lines) + "\n"
