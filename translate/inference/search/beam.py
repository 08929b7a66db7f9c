"""Beam search's selection: per sentence, the k best continuations of its live hypotheses.

EOS ends a hypothesis only from among the k best candidates (fairseq's rule: never from ranks >= k);
the k best other candidates live on. Ended hypotheses rank by log-probability / length penalty
(+ the coverage penalty, when the search has one).
"""

from __future__ import annotations

import numpy as np

from translate.inference.search.core import Chosen
from translate.inference.search.rules import Hypothesis, length_penalty

CHUNK = 100  # tokens per vocabulary chunk in the candidate search


def top_candidates(scores: np.ndarray, log_probs: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The `count` best continuations per sentence, best first (ties: the lower beam, then the lower
    token): their summed scores, source beams and tokens (each (A, count)). scores (A, W) of the live
    hypotheses, log_probs (A, W, V).

    Exact, without ranking all W * V sums (as slow as the output layer itself for V = 8,000): cut each
    beam's vocabulary into chunks of CHUNK tokens; a chunk's best sum is its beam's score plus the
    chunk's maximum, an upper bound for every candidate in it, so a sentence's best `count` candidates
    lie in its `count` chunks with the highest bounds; only those are ranked.
    """
    active, width, vocab = log_probs.shape
    size = min(CHUNK, vocab)
    per_beam = -(-vocab // size)
    if per_beam * size != vocab:  # vocabularies that are no multiple of the chunk: impossible filler tokens
        log_probs = np.pad(log_probs, ((0, 0), (0, 0), (0, per_beam * size - vocab)), constant_values=-np.inf)
    chunks = log_probs.reshape(active, width * per_beam, size)
    bounds = np.repeat(scores, per_beam, axis=1) + chunks.max(-1)  # (A, W * per_beam)
    picks = min(count, bounds.shape[1])
    best_chunks = np.argpartition(-bounds, picks - 1, axis=1)[:, :picks]  # (A, picks), any order
    picked = np.take_along_axis(chunks, best_chunks[:, :, None], axis=1)  # (A, picks, size)
    sums = (np.take_along_axis(scores, best_chunks // per_beam, axis=1)[:, :, None] + picked).reshape(active, -1)
    position = ((best_chunks[:, :, None] * size + np.arange(size)).reshape(active, -1))  # beam * padded V + token
    take = min(count, sums.shape[1])
    order = _best_first(sums, position, take)
    top_sums, top_positions = np.take_along_axis(sums, order, 1), np.take_along_axis(position, order, 1)
    beams, tokens = top_positions // (per_beam * size), top_positions % (per_beam * size)
    if take < count:  # tiny vocabularies: impossible candidates fill the rest
        fill = ((0, 0), (0, count - take))
        top_sums = np.pad(top_sums, fill, constant_values=-np.inf)
        beams, tokens = np.pad(beams, fill), np.pad(tokens, fill)
    return top_sums, beams, np.minimum(tokens, vocab - 1)  # filler tokens are impossible: any real one stands in


def _best_first(sums: np.ndarray, position: np.ndarray, take: int) -> np.ndarray:
    """Per row, the columns of the `take` largest sums, largest first, ties by position: a partial
    selection, then a sort of what it selected (rows whose boundary value is tied are sorted whole)."""
    if take == sums.shape[1]:
        return np.lexsort((position, -sums), axis=-1)
    picked = np.argpartition(-sums, take - 1, axis=1)[:, :take]
    values = np.take_along_axis(sums, picked, 1)
    order = np.take_along_axis(picked, np.lexsort((np.take_along_axis(position, picked, 1), -values), axis=-1), 1)
    boundary = values.min(axis=1, keepdims=True)
    tied = np.flatnonzero((sums >= boundary).sum(axis=1) > take)  # a tie across the boundary: any may be picked
    if tied.size:
        order[tied] = np.lexsort((position[tied], -sums[tied]), axis=-1)[:, :take]
    return order


class BeamSelection:
    """Beam search of width k with the GNMT length penalty `alpha`; live scores (A, W) and histories
    (A, W, t) per sentence (W = 1 at the first step, k afterwards)."""

    def __init__(self, sentences: int, beam_size: int, alpha: float, eos: int) -> None:
        self.need, self.alpha, self.eos = beam_size, alpha, eos
        self.scores = np.zeros((sentences, 1), dtype=np.float32)
        self.history = np.zeros((sentences, 1, 0), dtype=np.int64)

    def choose(self, log_probs: np.ndarray, counts: np.ndarray, t: int, at_limit: np.ndarray,
               bonus: np.ndarray | None = None) -> Chosen:
        k, (active, width) = self.need, self.scores.shape
        sums, origin, tokens = top_candidates(self.scores, log_probs.reshape(active, width, -1), 2 * k)
        ends = (tokens == self.eos) & np.isfinite(sums)
        ends[:, k:] = False
        ended = []
        for a, rank in zip(*np.nonzero(ends)):
            sequence, raw = self.history[a, origin[a, rank]].tolist(), float(sums[a, rank])
            score = raw / length_penalty(len(sequence) + 1, self.alpha)
            if bonus is not None:
                score += float(bonus[a * width + origin[a, rank]])
            ended.append((int(a), Hypothesis(sequence, score, raw), True))
        ranks = np.arange(2 * k) + (tokens == self.eos) * (2 * k)  # EOS candidates after every other
        keep = np.argsort(ranks, axis=1, kind="stable")[:, :k]
        origin, tokens = np.take_along_axis(origin, keep, 1), np.take_along_axis(tokens, keep, 1)
        self.scores = np.take_along_axis(sums, keep, 1)
        self.history = np.concatenate([np.take_along_axis(self.history, origin[:, :, None], 1), tokens[:, :, None]], 2)
        rows = (np.arange(active)[:, None] * width + origin).reshape(-1)
        best_live = self.scores[:, 0] / length_penalty(t + 2, self.alpha)
        if bonus is not None:  # the coverage the best live hypothesis has so far (it can only grow)
            best_live = best_live + bonus[rows.reshape(active, k)[:, 0]]
        return Chosen(rows, tokens.reshape(-1), np.full(active, k), ended, best_live)

    def keep(self, sentences: np.ndarray) -> None:
        self.scores, self.history = self.scores[sentences], self.history[sentences]
