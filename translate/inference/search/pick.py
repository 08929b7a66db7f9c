"""Token-by-token selection: one live hypothesis per sentence, extended by the token `pick` chooses
(greedy: the most probable; sampling: a draw). A hypothesis's score is its log-probability."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from translate.inference.search.core import Chosen
from translate.inference.search.rules import Hypothesis

Pick = Callable[[np.ndarray], np.ndarray]  # (N, V) log-probabilities -> (N,) chosen tokens


def most_probable(log_probs: np.ndarray) -> np.ndarray:
    tokens: np.ndarray = log_probs.argmax(-1)
    return tokens


class PickSelection:
    need = 1

    def __init__(self, sentences: int, pick: Pick, eos: int) -> None:
        self.pick, self.eos = pick, eos
        self.total = np.zeros(sentences, dtype=np.float32)
        self.outputs: list[list[int]] = [[] for _ in range(sentences)]

    def choose(self, log_probs: np.ndarray, counts: np.ndarray, t: int, at_limit: np.ndarray,
               bonus: np.ndarray | None = None) -> Chosen:
        """One hypothesis per sentence: nothing to rank, so no `bonus` applies."""
        tokens = np.asarray(self.pick(log_probs), dtype=np.int64)
        self.total += log_probs[np.arange(len(tokens)), tokens]
        ended = []
        for position, token in enumerate(tokens.tolist()):
            if token == self.eos:
                score = float(self.total[position])
                ended.append((position, Hypothesis(self.outputs[position], score, score), True))
            else:
                self.outputs[position].append(token)
        going = tokens != self.eos
        return Chosen(np.flatnonzero(going), tokens[going], going.astype(np.int64), ended,
                      np.full(len(tokens), np.inf))

    def keep(self, sentences: np.ndarray) -> None:
        self.total = self.total[sentences]
        self.outputs = [self.outputs[s] for s in sentences.tolist()]
