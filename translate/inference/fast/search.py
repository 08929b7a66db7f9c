"""Greedy and beam search for one sentence in NumPy, by the rules of `translate.inference.search`.

The same decisions as the batched PyTorch search (tested: identical hypotheses on scripted and
model probabilities): banned tokens, the length limit a * |source| + b, EOS only from the k best
candidates, the k best non-EOS candidates kept, and the stopping rule on the length-penalised
score at the next length.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from translate.inference.deadline import check_deadline
from translate.inference.hypothesis import Hypothesis, length_penalty

StepFn = Callable[[np.ndarray, Any], tuple[np.ndarray, Any]]  # tokens (N,), context -> (N, V), context


def max_length(src_len: int, a: float, b: int) -> int:
    """`translate.inference.search.max_lengths` for one sentence (float32 product, truncated, as there)."""
    return int(np.float32(src_len) * np.float32(a)) + b


def _restrict(log_probs: np.ndarray, at_limit: bool, eos: int, banned: tuple[int, ...]) -> np.ndarray:
    log_probs[:, list(banned)] = -np.inf
    if at_limit:
        eos_scores = log_probs[:, eos].copy()
        log_probs[:] = -np.inf
        log_probs[:, eos] = eos_scores
    return log_probs


def greedy(step: StepFn, ctx: Any, limit: int, bos: int, eos: int, pad: int = 0) -> Hypothesis:
    tokens, total, out = np.array([bos]), np.float32(0.0), []
    for t in range(limit + 1):
        check_deadline()
        log_probs, ctx = step(tokens, ctx)
        log_probs = _restrict(log_probs, limit <= t, eos, (pad, bos))
        token = int(log_probs[0].argmax())
        total += log_probs[0, token]
        if token == eos:
            break
        out.append(token)
        tokens = np.array([token])
    return Hypothesis(out, float(total), float(total))


def _top(scores: np.ndarray, log_probs: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The `count` best continuations, best first: their scores, source beams and tokens."""
    sums = (scores[:, None] + log_probs).ravel()
    count = min(count, sums.size)
    picks = np.argpartition(-sums, count - 1)[:count]
    picks = picks[np.lexsort((picks, -sums[picks]))]  # by score, ties by position (as a full sort would)
    return sums[picks], picks // log_probs.shape[1], picks % log_probs.shape[1]


def beam_search(step: StepFn, ctx: Any, limit: int, bos: int, eos: int, beam_size: int, alpha: float = 1.0,
                n_best: int = 1, pad: int = 0) -> list[Hypothesis]:
    """The `n_best` best hypotheses by length-penalised score."""
    k, scores = beam_size, np.zeros(1, np.float32)
    history: list[list[int]] = [[]]
    tokens, finished = np.array([bos]), list[Hypothesis]()
    for t in range(limit + 1):
        check_deadline()
        log_probs, ctx = step(tokens, ctx)
        top_scores, origin, top_tokens = _top(scores, _restrict(log_probs, limit <= t, eos, (pad, bos)), 2 * k)
        for rank in range(min(k, top_scores.size)):
            if top_tokens[rank] == eos and np.isfinite(top_scores[rank]):
                seq, raw = history[origin[rank]], float(top_scores[rank])
                finished.append(Hypothesis(list(seq), raw / length_penalty(len(seq) + 1, alpha), raw))
        keep = np.argsort(np.arange(top_scores.size) + (top_tokens == eos) * top_scores.size, kind="stable")[:k]
        scores, origin, tokens = top_scores[keep], origin[keep], top_tokens[keep]
        history = [history[o] + [int(tok)] for o, tok in zip(origin, tokens)]
        done = sorted((h.score for h in finished), reverse=True)
        still_open = len(done) < k or float(scores[0]) / length_penalty(t + 2, alpha) > done[k - 1]
        if not still_open or limit <= t:
            break
        ctx = ctx.select(origin)
    return sorted(finished, key=lambda h: -h.score)[:n_best]
