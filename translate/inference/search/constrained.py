"""Lexically constrained selection: every constraint (a token sequence) appears in the output, in the
model's own choice of place and context.

Dynamic beam allocation (Post & Vilar 2018): each step's candidates are the k best continuations
of every hypothesis plus, for each, the next token of every constraint it has not met (or of the one
it is in the middle of); the beam is then shared out round-robin between banks of hypotheses that
have produced the same number of constraint tokens, so hypotheses that have placed a term are not
crowded out by ones that have not. A hypothesis may end only when it has met every constraint; at
the length limit every hypothesis ends, and those that met every constraint rank first.

Ended hypotheses rank by the log-probability of the constraints' own tokens plus the
length-penalised log-probability of the tokens the model chose freely (with alpha 0: the plain
log-probability). A term the model does not know (a name spelt piece by piece) costs far more than
any other token; with that cost inside the length-penalised sum, the penalty paid a hypothesis for
every further cheap token, and the best-ranked output ran on past its sentence ("He was born in
Guangzhou in 1998..m.. born in the states."). Where the term sits still counts in full.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from translate.inference.search.core import Chosen
from translate.inference.search.rules import Hypothesis, length_penalty


def _ranked(log_prob: float, forced: float, alpha: float, length: int) -> float:
    """What ranks hypotheses: the constraint tokens' log-probability + the free tokens', length-penalised."""
    return forced + (log_prob - forced) / length_penalty(length, alpha)


@dataclass(frozen=True)
class Live:
    tokens: tuple[int, ...]
    log_prob: float
    met: tuple[bool, ...]  # per constraint
    active: int = -1  # the constraint being produced (-1: none)
    done: int = 0  # its tokens produced so far
    just_met: bool = False  # the last token completed a constraint
    forced: float = 0.0  # log-probability of the tokens that produced constraints

    def ranked(self, alpha: float, length: int) -> float:
        return _ranked(self.log_prob, self.forced, alpha, length)

    def next_tokens(self, constraints: list[list[int]]) -> set[int]:
        if self.active >= 0:
            return {constraints[self.active][self.done]}
        return {c[0] for c, met in zip(constraints, self.met) if not met}

    def produced(self, constraints: list[list[int]]) -> int:
        return sum(len(c) for c, met in zip(constraints, self.met) if met) + self.done

    def then(self, token: int, log_prob: float, constraints: list[list[int]]) -> Live:
        """This hypothesis extended by `token`: a constraint advances, starts, completes or is abandoned."""
        met, active, done, just_met, forced = self.met, self.active, self.done, False, self.forced
        if active >= 0 and constraints[active][done] != token:
            active, done = -1, 0  # left the constraint half-way: it starts over
        if active < 0:
            starts = [i for i, (c, m) in enumerate(zip(constraints, met)) if not m and c[0] == token]
            if starts:
                active, done = starts[0], 0
        if active >= 0:
            forced += log_prob - self.log_prob
            done += 1
            if done == len(constraints[active]):
                met = tuple(m or i == active for i, m in enumerate(met))
                active, done, just_met = -1, 0, True
        return Live(self.tokens + (token,), log_prob, met, active, done, just_met, forced)


def allocate(candidates: list[tuple[Live, int]], k: int, constraints: list[list[int]]) -> list[tuple[Live, int]]:
    """k candidates, taken round-robin from the banks (most constraint tokens first), best first in each."""
    banks: dict[int, list[tuple[Live, int]]] = {}
    for cand in sorted(candidates, key=lambda c: -c[0].log_prob):
        banks.setdefault(cand[0].produced(constraints), []).append(cand)
    order = [banks[n] for n in sorted(banks, reverse=True)]
    chosen: list[tuple[Live, int]] = []
    depth = 0
    while len(chosen) < k and any(depth < len(bank) for bank in order):
        chosen += [bank[depth] for bank in order if depth < len(bank)][:k - len(chosen)]
        depth += 1
    return chosen


def _top_k(log_probs: np.ndarray, k: int) -> list[list[int]]:
    """Each row's k most probable tokens (in no particular order)."""
    vocab = log_probs.shape[1]
    k = min(k, vocab)
    top: list[list[int]] = np.argpartition(log_probs, vocab - k, axis=1)[:, vocab - k:].tolist()
    return top


class ConstrainedSelection:
    """Per sentence its constraints (token lists, none empty) and its live hypotheses; `banned_after`:
    tokens that may not directly follow a completed constraint (for English, pieces that would glue
    a word onto the term)."""

    def __init__(self, constraints: list[list[list[int]]], beam_size: int, alpha: float, eos: int,
                 banned_after: list[int] | None = None, avoid: list[list[list[int]]] | None = None) -> None:
        """`avoid`: per sentence, token sequences it may not write (none empty)."""
        self.need, self.alpha, self.eos = beam_size, alpha, eos
        self.constraints = constraints
        self.live = [[Live((), 0.0, tuple(False for _ in cons))] for cons in constraints]
        self.banned_after, self.banned = list(banned_after or []), set(banned_after or [])
        self.avoid = avoid if avoid and any(avoid) else None

    def choose(self, log_probs: np.ndarray, counts: np.ndarray, t: int, at_limit: np.ndarray,
               bonus: np.ndarray | None = None) -> Chosen:
        if self.banned_after:
            glued = [row for row, hyp in enumerate(h for live in self.live for h in live) if hyp.just_met]
            if glued:
                log_probs[np.ix_(glued, self.banned_after)] = -np.inf
        if self.avoid is not None:
            self._ban_avoided(log_probs)
        top = _top_k(log_probs, self.need)
        rows: list[int] = []
        tokens: list[int] = []
        new_counts, best_live = np.zeros(len(self.live), dtype=np.int64), np.full(len(self.live), -np.inf)
        ended: list[tuple[int, Hypothesis, bool]] = []
        start = 0
        for position, (live, constraints) in enumerate(zip(self.live, self.constraints)):
            end = start + len(live)
            extra = None if bonus is None else bonus[start:end]
            candidates = self._candidates(position, log_probs[start:end], top[start:end], bool(at_limit[position]),
                                          ended, extra)
            if candidates:
                best_live[position] = max(c.ranked(self.alpha, t + 2) + (0.0 if extra is None else float(extra[row]))
                                          for c, row in candidates)
                chosen = allocate(candidates, self.need, constraints)
                self.live[position] = [c for c, _ in chosen]
                rows += [start + row for _, row in chosen]
                tokens += [c.tokens[-1] for c, _ in chosen]
                new_counts[position] = len(chosen)
            start = end
        return Chosen(np.array(rows, dtype=np.int64), np.array(tokens, dtype=np.int64), new_counts, ended, best_live)

    def _candidates(self, position: int, log_probs: np.ndarray, top: list[list[int]], at_limit: bool,
                    ended: list[tuple[int, Hypothesis, bool]], bonus: np.ndarray | None) -> list[tuple[Live, int]]:
        """One sentence's continuations (hypothesis, the row it extends); hypotheses ending here go to
        `ended`, ranked with their row's `bonus` (the coverage penalty; None: none)."""
        constraints, eos = self.constraints[position], self.eos
        options = [sorted(set(top[row]) | hyp.next_tokens(constraints)) for row, hyp in enumerate(self.live[position])]
        flat_rows = [row for row, tokens in enumerate(options) for _ in tokens]
        flat = [token for tokens in options for token in tokens]
        scores = iter(log_probs[flat_rows, flat].tolist())  # one gather, not one read per option
        candidates: list[tuple[Live, int]] = []
        for row, (hyp, tokens) in enumerate(zip(self.live[position], options)):
            # tokens that neither start nor continue a constraint extend the hypothesis and nothing else
            free = set() if hyp.active >= 0 else set(tokens) - hyp.next_tokens(constraints)
            for token in tokens:
                score = hyp.log_prob + next(scores)
                if score == -np.inf:
                    continue
                if token == eos:
                    ranked = _ranked(score, hyp.forced, self.alpha, len(hyp.tokens) + 1) + (
                        0.0 if bonus is None else float(bonus[row]))
                    if all(hyp.met) or at_limit:
                        ended.append((position, Hypothesis(list(hyp.tokens), ranked, score), all(hyp.met)))
                elif not (hyp.just_met and token in self.banned):
                    extended = (Live(hyp.tokens + (token,), score, hyp.met, forced=hyp.forced) if token in free
                                else hyp.then(token, score, constraints))
                    candidates.append((extended, row))
        return candidates

    def _ban_avoided(self, log_probs: np.ndarray) -> None:
        """A row may not write the last token of a sequence to avoid whose other tokens it has just written."""
        assert self.avoid is not None
        row = 0
        for live, sequences in zip(self.live, self.avoid):
            for hyp in live:
                for sequence in sequences:
                    if len(sequence) == 1 or hyp.tokens[len(hyp.tokens) - len(sequence) + 1:] == tuple(sequence[:-1]):
                        log_probs[row, sequence[-1]] = -np.inf
                row += 1

    def keep(self, sentences: np.ndarray) -> None:
        self.live = [self.live[s] for s in sentences.tolist()]
        self.constraints = [self.constraints[s] for s in sentences.tolist()]
        if self.avoid is not None:
            self.avoid = [self.avoid[s] for s in sentences.tolist()]
