"""The release rule: whether a candidate replaces the released model.

A candidate ships only if
1. it is **better** on the **decision split** (`data/everyday/test.tsv`: everyday pairs that no choice of
   the project reads; choices are made on `data/everyday/dev.tsv` and Tatoeba dev) in one of two ways:
   its BLEU is higher with p < 0.05; or it has fewer translations with one of the **defects** (McNemar's
   exact test on the sentences where only one side has it, p < 0.05) and its BLEU there is not worse
   beyond the margin (the 95 % interval of the difference reaches no lower than -`MARGIN`); these tests,
   BLEU and one per defect, are one family at level ALPHA (Holm's step-down, `better_by`: from 2026-12-07,
   before decision 12; its size simulated in `release.size`);
2. it has **no defect more often** on the decision split (McNemar, p < 0.05, in the other direction);
3. it is **not worse on the Tatoeba test split** beyond the margin: the 95 % interval of the BLEU
   difference reaches no lower than -`MARGIN` (a non-inferiority test at margin `MARGIN` BLEU).

The defects (`DEFECTS`), each a yes/no per sentence (on a side with several seeds: any seed's): the
translation **stutters** (`data.repeats.stutters`); it **repeats itself**: holds an n-gram (2 to 4 words,
or characters for Chinese) twice or more, and more often than its source (`evaluation.adequacy.repeated_ngrams`:
她每天早上都每天早上); it **loses the negation** of a source that negates (`data.negation.negates`: "Tom
doesn't really love Mary." 汤姆真爱玛丽。); it **adds a negation** its source does not say, neither with a
negation word nor in a word of its own (`data.negation.adds_negation`: "The internet is very slow today."
我的网真不是很慢。; from 2026-12-07 21:48 UTC, before decision 24); an English translation **makes up a word**
(`data.made_up.made_up_words`: "Is itn't dark?"; from 2026-12-07 15:23 UTC, before decision 23); it **loses a number** of its source
(`data.quantities.numbers_kept`), counted on the decision split and, where it is at hand, on the
quantities set (`data/quantities/test.tsv`, every pair with numbers in digits); it **loses a name** of its
source (`evaluation.names`), counted on the names set (`data/names/test.tsv`, every pair with names of
people and places and every right form of each), where it is at hand. A candidate decided
again (`looks` > 1) is tested at ALPHA / looks. BLEU differences use `evaluation.significance.compare_runs`: a paired
bootstrap over the sentences and, where a side has several seeds (one checkpoint a seed), over the seeds
as well. The decision split is read once per candidate, for this rule; a candidate tuned on it would
make the rule meaningless.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy.stats import binomtest

from translate.config.loading import apply_overrides
from translate.config.paths import default_data_dir
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.data.made_up import made_up_words
from translate.data.negation import adds_negation, negates
from translate.data.quantities import doubles_a_number, numbers_added, numbers_kept
from translate.data.repeats import stutters
from translate.errors import ConfigError
from translate.evaluation.adequacy import repeated_ngrams
from translate.evaluation.evaluate import evaluation_translator
from translate.evaluation.names import NamesSet, loses_a_name, read_names_set
from translate.evaluation.significance import Comparison, compare_runs
from translate.inference.build import model_paths
from translate.inference.wrapping import with_glossaries

ALPHA = 0.05
MARGIN = 0.5  # BLEU: the non-inferiority margin on both splits
DECISION_SPLIT = "test"  # of the everyday folder; its dev.tsv is for choices


def everyday_dir() -> Path:
    """The everyday folder beside the bundled corpus (a checkout's data/everyday)."""
    return default_data_dir().parent / "everyday"


@functools.lru_cache(maxsize=65536)
def mcnemar_p(only_a: int, only_b: int) -> float:
    """McNemar's exact two-sided p from the discordant counts (1.0 where there are none)."""
    differing = only_a + only_b
    return 1.0 if differing == 0 else float(binomtest(only_a, differing, 0.5).pvalue)


@dataclass(frozen=True)
class Paired:
    """A yes/no defect (stutter) on the same sentences: how many each side has, on how many sentences only
    the candidate has it and only the other side has it, and McNemar's exact two-sided p on those."""

    candidate: int
    against: int
    candidate_only: int
    against_only: int
    sentences: int

    @property
    def p_value(self) -> float:
        return mcnemar_p(self.candidate_only, self.against_only)

    def to_dict(self) -> dict[str, Any]:
        return {"candidate": self.candidate, "against": self.against, "candidate_only": self.candidate_only,
                "against_only": self.against_only, "sentences": self.sentences, "p_value": round(self.p_value, 4)}

    @classmethod
    def of(cls, candidate: Sequence[bool], against: Sequence[bool]) -> Paired:
        pairs = list(zip(candidate, against, strict=True))
        return cls(sum(a for a, _ in pairs), sum(b for _, b in pairs), sum(a and not b for a, b in pairs),
                   sum(b and not a for a, b in pairs), len(pairs))


    @property
    def fewer(self) -> bool:
        """The candidate has the defect on fewer sentences, resolved (p < ALPHA)."""
        return self.fewer_at(ALPHA)

    @property
    def more(self) -> bool:
        return self.more_at(ALPHA)

    def fewer_at(self, alpha: float) -> bool:
        return self.candidate_only < self.against_only and self.p_value < alpha

    def more_at(self, alpha: float) -> bool:
        return self.candidate_only > self.against_only and self.p_value < alpha

    def counts(self) -> str:
        return f"{self.candidate} against {self.against} of {self.sentences} sentences, p = {self.p_value:.3f}"


DEFECTS = ("stutter", "numbers lost", "repeats", "negation lost", "numbers added", "numbers doubled",
           "made-up words", "negation added")  # on the decision split; "numbers lost" also on the quantities set
QUANTITIES = "numbers lost, quantities set"
NAMES = "names lost, names set"
_VERBS = {"stutter": ("stutters", "stutter"), "numbers lost": ("loses numbers", "lose numbers"),
          "repeats": ("repeats itself", "repeat itself"), "negation lost": ("loses the negation", "lose the negation"),
          "numbers added": ("adds numbers", "add numbers"), "numbers doubled": ("doubles numbers", "double numbers"),
          "made-up words": ("makes up words", "make up words"), "negation added": ("adds a negation", "add a negation"),
          QUANTITIES: ("loses numbers", "lose numbers"), NAMES: ("loses names", "lose names")}
_WHERE = {"stutter": "on the decision split", "numbers lost": "on the decision split", "repeats": "on the decision split",
          "negation lost": "on the decision split", "numbers added": "on the decision split",
          "numbers doubled": "on the decision split", "made-up words": "on the decision split",
          "negation added": "on the decision split",
          QUANTITIES: "on the quantities set", NAMES: "on the names set"}


@dataclass(frozen=True)
class Verdict:
    """The candidate against the released model on the decision split (BLEU and the defects) and on Tatoeba test."""

    decision: Comparison
    test: Comparison
    ships: bool
    reasons: list[str] = field(default_factory=list)
    defects: dict[str, Paired] = field(default_factory=dict)
    alpha: float = ALPHA
    family: int = 1  # condition 1's tests, corrected together (Holm)
    tests: list[str] = field(default_factory=list)  # which they are

    def to_dict(self) -> dict[str, Any]:
        return {"ships": self.ships, "reasons": self.reasons, "alpha": self.alpha, "holm_family": self.family,
                "tests_for_better": self.tests,
                "margin": MARGIN,
                "decision_split": self.decision.to_dict(), "tatoeba_test": self.test.to_dict(),
                **{_key(name): paired.to_dict() for name, paired in self.defects.items()}}


def _key(defect: str) -> str:
    """A defect's key in the verdict's JSON: decision_split_stutter, quantities_set_numbers_lost..."""
    if defect == QUANTITIES:
        return "quantities_set_numbers_lost"
    if defect == NAMES:
        return "names_set_names_lost"
    return "decision_split_" + defect.replace(" ", "_")


def better_by(decision: Comparison, defects: dict[str, Paired], alpha: float, correction: str = "holm",
              tests: Sequence[str] | None = None) -> tuple[list[str], int]:
    """(the tests that call the candidate better at family-wise level `alpha`, how many tests the family
    holds): "BLEU" and the names of the defects it has less often. The family is every test the rule runs
    for condition 1, BLEU and each defect (one that cannot favour the candidate counts with p = 1), or
    only `tests` where the candidate's plan names the ones it is for before the decision ("repeats" for
    a setting against repeats); Holm's step-down keeps the chance that a candidate no better than the
    released model passes one of them at `alpha` or below. `correction` "none" tests each at `alpha`
    (the rule before 2026-12-07, kept for the simulation of its size: `release.size`)."""
    family = [("BLEU", decision.p_value if decision.delta > 0 else 1.0)] + [
        (name, paired.p_value if paired.candidate_only < paired.against_only else 1.0) for name, paired in defects.items()]
    if tests is not None:
        unknown = sorted(set(tests) - {name for name, _ in family})
        if unknown or not tests:
            raise ConfigError(f"the tests a candidate is for must be among {[name for name, _ in family]}; "
                              f"got {list(tests)}")
        family = [(name, p) for name, p in family if name in tests]
    if correction == "none":
        return [name for name, p in family if p < alpha], 1
    better = []
    for rank, (name, p) in enumerate(sorted(family, key=lambda test: test[1])):
        if p >= alpha / (len(family) - rank):
            break
        better.append(name)
    return better, len(family)


def judge(decision: Comparison, test: Comparison, defects: dict[str, Paired] | None = None,
          looks: int = 1, correction: str = "holm", tests: Sequence[str] | None = None) -> Verdict:
    """The rule applied to the comparisons (candidate - released) and the defects (name -> `Paired`; a name
    "numbers lost, quantities set" counts on the quantities set): every condition it misses is named.
    `looks`: how many times this candidate has been decided (a repeated look tests at ALPHA / looks,
    Bonferroni); within a look, condition 1's tests (all, or the `tests` the candidate is for) are one
    family (`better_by`, Holm)."""
    defects = defects or {}
    alpha = ALPHA / looks
    reasons = []
    better, family = better_by(decision, defects, alpha, correction, tests)
    fewer = [name for name in defects if name in better]
    first = alpha / family  # the smallest p of the family must be below this
    counted = [name for name in ("BLEU", *defects) if tests is None or name in tests]
    interval = f"[{decision.ci_low:+.2f}, {decision.ci_high:+.2f}]"
    bleu_better = "BLEU" in better
    if not bleu_better and not fewer:
        holm = f", Holm over {family} tests" if family > 1 else ""
        if "BLEU" not in counted:
            reasons.append(f"not better by the tests it is for ({', '.join(counted)})")
        elif decision.delta <= 0:
            reasons.append(f"not better on the decision split ({decision.delta:+.2f} BLEU)")
        else:
            reasons.append(f"better on the decision split by {decision.delta:+.2f} BLEU, but p = "
                           f"{decision.p_value:.3f} is not below {first:.3g} (95 % interval {interval}{holm})")
        for name, paired in defects.items():
            if paired.sentences and name in counted:
                reasons.append(f"and it does not {_VERBS[name][1]} less often {_WHERE[name]} with p < {first:.3g} "
                               f"({paired.counts()})")
    elif not bleu_better and decision.ci_low < -MARGIN:
        reasons.append(f"{' and '.join(_VERBS[name][0] for name in fewer)} less often, but its BLEU on the decision "
                       f"split may be worse by more than {MARGIN} ({decision.delta:+.2f}, 95 % interval {interval})")
    for name, paired in defects.items():
        if paired.more_at(alpha):
            reasons.append(f"{_VERBS[name][0]} more often {_WHERE[name]} ({paired.counts()})")
    if test.ci_low < -MARGIN:
        reasons.append(f"may be worse on Tatoeba test by more than {MARGIN} BLEU ({test.delta:+.2f}, "
                       f"95 % interval [{test.ci_low:+.2f}, {test.ci_high:+.2f}])")
    return Verdict(decision, test, not reasons, reasons, defects, alpha, family, counted)


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


def quantities_split(direction: str, folder: Path | None = None) -> Split | None:
    """The quantities set's decision split (data/quantities/test.tsv: every pair holds numbers in digits on
    both sides) for `direction`; None where it is not at hand (an installed package)."""
    folder = folder or default_data_dir().parent / "quantities"
    if not (folder / f"{DECISION_SPLIT}.tsv").is_file():
        return None
    pairs = load_eval_split(apply_overrides(DataConfig(), {"direction": direction, "data_dir": str(folder)}),
                            DECISION_SPLIT)
    return Split("quantities", *pairs)


def names_split(folder: Path | None = None) -> NamesSet | None:
    """The names set's decision split (data/names/test.tsv: every pair holds names, with every right form);
    None where it is not at hand (an installed package)."""
    path = (folder or default_data_dir().parent / "names") / f"{DECISION_SPLIT}.tsv"
    return read_names_set(path) if path.is_file() else None


def decide(candidate: Sequence[Sequence[str]], released: Sequence[Sequence[str]],
           candidate_test: Sequence[Sequence[str]], released_test: Sequence[Sequence[str]],
           decision: Split, test: Split, tgt_lang: str, samples: int = 1000,
           quantities: tuple[Split, Sequence[Sequence[str]], Sequence[Sequence[str]]] | None = None,
           looks: int = 1,
           names: tuple[NamesSet, Sequence[Sequence[str]], Sequence[Sequence[str]]] | None = None,
           tests: Sequence[str] | None = None) -> Verdict:
    """The rule from hypotheses: one list per seed on each side, for the decision split and for test;
    `quantities`: the quantities set with each side's hypotheses, where it is read; `names`: the names
    set with each side's hypotheses, where it is read."""
    on_decision = compare_runs([list(h) for h in candidate], [list(h) for h in released], decision.refs, tgt_lang,
                               samples, aso=False)
    on_test = compare_runs([list(h) for h in candidate_test], [list(h) for h in released_test], test.refs, tgt_lang,
                           samples, aso=False)
    src_lang = "zh" if tgt_lang == "en" else "en"

    def has(side: Sequence[Sequence[str]], defect: str, split: Split = decision) -> list[bool]:
        return [any(_has_defect(defect, seed[i], source, tgt_lang, src_lang) for seed in side)
                for i, source in enumerate(split.sources)]

    defects = {name: Paired.of(has(candidate, name), has(released, name)) for name in DEFECTS}
    if quantities is not None:
        split, mine, theirs = quantities
        defects[QUANTITIES] = Paired.of(has(mine, "numbers lost", split), has(theirs, "numbers lost", split))
    if names is not None:
        names_set, mine, theirs = names

        def loses(side: Sequence[Sequence[str]]) -> list[bool]:
            return [any(loses_a_name(wanted, seed[i], tgt_lang) for seed in side) for i, wanted in enumerate(names_set.names)]

        defects[NAMES] = Paired.of(loses(mine), loses(theirs))
    return judge(on_decision, on_test, defects, looks, tests=tests)


def _has_defect(defect: str, translation: str, source: str, tgt_lang: str, src_lang: str) -> bool:
    if defect == "stutter":
        return stutters(translation, source, tgt_lang, src_lang)
    if defect == "repeats":
        return repeated_ngrams(translation, source, tgt_lang, src_lang) > 0
    if defect == "negation lost":
        return negates(source, src_lang) and not negates(translation, tgt_lang)
    if defect == "numbers added":
        return bool(numbers_added(source, translation, tgt_lang))
    if defect == "numbers doubled":
        return doubles_a_number(translation, tgt_lang) and not doubles_a_number(source, src_lang)
    if defect == "made-up words":
        return tgt_lang == "en" and bool(made_up_words(translation, source))
    if defect == "negation added":
        return adds_negation(source, translation, src_lang, tgt_lang)
    kept, wanted = numbers_kept(source, translation, tgt_lang)
    return kept < wanted


@dataclass
class Side:
    """One side of a decision: its models (one a seed), decoding settings and hypotheses on both splits."""

    models: list[str]
    settings: dict[str, Any]
    decision: list[list[str]] = field(default_factory=list)
    test: list[list[str]] = field(default_factory=list)
    quantities: list[list[str]] = field(default_factory=list)
    names: list[list[str]] = field(default_factory=list)


def decide_models(candidate: Sequence[str], against: Sequence[str] | None = None,
                  candidate_settings: dict[str, Any] | None = None, against_settings: dict[str, Any] | None = None,
                  decision_dir: Path | None = None, data_dir: str | None = None,
                  beam: int | None = None, looks: int = 1,
                  quantities_dir: Path | None = None,
                  names_dir: Path | None = None, tests: Sequence[str] | None = None) -> tuple[Verdict, str, dict[str, Side]]:
    """The rule for models: each side's models (checkpoints, runs or released names; one a seed) decode
    both splits as `translate evaluate` does (their own decoding settings with `*_settings` applied, the
    names lexicon where those turn it on); `against` defaults to the released model of the candidate's
    direction; the quantities set and the names set are read where they are at hand; `looks`: how many
    times this candidate has been decided, `tests`: the tests of being better it is for (`judge`). Returns
    the verdict, the direction and both sides."""
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
        quantities = quantities_split(str(direction), quantities_dir)
        if quantities is not None:
            side.quantities = [with_glossaries(t).translate(quantities.sources) for t in translators]
        names_set = names_split(names_dir)
        if names_set is not None:
            side.names = [with_glossaries(t).translate(names_set.sources(str(direction)[:2])) for t in translators]
    read = (quantities, sides["candidate"].quantities, sides["against"].quantities) if quantities is not None else None
    named = (names_set, sides["candidate"].names, sides["against"].names) if names_set is not None else None
    verdict = decide(sides["candidate"].decision, sides["against"].decision, sides["candidate"].test,
                     sides["against"].test, decision, test, str(direction).split("-")[1], quantities=read, looks=looks,
                     names=named, tests=tests)
    return verdict, str(direction), sides
