"""What a search returns and how it ranks it, shared by the PyTorch search and the torch-free one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Hypothesis:
    """tokens without BOS/EOS; score = log_prob / length_penalty (what the beam ranks by)."""

    tokens: list[int]
    score: float
    log_prob: float


def length_penalty(length: int, alpha: float) -> float:
    """GNMT (Wu et al. 2016, eq. 14): ((5 + |Y|) / 6) ** alpha; alpha = 0 gives 1 (raw log-probability)."""
    return float(((5.0 + length) / 6.0) ** alpha)
