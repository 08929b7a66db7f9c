"""Fair tuning for a study (`translate compare --sweep KEY=V1,V2,...`): every mechanism is trained on every
combination of the swept values with the study's first seed, scored on **dev** only, and its best
combination is the one all its seeds train with. The test split is read only for the final table.

Each sweep run leaves `<out>/sweep/<mechanism>~<values>-seed<n>/sweep.json` (its dev BLEU, curve and
values) and its dev hypotheses; `<out>/sweep.json` and `sweep.md` hold the dev table and the choices.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from translate.config.loading import apply_overrides
from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.study.budget import edges, expected_best_curve

SWEEP_DIR = "sweep"
Combination = tuple[tuple[str, str], ...]  # ((key, value), ...) in the order the keys were given


def parse_sweep(specs: list[str], base: RunConfig) -> dict[str, list[str]]:
    """["train.learning_rate=5e-4,1e-3", ...] -> {key: values}; every value is checked against the config."""
    sweep: dict[str, list[str]] = {}
    for spec in specs:
        key, sep, values = spec.partition("=")
        choices = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key.strip() or not choices:
            raise ConfigError(f"--sweep '{spec}': expected KEY=V1,V2,... (e.g. train.learning_rate=5e-4,1e-3)")
        key = key.strip()
        if key in sweep:
            raise ConfigError(f"--sweep: {key} is given twice")
        if key in ("train.seed", "name", "runs_dir"):
            raise ConfigError(f"--sweep: {key} is set by the study itself")
        for value in choices:
            apply_overrides(base, {key: value})  # an unknown key or a bad value names itself here
        sweep[key] = choices
    return sweep


def combinations(sweep: dict[str, list[str]]) -> list[Combination]:
    return [tuple(zip(sweep, values)) for values in itertools.product(*sweep.values())]


def label(combination: Combination) -> str:
    """A readable, file-safe name of the values: "learning_rate=0.001,dropout=0.2" (the keys' last part,
    or the whole key where two last parts would be the same)."""
    tails = [key.rsplit(".", 1)[-1] for key, _ in combination]
    return ",".join(f"{tail if tails.count(tail) == 1 else key}={value}"
                    for tail, (key, value) in zip(tails, combination))


def run_name(mechanism: str, combination: Combination, seed: int) -> str:
    return f"{mechanism}~{label(combination)}-seed{seed}" if combination else f"{mechanism}-seed{seed}"


def read_records(out_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted((out_dir / SWEEP_DIR).glob("*/sweep.json"))]


def choose(records: list[dict[str, Any]], sweep: dict[str, list[str]]) -> dict[str, Combination]:
    """Each mechanism's combination with the best dev BLEU among its finished sweep runs (a tie goes to the
    combination listed first). Only dev counts: a record's other scores, if any, are never read."""
    order = {combination: i for i, combination in enumerate(combinations(sweep))}
    best: dict[str, tuple[float, int, Combination]] = {}
    for record in records:
        combination: Combination = tuple((k, str(v)) for k, v in record["values"])
        if combination not in order:
            continue  # a run of another sweep in the same folder
        key = (float(record["dev_bleu"]), -order[combination], combination)
        if record["mechanism"] not in best or key[:2] > best[record["mechanism"]][:2]:
            best[record["mechanism"]] = key
    return {mechanism: entry[2] for mechanism, entry in best.items()}


def write_sweep_report(out_dir: Path, mechanisms: list[str], sweep: dict[str, list[str]]) -> dict[str, Combination]:
    """sweep.json and sweep.md from the finished sweep runs; returns each mechanism's choice."""
    records = read_records(out_dir)
    chosen = choose(records, sweep)
    labels = [label(c) for c in combinations(sweep)]
    table: dict[str, dict[str, float]] = {}
    for record in records:
        table.setdefault(record["mechanism"], {})[label(tuple((k, str(v)) for k, v in record["values"]))] = record["dev_bleu"]
    names = [m for m in mechanisms if m in table] + sorted(set(table) - set(mechanisms))
    curves = {m: [round(v, 2) for v in expected_best_curve(list(table[m].values()))] for m in names}
    at_edge = {m: edges(dict(chosen[m]), sweep) for m in names if m in chosen}
    (out_dir / "sweep.json").write_text(json.dumps({
        "keys": list(sweep), "searched": sweep, "combinations": labels, "dev_bleu": {m: table[m] for m in names},
        "chosen": {m: dict(chosen[m]) for m in names if m in chosen}, "expected_best": curves,
        "at_edge": {m: sides for m, sides in at_edge.items() if sides}}, indent=1) + "\n", encoding="utf-8")
    lines = [("Tuned on dev (seed of the sweep; dev BLEU, beam of the study's decoding settings; the best of each "
             "row, in bold, is what every seed of that mechanism trains with):"), "",
             "| mechanism | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for m in names:
        cells = [("–" if lab not in table[m] else f"**{table[m][lab]:.2f}**" if m in chosen and label(chosen[m]) == lab
                  else f"{table[m][lab]:.2f}") for lab in labels]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += budget_lines(curves, names, at_edge)
    (out_dir / "sweep.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return chosen


def budget_lines(curves: dict[str, list[float]], names: list[str], at_edge: dict[str, dict[str, str]],
                 at_end: dict[str, dict[str, str]] | None = None) -> list[str]:
    """The report's expected-best table (one row per mechanism in `names`) and its note on edges."""
    width = max((len(c) for c in curves.values()), default=0)
    lines = ["", ("Expected best dev BLEU after n trials (Dodge et al. 2019: the best of n trials drawn from those "
                  "run; a curve still rising at its end says more trials would have paid):"), "",
             "| mechanism | " + " | ".join(f"n = {n}" for n in range(1, width + 1)) + " |", "|---|" + "---|" * width]
    lines += [f"| {m} | " + " | ".join(f"{v:.2f}" for v in curves[m]) + " |" for m in names]
    return [*lines, "", edge_note(at_edge, at_end)]


def edge_note(at_edge: dict[str, dict[str, str]], at_end: dict[str, dict[str, str]] | None = None) -> str:
    """The note on the choices at an edge of their searched range: those to widen (`at_edge`) and those
    at the end of what the configuration accepts (`at_end`, e.g. dropout 0), where nothing lies beyond."""
    def ends(sides: dict[str, str]) -> str:
        return ", ".join(f"{key.rsplit('.', 1)[-1]} at the {side} end" for key, side in sides.items())

    marked = [f"{m} ({ends(sides)})" for m, sides in at_edge.items() if sides]
    closed = [f"{m} ({ends(sides)})" for m, sides in (at_end or {}).items() if sides]
    beyond = (f" At the end of what the configuration accepts, where nothing lies beyond: {'; '.join(closed)}."
              if closed else "")
    if not marked:
        return ("No choice lies at an edge that can be widened." if closed
                else "No choice lies at an edge of its searched range.") + beyond
    return (f"At an edge of the searched range, where the best may lie beyond it: {'; '.join(marked)}. Widen the "
            "range before calling these mechanisms tuned." + beyond)


def searched_values(data: dict[str, Any]) -> dict[str, list[str]]:
    """The values searched per key, from sweep.json (read back from its combinations where it predates
    "searched")."""
    if "searched" in data:
        return {k: list(v) for k, v in data["searched"].items()}
    found: dict[str, list[str]] = {key: [] for key in data["keys"]}
    for combination in data["combinations"]:
        for key, part in zip(data["keys"], combination.split(",")):
            value = part.split("=", 1)[1]
            if value not in found[key]:
                found[key].append(value)
    return found


def chosen_values(out_dir: Path) -> dict[str, Combination]:
    """What a swept study's mechanisms trained with (sweep.json), for retraining its runs ({} without a sweep)."""
    path = out_dir / "sweep.json"
    if not path.is_file():
        return {}
    chosen = json.loads(path.read_text(encoding="utf-8"))["chosen"]
    return {mechanism: tuple((k, str(v)) for k, v in values.items()) for mechanism, values in chosen.items()}


def sweep_markdown(out_dir: Path) -> str:
    """The chosen values, for results.md ("" for a study without a sweep); a value at an edge of its
    searched range is marked."""
    path = out_dir / "sweep.json"
    if not path.is_file():
        return ""
    data = json.loads(path.read_text(encoding="utf-8"))
    searched = searched_values(data)
    at_edge = {m: edges(values, searched) for m, values in data["chosen"].items()}
    lines = ["", (f"Each mechanism tuned on dev over {', '.join(data['keys'])} (the dev table: sweep.md); the values "
             "its seeds trained with:"), "", "| mechanism | " + " | ".join(data["keys"]) + " | dev BLEU |",
             "|---|" + "---|" * (len(data["keys"]) + 1)]
    for mechanism, values in data["chosen"].items():
        dev = data["dev_bleu"][mechanism][label(tuple((k, str(v)) for k, v in values.items()))]
        cells = [str(values[k]) + (f" ({at_edge[mechanism][k]} edge)" if k in at_edge[mechanism] else "") for k in data["keys"]]
        lines.append(f"| {mechanism} | " + " | ".join(cells) + f" | {dev:.2f} |")
    return "\n".join(lines) + "\n\n" + edge_note(at_edge) + "\n"
