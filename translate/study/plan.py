"""A study's procedure, fixed before its first run: `plan.json` in the study's folder records the
mechanisms, seeds, declared questions, the recipe and budget every run trains under, the test and its
margin, the tuner's space and rules, and the code's version; the report prints its hash.

`translate compare` writes the plan when the study has no run yet. Afterwards a command whose plan
differs (another mechanism, seed, budget, question, margin, tuner...) becomes the plan, and the change
is kept in plan.json as a deviation: its time, what was and what is, the plan's hash before, and the
reason `--deviate REASON` gives ("none given" without it); every report lists the deviations. So a
study's answers come from a procedure written down before its data, and every departure from it is on
the record."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from translate.config.schema import RunConfig
from translate.errors import ConfigError
from translate.evaluation.significance import ALPHA, MARGIN, POWER
from translate.version import __version__

PLAN_FILE = "plan.json"
TEST = ("the seed-and-sentence test (Welch-Satterthwaite over the seeds' BLEU with the test set's own spread, "
        "translate.evaluation.significance), Holm's correction over the study's declared questions; 'equivalent' "
        "only by two one-sided tests against the margin; never 'decided' with one seed on a side")
_RECIPE_KEYS = ("data", "model", "train", "tokenizer")  # what a run trains with (paths and threads aside)
_NOT_RECIPE = frozenset({"out_dir", "run_dir", "data_dir", "cache_dir", "threads", "tensorboard", "log_every"})


def _recipe(base: RunConfig) -> dict[str, Any]:
    """The base configuration's settings that shape what a run learns (no paths, threads or logging)."""
    tree = base.to_dict()

    def clean(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: clean(v) for k, v in node.items() if k not in _NOT_RECIPE}
        return node

    return {key: clean(tree[key]) for key in _RECIPE_KEYS if key in tree}


def planned(base: RunConfig, mechanisms: list[str], seeds: list[int], questions: list[tuple[str, str, str]],
            tuner: dict[str, Any] | None, until_resolved: dict[str, Any] | None = None) -> dict[str, Any]:
    """The procedure a `translate compare` command asks for (see the module)."""
    train = base.train
    return {
        "mechanisms": list(mechanisms),
        "seeds": list(seeds),
        "questions": [list(q) for q in questions],
        "budget": {"max_steps": train.max_steps, "max_minutes": train.max_minutes, "max_epochs": train.max_epochs,
                   "max_tokens": train.max_tokens,
                   "patience": train.patience, "validate_every": train.validate_every},
        "test": TEST,
        "alpha": ALPHA, "power": POWER, "margin": MARGIN,
        "tuner": tuner,
        "until_resolved": until_resolved,
        "recipe": _recipe(base),
        "code": __version__,
    }


def digest(plan: dict[str, Any]) -> str:
    """SHA-256 of the plan's canonical JSON (sorted keys, no spaces): the hash the report prints."""
    return hashlib.sha256(json.dumps(plan, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def _changes(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    return sorted(key for key in was.keys() | now.keys() if was.get(key) != now.get(key))


def read_plan(out_dir: Path) -> dict[str, Any] | None:
    path = out_dir / PLAN_FILE
    if not path.is_file():
        return None
    try:
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{path}: not JSON ({exc})") from None
    if not isinstance(record, dict) or not isinstance(record.get("plan"), dict):
        raise ConfigError(f"{path}: expected an object with the study's plan under 'plan'")
    return record


def fix_plan(out_dir: Path, plan: dict[str, Any], started: bool, deviate: str | None = None,
             clock: Any = time.time) -> dict[str, Any]:
    """plan.json for this command: written when absent (`started`: runs already exist, so the plan was
    not written before them, which the record says); the same plan goes on; another plan becomes the
    plan, the change recorded as a deviation with `deviate` as its reason. Returns the record."""
    path = out_dir / PLAN_FILE
    record = read_plan(out_dir)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock()))
    if record is None:
        record = {"written": now, "before_first_run": not started, "hash": digest(plan), "plan": plan, "deviations": []}
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return record
    changed = _changes(record["plan"], plan)
    if not changed:
        return record
    record.setdefault("deviations", []).append({
        "at": now, "reason": deviate or "none given", "changed": changed,
        "was": {k: record["plan"].get(k) for k in changed}, "now": {k: plan.get(k) for k in changed},
        "hash_before": record["hash"]})
    record["plan"], record["hash"] = plan, digest(plan)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


def plan_markdown(out_dir: Path) -> str:
    """The report's lines on the plan: its hash, when it was written, and every deviation ("" without a plan)."""
    record = read_plan(out_dir)
    if record is None:  # a study from before plan.json: its report stays as it was
        return ""
    when = "before the first run" if record.get("before_first_run") else "after runs had started"
    lines = [f"\nPlan: `{PLAN_FILE}` sha256 `{record['hash']}`, written {record['written']} ({when}).\n"]
    for deviation in record.get("deviations", []):
        lines.append(f"- deviation at {deviation['at']}: {', '.join(deviation['changed'])} changed "
                     f"(reason: {deviation['reason']}; plan before {deviation['hash_before'][:12]})\n")
    return "".join(lines)
