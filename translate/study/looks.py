"""Seeds added where a question needs them (`translate compare --until-resolved --max-seeds N`), with the
repeated looks paid for.

After the planned seeds, each declared question that is neither decided nor equivalent gets one more
seed on both its sides, and every question is tested again, until each is decided or equivalent or
its sides have N seeds. Looking again and again at a test at 5 % would find a difference that is not
there far more often than 5 % of the time, so every look tests at Pocock's constant nominal level for
the number of looks the plan allows (K = N - planned seeds + 1; Pocock 1977, two-sided 5 %): 0.0221
at 3 looks, 0.0142 at 6, 0.0106 at 10; Holm's correction over the study's questions comes on top.
`sequential_size` simulates the whole procedure under the null (the seeds' scores only, Welch's t, the
test's own yardstick): its size is in docs/results/sequential-looks.md and checked by a test."""

from __future__ import annotations

import numpy as np
from scipy import stats

from translate.errors import ConfigError

# Pocock's nominal two-sided level per look for an overall 5 % with K equally spaced looks
POCOCK = {1: 0.05, 2: 0.0294, 3: 0.0221, 4: 0.0182, 5: 0.0158, 6: 0.0142, 7: 0.0130, 8: 0.0120, 9: 0.0112,
          10: 0.0106}
MAX_LOOKS = max(POCOCK)


def looks_allowed(planned_seeds: int, max_seeds: int) -> int:
    """K: the planned look and one per seed added, up to `max_seeds` a side (ConfigError past MAX_LOOKS)."""
    if max_seeds < planned_seeds:
        raise ConfigError(f"--max-seeds {max_seeds} is below the {planned_seeds} planned seeds")
    looks = max_seeds - planned_seeds + 1
    if looks > MAX_LOOKS:
        raise ConfigError(f"--max-seeds {max_seeds} allows {looks} looks after {planned_seeds} planned seeds; at most "
                          f"{MAX_LOOKS} are corrected for (raise the planned seeds or lower --max-seeds)")
    return looks


def alpha_per_look(looks: int) -> float:
    """The level every look tests at, for `looks` looks in all (Pocock)."""
    return POCOCK[looks]


def sequential_size(start: int, max_seeds: int, spread_a: float, spread_b: float, studies: int,
                    seed: int = 0, shift: float = 0.0) -> float:
    """The share of simulated studies that decide a question (`shift` = 0: its size; else its power):
    `start` seeds a side, one more a side at each look while undecided, up to `max_seeds`; each look is
    Welch's t on the seeds' scores at `alpha_per_look` (all studies at once, one look at a time)."""
    rng = np.random.default_rng(seed)
    alpha = alpha_per_look(looks_allowed(start, max_seeds))
    a = rng.normal(shift, spread_a, (studies, max_seeds))
    b = rng.normal(0.0, spread_b, (studies, max_seeds))
    decided = np.zeros(studies, dtype=bool)
    for n in range(start, max_seeds + 1):
        var_a, var_b = a[:, :n].var(axis=1, ddof=1) / n, b[:, :n].var(axis=1, ddof=1) / n
        t = (a[:, :n].mean(axis=1) - b[:, :n].mean(axis=1)) / np.sqrt(var_a + var_b)
        df = (var_a + var_b) ** 2 / (var_a ** 2 / (n - 1) + var_b ** 2 / (n - 1))
        decided |= 2 * stats.t.sf(np.abs(t), df) < alpha
    return float(decided.mean())
