"""Lexically constrained beam search for one sentence: every constraint (a token sequence) appears in
the output, in the model's own choice of place and context.

Dynamic beam allocation (Post & Vilar 2018): each step's candidates are the k best continuations
of every hypothesis plus, for each, the next token of every constraint it has not met (or of the one
it is in the middle of); the beam is then shared out round-robin between banks of hypotheses that
have produced the same number of constraint tokens, so hypotheses that have placed a term are not
crowded out by ones that have not. A hypothesis may end only when it has met every constraint; at
the length limit every hypothesis ends, and those that met every constraint rank first. Works in NumPy on any step function
that maps tokens (N,) to log-probabilities (N, V) and a context with `select(rows)`: PyTorch's
model or ensemble (`TorchEngine`) and the graphs on ONNX Runtime (`FastEngine`) alike.

Finished hypotheses rank by the log-probability of the constraints' own tokens plus the
length-penalised log-probability of the tokens the model chose freely (with alpha 0: the plain
log-probability). A term the model does not know (a name spelt piece by piece) costs far more than
any other token; with that cost inside the length-penalised sum, the penalty paid a hypothesis for
every further cheap token, and the best-ranked output ran on past its sentence ("He was born in
Guangzhou in 1998..m.. born in the states."). Where the term sits still counts in full.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from translate.inference.deadline import check_deadline
from translate.inference.hypothesis import Hypothesis, length_penalty


def _ranked(log_prob: float, forced: float, alpha: float, length: int) -> float:
    """What ranks hypotheses: the constraint tokens' log-probability + the free tokens', length-penalised."""
    return forced + (log_prob - forced) / length_penalty(length, alpha)


@dataclass(frozen=True)
class _Live:
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

    def then(self, token: int, log_prob: float, constraints: list[list[int]]) -> _Live:
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
        return _Live(self.tokens + (token,), log_prob, met, active, done, just_met, forced)


def _allocate(candidates: list[tuple[_Live, int]], k: int, constraints: list[list[int]]) -> list[tuple[_Live, int]]:
    """k candidates, taken round-robin from the banks (most constraint tokens first), best first in each."""
    banks: dict[int, list[tuple[_Live, int]]] = {}
    for cand in sorted(candidates, key=lambda c: -c[0].log_prob):
        banks.setdefault(cand[0].produced(constraints), []).append(cand)
    order = [banks[n] for n in sorted(banks, reverse=True)]
    chosen: list[tuple[_Live, int]] = []
    depth = 0
    while len(chosen) < k and any(depth < len(bank) for bank in order):
        chosen += [bank[depth] for bank in order if depth < len(bank)][:k - len(chosen)]
        depth += 1
    return chosen


class _Sentence:
    """One sentence's search: its live hypotheses (one row of the batch each), finished and
    incomplete hypotheses, and whether it is over."""

    def __init__(self, constraints: list[list[int]], max_len: int) -> None:
        self.constraints, self.max_len = constraints, max_len
        self.live = [_Live((), 0.0, tuple(False for _ in constraints))]
        self.finished: list[Hypothesis] = []
        self.incomplete: list[Hypothesis] = []  # ended at the length limit without every constraint
        self.over = False

    def advance(self, log_probs: np.ndarray, top: list[list[int]], t: int, k: int, alpha: float, eos: int,
                banned: set[int]) -> list[int]:
        """Step t on this sentence's rows of log-probabilities (rows, V) and their top-k tokens: returns
        the rows the new live hypotheses extend (empty once the sentence is over)."""
        options = [sorted({eos} if t == self.max_len else set(top[row]) | hyp.next_tokens(self.constraints))
                   for row, hyp in enumerate(self.live)]
        rows = [row for row, tokens in enumerate(options) for _ in tokens]
        flat = [token for tokens in options for token in tokens]
        scores = iter(log_probs[rows, flat].tolist())  # one gather, not one tensor read per option
        candidates: list[tuple[_Live, int]] = []
        for row, (hyp, tokens) in enumerate(zip(self.live, options)):
            # tokens that neither start nor continue a constraint extend the hypothesis and nothing else
            free = set() if hyp.active >= 0 else set(tokens) - hyp.next_tokens(self.constraints)
            for token in tokens:
                score = hyp.log_prob + next(scores)
                if token == eos:
                    ranked = _ranked(score, hyp.forced, alpha, len(hyp.tokens) + 1)
                    if all(hyp.met):
                        self.finished.append(Hypothesis(list(hyp.tokens), ranked, score))
                    elif t == self.max_len:
                        self.incomplete.append(Hypothesis(list(hyp.tokens), ranked, score))
                elif score > float("-inf") and not (hyp.just_met and token in banned):
                    extended = (_Live(hyp.tokens + (token,), score, hyp.met, forced=hyp.forced) if token in free
                                else hyp.then(token, score, self.constraints))
                    candidates.append((extended, row))
        self.over = not candidates
        if candidates and len(self.finished) >= k:
            worst_kept = sorted(h.score for h in self.finished)[-k]
            self.over = max(c.ranked(alpha, t + 2) for c, _ in candidates) <= worst_kept
        if self.over:
            return []
        chosen = _allocate(candidates, k, self.constraints)
        self.live = [c for c, _ in chosen]
        return [row for _, row in chosen]

    def best(self, n_best: int) -> list[Hypothesis]:
        return (sorted(self.finished, key=lambda h: -h.score) + sorted(self.incomplete, key=lambda h: -h.score))[:n_best]


StepFn = Callable[[np.ndarray, Any], tuple[np.ndarray, Any]]  # tokens (N,) int64, context -> (N, V) float32, context


def _top_k(log_probs: np.ndarray, k: int) -> list[list[int]]:
    """Each row's k most probable tokens (in no particular order)."""
    vocab = log_probs.shape[1]
    k = min(k, vocab)
    top: list[list[int]] = np.argpartition(log_probs, vocab - k, axis=1)[:, vocab - k:].tolist()
    return top


def constrained_search(step_fn: StepFn, ctx: Any, max_lens: list[int], bos: int, eos: int, beam_size: int,
                       constraints: list[list[list[int]]], alpha: float = 1.0, n_best: int = 1, pad: int = 0,
                       banned_after: list[int] | None = None) -> list[list[Hypothesis]]:
    """Sentences (ctx with one row each) searched together, each with its own constraints (token
    lists, none empty) and length limit -> per sentence its n-best hypotheses holding every
    constraint, ordered by length-penalised score. One model step serves the live hypotheses of all
    sentences; each sentence's search is its own, so its result does not depend on its neighbours.
    `banned_after`: tokens that may not directly follow a completed constraint (for English, pieces
    that would glue a word onto the term). A sentence stops, like `search.beam_search`, once
    `beam_size` hypotheses have ended and its best live one, normalised at the next length, cannot
    beat the worst of them."""
    searches = [_Sentence(cons, limit) for cons, limit in zip(constraints, max_lens)]
    active = list(searches)
    tokens = np.full(len(searches), bos, dtype=np.int64)
    banned = set(banned_after or [])
    for t in range(max(max_lens, default=-1) + 1):
        check_deadline()
        log_probs, ctx = step_fn(tokens, ctx)
        log_probs = np.array(log_probs, dtype=np.float32)  # a copy: the masks below write into it
        log_probs[:, [pad, bos]] = -np.inf
        if banned_after:
            glued = [row for row, hyp in enumerate(h for s in active for h in s.live) if hyp.just_met]
            if glued:
                log_probs[np.ix_(glued, banned_after)] = -np.inf
        top = _top_k(log_probs, beam_size)
        rows: list[int] = []
        start = 0
        for search in active:
            end = start + len(search.live)
            rows += [start + row for row in search.advance(log_probs[start:end], top[start:end], t, beam_size, alpha,
                                                           eos, banned)]
            start = end
        active = [s for s in active if not s.over]
        if not active:
            break
        ctx = ctx.select(np.array(rows, dtype=np.int64))
        tokens = np.array([hyp.tokens[-1] for s in active for hyp in s.live], dtype=np.int64)
    return [search.best(n_best) for search in searches]


def constrained_beam_search(step_fn: StepFn, ctx: Any, max_len: int, bos: int, eos: int, beam_size: int,
                            constraints: list[list[int]], alpha: float = 1.0, n_best: int = 1, pad: int = 0,
                            banned_after: list[int] | None = None) -> list[Hypothesis]:
    """One sentence's `constrained_search` (ctx with one row)."""
    return constrained_search(step_fn, ctx, [max_len], bos, eos, beam_size, [constraints], alpha, n_best, pad,
                              banned_after)[0]
