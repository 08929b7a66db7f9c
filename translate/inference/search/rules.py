"""The rules every search keeps, whichever engine steps and whichever selection picks: what a search
returns and how it ranks it (`Hypothesis`, the length and coverage penalties), the longest output a source allows,
the tokens never emitted (`restrict`; with `RepeatBan`, the tokens that would make the output stutter), the end
at the length limit, when a sentence's search is over, its n-best.

NumPy only: the PyTorch engine and the ONNX Runtime one search by these rules alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Hypothesis:
    """tokens without BOS/EOS; score = what the search ranks by (for beam search the log-probability
    divided by the length penalty, plus the coverage penalty); log_prob = the model's log-probability of
    tokens + EOS."""

    tokens: list[int]
    score: float
    log_prob: float


def length_penalty(length: int, alpha: float) -> float:
    """GNMT (Wu et al. 2016, eq. 14): ((5 + |Y|) / 6) ** alpha; alpha = 0 gives 1 (raw log-probability)."""
    return float(((5.0 + length) / 6.0) ** alpha)


COVERAGE_FLOOR = 1e-6  # attention received below this counts as this (hard attention leaves exact zeros)


def coverage_penalty(attended: np.ndarray, beta: float) -> np.ndarray:
    """GNMT (Wu et al. 2016, eq. 14): beta * sum over source positions of log(min(attention received, 1)),
    per row of `attended` (N, S) (padding given 1: nothing to cover). <= 0; 0 once every position has
    received a whole unit of attention, so a hypothesis that left source words unattended ranks lower."""
    clipped = np.clip(np.asarray(attended, dtype=np.float64), COVERAGE_FLOOR, 1.0)
    penalty: np.ndarray = (beta * np.log(clipped).sum(axis=-1)).astype(np.float32)
    return penalty


def max_lengths(src_lens: Any, a: float, b: int) -> np.ndarray:
    """Longest output allowed per sentence (EOS excluded): a * source length + b, the product taken in
    float32 and truncated."""
    return (np.asarray(src_lens, dtype=np.float32) * np.float32(a)).astype(np.int64) + b


def restrict(log_probs: np.ndarray, at_limit: np.ndarray, eos: int, banned: tuple[int, ...]) -> np.ndarray:
    """Never emit `banned` (padding, BOS); rows at their length limit (`at_limit`, (N,) bool) may only
    end. Writes into `log_probs` (N, V), which a step hands over to the search."""
    log_probs[:, list(banned)] = -np.inf
    if at_limit.any():
        eos_scores = log_probs[at_limit, eos]
        log_probs[at_limit] = -np.inf
        log_probs[at_limit, eos] = eos_scores
    return log_probs


@dataclass(frozen=True)
class RepeatBan:
    """No stutter (`translate.data.repeats`), ruled on target pieces: a token is never emitted where it
    would complete a run of 1..`longest` pieces followed at once by the same run, if the run holds two
    letters or more (他 工作 工作, 二十 二十, "▁busy ▁busy"), nor a one-letter piece a third time in a row
    (巴 巴 巴); 谢 谢 and "1,000,000"'s ",000 ,000" stay possible. `letters` (V,): Latin and Han letters of
    each target piece (byte pieces 0); `free` (B,): sentences whose source repeats itself ("very very",
    非常非常), which may repeat."""

    letters: np.ndarray
    free: np.ndarray
    longest: int = 4
    adjacent: bool = True  # the no-stutter rule above (decode.block_repeats)
    # > 0: nor a piece that would complete an n-gram of this many pieces (two letters or more) that the
    # row already holds anywhere (decode.block_ngrams: 她每天早上都每天早上), except in `ngram_free` (B,)
    # sentences, whose source says an n-gram of its words twice
    ngram: int = 0
    ngram_free: np.ndarray | None = None

    def apply(self, log_probs: np.ndarray, history: np.ndarray, sentences: np.ndarray) -> np.ndarray:
        """Bans, in `log_probs` (N, V), what each row's next token must not be; `history` (N, t): each
        row's tokens so far (BOS excluded); `sentences` (N,): each row's sentence number."""
        if self.adjacent:
            self._adjacent(log_probs, history, sentences)
        if self.ngram:
            self._ngrams(log_probs, history, sentences)
        return log_probs

    def _ngrams(self, log_probs: np.ndarray, history: np.ndarray, sentences: np.ndarray) -> None:
        n, t = self.ngram, history.shape[1]
        if t < n:
            return
        free = self.free if self.ngram_free is None else self.ngram_free
        prefix = history[:, t - n + 1:]  # the n - 1 last tokens: a copy of an n-gram held would end next
        earlier = np.lib.stride_tricks.sliding_window_view(history[:, :t - 1], n - 1, axis=1)  # (N, t-n+1, n-1)
        follows = history[:, n - 1:]  # the token after each earlier window
        letters = self.letters[prefix].sum(axis=1)[:, None] + self.letters[follows]
        rows, at = np.nonzero((earlier == prefix[:, None, :]).all(axis=2) & (letters >= 2) & ~free[sentences][:, None])
        log_probs[rows, follows[rows, at]] = -np.inf

    def _adjacent(self, log_probs: np.ndarray, history: np.ndarray, sentences: np.ndarray) -> None:
        t = history.shape[1]
        held = ~self.free[sentences]
        for n in range(1, self.longest + 1):
            if 2 * n - 1 > t:
                break
            run = history[:, t - 2 * n + 1:t - n + 1]  # the run the next token would complete a copy of
            begun = (history[:, t - 2 * n + 1:t - n] == history[:, t - n + 1:]).all(axis=1)
            rows = np.flatnonzero(held & begun & (self.letters[run].sum(axis=1) >= 2))
            log_probs[rows, run[rows, -1]] = -np.inf
        if t >= 2:
            last = history[:, -1]
            rows = np.flatnonzero(held & (last == history[:, -2]) & (self.letters[last] == 1))
            log_probs[rows, last[rows]] = -np.inf


@dataclass
class Ended:
    """One sentence's ended hypotheses: `complete` ones, and `incomplete` ones that a selection let end
    at the length limit without what it asked of them (a constrained search's unmet terms)."""

    complete: list[Hypothesis] = field(default_factory=list)
    incomplete: list[Hypothesis] = field(default_factory=list)

    def add(self, hypothesis: Hypothesis, complete: bool = True) -> None:
        (self.complete if complete else self.incomplete).append(hypothesis)

    def open(self, best_live: float, need: int) -> bool:
        """Whether the search must go on: fewer than `need` complete hypotheses, or the best live one
        (ranked at the next length, as Hugging Face's `BeamHypotheses`) could still beat the
        `need`-th best of them. Exact for alpha = 0, where scores only fall."""
        if len(self.complete) < need:
            return True
        return best_live > sorted((h.score for h in self.complete), reverse=True)[need - 1]

    def best(self, n_best: int) -> list[Hypothesis]:
        """The `n_best` best by score, complete ones before incomplete ones (ties: in the order they ended)."""
        ranked = sorted(self.complete, key=lambda h: -h.score) + sorted(self.incomplete, key=lambda h: -h.score)
        return ranked[:n_best]
