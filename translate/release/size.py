"""The release rule's size and power, by simulating the rule itself (`release.rule.judge`).

Size: how often a candidate no better than the released model ships. Under that null hypothesis each BLEU
difference is normal around zero with the spread a kind of candidate shows (the decision split's and
Tatoeba test's 95 % intervals in docs/results/decisions/), and each defect's discordant sentences (only
one side has it) fall to either side with probability 1/2. The tests are drawn independently, the worst
case for a family correction: correlated tests pass together less often. Power: one defect truly rarer
for the candidate (`shifted`: its discordant sentences fall to the released side with probability
`ratio` / (1 + `ratio`)), the rest as under the null.

    python scripts/benchmark.py release-size --markdown docs/results/release-rule-size.md
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from statistics import NormalDist

from translate.evaluation.significance import Comparison
from translate.release.rule import DEFECTS, NAMES, QUANTITIES, Paired, judge

FAMILY = (*DEFECTS, QUANTITIES, NAMES)  # every defect the rule counts, in this order
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Scenario:
    """A kind of candidate: the standard errors of its BLEU differences and its defects' discordant
    sentences (one count per name of FAMILY)."""

    name: str
    decision_se: float
    test_se: float
    discordant: tuple[int, ...]


SCENARIOS = (
    # a decoding setting of the same weights: intervals about ±0.1 BLEU on both splits (decisions 9-11)
    Scenario("a decoding change", 0.05, 0.04, (2, 4, 50, 8, 8, 4, 8, 8, 4, 4)),
    # every defect moving on many sentences: the family at its largest
    Scenario("many sentences move", 0.05, 0.04, (30, 30, 60, 30, 30, 30, 30, 30, 30, 30)),
    # a newly trained model: decision split ±0.95, Tatoeba test ±0.75 (the students' decisions)
    Scenario("a new model", 0.48, 0.38, (10, 12, 60, 10, 12, 12, 60, 10, 12, 30)),
)


def _comparison(delta: float, se: float) -> Comparison:
    low, high = delta - 1.96 * se, delta + 1.96 * se
    p = 2 * _NORMAL.cdf(-abs(delta) / se)
    return Comparison(20.0 + delta, 20.0, delta, low, high, p, 1, 1, False, low > 0 or high < 0, None)


def _paired(discordant: int, against_share: float, rng: random.Random) -> Paired:
    against_only = sum(rng.random() < against_share for _ in range(discordant))
    return Paired(discordant - against_only, against_only, discordant - against_only, against_only, 1000)


def ships_share(scenario: Scenario, studies: int, correction: str = "holm", seed: int = 1,
                shifted: str | None = None, ratio: float = 1.0, tests: tuple[str, ...] | None = None) -> float:
    """The share of `studies` simulated decisions in which the candidate ships (see the module); `tests`:
    the tests of being better the candidate is for, named before the decision (`rule.better_by`)."""
    rng = random.Random(seed)
    ships = 0
    for _ in range(studies):
        decision = _comparison(rng.gauss(0.0, scenario.decision_se), scenario.decision_se)
        test = _comparison(rng.gauss(0.0, scenario.test_se), scenario.test_se)
        defects = {name: _paired(count, ratio / (1 + ratio) if name == shifted else 0.5, rng)
                   for name, count in zip(FAMILY, scenario.discordant, strict=True)}
        ships += judge(decision, test, defects, correction=correction, tests=tests).ships
    return ships / studies
