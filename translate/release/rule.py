"""The release rule: whether a candidate replaces the released model.

A candidate ships only if
1. it beats the released model on the **decision split** (`data/everyday/test.tsv`: everyday pairs that
   no choice of the project reads; choices are made on `data/everyday/dev.tsv` and Tatoeba dev) with
   p < 0.05, and
2. it is not worse on the **Tatoeba test split** beyond its interval (the 95 % interval of the test
   difference reaches zero or above).

Both questions use `evaluation.significance.compare_runs`: a paired bootstrap over the sentences and,
where a side has several seeds (one checkpoint a seed), over the seeds as well. The decision split is
read once per candidate, for this rule; a candidate tuned on it would make the rule meaningless.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from translate.config.loading import apply_overrides
from translate.config.paths import default_data_dir
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.errors import ConfigError
from translate.evaluation.evaluate import evaluation_translator
from translate.evaluation.significance import Comparison, compare_runs
from translate.inference.build import model_paths
from translate.inference.glossary import with_glossaries

ALPHA = 0.05
DECISION_SPLIT = "test"  # of the everyday folder; its dev.tsv is for choices


def everyday_dir() -> Path:
    """The everyday folder beside the bundled corpus (a checkout's data/everyday)."""
    return default_data_dir().parent / "everyday"


@dataclass(frozen=True)
class Verdict:
    """The candidate against the released model on the decision split and on Tatoeba test."""

    decision: Comparison
    test: Comparison
    ships: bool
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"ships": self.ships, "reasons": self.reasons, "alpha": ALPHA,
                "decision_split": self.decision.to_dict(), "tatoeba_test": self.test.to_dict()}


def judge(decision: Comparison, test: Comparison) -> Verdict:
    """The rule applied to the two comparisons (candidate - released): every condition it misses is named."""
    reasons = []
    if decision.delta <= 0:
        reasons.append(f"not better on the decision split ({decision.delta:+.2f} BLEU)")
    elif decision.p_value >= ALPHA:
        reasons.append(f"better on the decision split by {decision.delta:+.2f} BLEU, but p = {decision.p_value:.3f} "
                       f"is not below {ALPHA} (95 % interval [{decision.ci_low:+.2f}, {decision.ci_high:+.2f}])")
    if test.ci_high < 0:
        reasons.append(f"worse on Tatoeba test beyond its interval ({test.delta:+.2f} BLEU, "
                       f"[{test.ci_low:+.2f}, {test.ci_high:+.2f}])")
    return Verdict(decision, test, not reasons, reasons)


@dataclass(frozen=True)
class Split:
    """A split's sources and references in one direction."""

    name: str
    sources: list[str]
    refs: list[str]


def splits(direction: str, decision_dir: Path | None = None, data_dir: str | None = None) -> tuple[Split, Split]:
    """The decision split (everyday test) and Tatoeba test for `direction`; a clear error where the
    decision split is missing."""
    folder = decision_dir or everyday_dir()
    if not (folder / f"{DECISION_SPLIT}.tsv").is_file():
        raise ConfigError(f"no decision split at {folder / (DECISION_SPLIT + '.tsv')}: give --decision-dir "
                          "(a folder with a test.tsv of en<TAB>zh pairs that no choice was made on)")
    everyday = load_eval_split(apply_overrides(DataConfig(), {"direction": direction, "data_dir": str(folder)}),
                               DECISION_SPLIT)
    tatoeba = load_eval_split(apply_overrides(DataConfig(), {"direction": direction,
                                                             **({"data_dir": data_dir} if data_dir else {})}), "test")
    return Split("decision", *everyday), Split("tatoeba test", *tatoeba)


def decide(candidate: Sequence[Sequence[str]], released: Sequence[Sequence[str]],
           candidate_test: Sequence[Sequence[str]], released_test: Sequence[Sequence[str]],
           decision: Split, test: Split, tgt_lang: str, samples: int = 1000) -> Verdict:
    """The rule from hypotheses: one list per seed on each side, for the decision split and for test."""
    on_decision = compare_runs([list(h) for h in candidate], [list(h) for h in released], decision.refs, tgt_lang,
                               samples, aso=False)
    on_test = compare_runs([list(h) for h in candidate_test], [list(h) for h in released_test], test.refs, tgt_lang,
                           samples, aso=False)
    return judge(on_decision, on_test)


@dataclass
class Side:
    """One side of a decision: its models (one a seed), decoding settings and hypotheses on both splits."""

    models: list[str]
    settings: dict[str, Any]
    decision: list[list[str]] = field(default_factory=list)
    test: list[list[str]] = field(default_factory=list)


def decide_models(candidate: Sequence[str], against: Sequence[str] | None = None,
                  candidate_settings: dict[str, Any] | None = None, against_settings: dict[str, Any] | None = None,
                  decision_dir: Path | None = None, data_dir: str | None = None,
                  beam: int | None = None) -> tuple[Verdict, str, dict[str, Side]]:
    """The rule for models: each side's models (checkpoints, runs or released names; one a seed) decode
    both splits as `translate evaluate` does (their own decoding settings with `*_settings` applied, the
    names lexicon where those turn it on); `against` defaults to the released model of the candidate's
    direction. Returns the verdict, the direction and both sides."""
    sides = {"candidate": Side(list(candidate), dict(candidate_settings or {})),
             "against": Side(list(against or []), dict(against_settings or {}))}
    direction: str | None = None
    splits_read: tuple[Split, Split] | None = None
    for name, side in sides.items():
        if not side.models:
            side.models = [str(direction)]
        translators = [evaluation_translator(model_paths(m), "cpu", side.settings, beam) for m in side.models]
        for model, translator in zip(side.models, translators):
            pair = f"{translator.src_lang}-{translator.tgt_lang}"
            if direction is not None and pair != direction:
                raise ConfigError(f"--{name} {model} translates {pair}, the candidate {direction}")
            direction = pair
        decision, test = splits_read = splits_read or splits(str(direction), decision_dir, data_dir)
        side.decision = [with_glossaries(t).translate(decision.sources) for t in translators]
        side.test = [with_glossaries(t).translate(test.sources) for t in translators]
    verdict = decide(sides["candidate"].decision, sides["against"].decision, sides["candidate"].test,
                     sides["against"].test, decision, test, str(direction).split("-")[1])
    return verdict, str(direction), sides
