"""The one search loop: any engine's step, any selection, the rules of `rules`.

A step maps the previous tokens (N,) int64 and a context to log-probabilities (N, V) float32 (which
the search may write into) and the next context. A context follows the live hypotheses with
`select(rows)` (rows of the batch, in that order; sentences may leave) and `reorder(rows)` (rows
that stay with their sentence, each sentence keeping its number of rows, so whatever is constant per
sentence, the encoder memory, can be kept as is). Rows are sentence-major: a sentence's live
hypotheses are consecutive.

A `Selection` decides, from one step's log-probabilities, which hypotheses live on and which end:
`BeamSelection` (the k best continuations per sentence), `PickSelection` (one token per sentence:
greedy, sampling), `ConstrainedSelection` (dynamic beam allocation over constraint banks). The loop
owns everything else: the deadline, the banned tokens (and, with a `RepeatBan`, the tokens that would stutter
given each row's history) and the length limit, the coverage penalty, the ended
hypotheses and when a sentence is over, dropping sentences that are over (so a sentence's result never depends on
what it is batched with), the n-best lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from translate.inference.deadline import check_deadline
from translate.inference.search.rules import Ended, Hypothesis, RepeatBan, coverage_penalty, restrict


class Context(Protocol):
    def select(self, rows: np.ndarray) -> Context:
        ...

    def reorder(self, rows: np.ndarray) -> Context:
        ...


C = TypeVar("C", bound=Context)
StepFn = Callable[[np.ndarray, Any], tuple[np.ndarray, Any]]

# Named regions of a search step: a profile (`python scripts/profiler.py search`) splits time by them.
REGIONS = ("model.step", "search.candidates", "search.finished", "search.advance", "search.reorder")
_LABEL: ContextVar[Callable[[str], AbstractContextManager[Any]] | None] = ContextVar("search_regions", default=None)


@contextmanager
def named_regions(label: Callable[[str], AbstractContextManager[Any]]) -> Iterator[None]:
    """Within this block, each region of a search step runs inside `label(name)` (e.g.
    `torch.profiler.record_function`); outside it the regions cost one context variable read."""
    token = _LABEL.set(label)
    try:
        yield
    finally:
        _LABEL.reset(token)


def region(name: str) -> AbstractContextManager[Any]:
    label = _LABEL.get()
    return nullcontext() if label is None else label(name)


@dataclass
class Chosen:
    """What a selection made of one step, for the A sentences still searched (rows sentence-major):
    `rows` (M,) the current rows the live hypotheses extend, `tokens` (M,) their last token, `counts`
    (A,) live hypotheses per sentence, `ended` (sentence position, hypothesis, complete) for
    hypotheses that ended, `best_live` (A,) each sentence's best live hypothesis ranked at the next
    length (what `Ended.open` compares)."""

    rows: np.ndarray
    tokens: np.ndarray
    counts: np.ndarray
    ended: list[tuple[int, Hypothesis, bool]]
    best_live: np.ndarray


class Selection(Protocol):
    need: int  # complete hypotheses a sentence needs before the stopping rule applies

    def choose(self, log_probs: np.ndarray, counts: np.ndarray, t: int, at_limit: np.ndarray,
               bonus: np.ndarray | None = None) -> Chosen:
        """Step t: log-probabilities (rows, V), already restricted, of `counts` (A,) rows per sentence;
        `at_limit` (A,) True where the sentence is at its length limit; `bonus` (rows,) or None: what a
        hypothesis ending from that row adds to its rank (the coverage penalty, <= 0)."""
        ...

    def keep(self, sentences: np.ndarray) -> None:
        """Only these sentence positions go on (the others are over)."""
        ...


def run(step: StepFn, ctx: Any, limits: Any, bos: int, eos: int, selection: Selection, n_best: int,
        banned: tuple[int, ...], coverage: float = 0.0, repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
    """Search every sentence of `ctx` (one row each) up to its length limit (`limits` (B,), EOS
    excluded) -> per sentence its `n_best` hypotheses, best first. `coverage` > 0: the coverage
    penalty's beta, from the attention each row's source positions received so far (`ctx.attended()`,
    the step's own attention included). `repeats`: no token that would make a row stutter."""
    limits = np.asarray(limits, dtype=np.int64)
    batch = len(limits)
    ids = np.arange(batch)  # sentence numbers of the sentences still searched
    counts = np.ones(batch, dtype=np.int64)
    tokens = np.full(batch, bos, dtype=np.int64)
    ended = [Ended() for _ in range(batch)]
    history = np.zeros((batch, 0), dtype=np.int64)  # each row's tokens, kept only for `repeats`
    for t in range(int(limits.max(initial=-1)) + 1):
        check_deadline()
        with region("model.step"):
            log_probs, ctx = step(tokens, ctx)
        at_limit = limits[ids] <= t
        with region("search.candidates"):
            log_probs = restrict(np.asarray(log_probs, dtype=np.float32), np.repeat(at_limit, counts), eos, banned)
            if repeats is not None:
                log_probs = repeats.apply(log_probs, history, np.repeat(ids, counts))
            bonus = coverage_penalty(ctx.attended(), coverage) if coverage > 0 else None
            chosen = selection.choose(log_probs, counts, t, at_limit, bonus)
        with region("search.finished"):
            for position, hypothesis, complete in chosen.ended:
                ended[ids[position]].add(hypothesis, complete)
        with region("search.advance"):
            going = (chosen.counts > 0) & ~at_limit & np.array(
                [ended[i].open(float(best), selection.need) for i, best in zip(ids.tolist(), chosen.best_live)],
                dtype=bool)
        if not going.any():
            break
        with region("search.reorder"):
            if not np.array_equal(chosen.rows, np.arange(len(tokens))):  # greedy: rows stay until one ends
                ctx = ctx.reorder(chosen.rows) if np.array_equal(chosen.counts, counts) else ctx.select(chosen.rows)
            tokens, counts = chosen.tokens, chosen.counts
            if repeats is not None:
                history = np.concatenate([history[chosen.rows], tokens[:, None]], axis=1)
            if not going.all():
                kept = np.flatnonzero(going)
                starts = np.cumsum(counts) - counts
                rows = np.concatenate([np.arange(starts[s], starts[s] + counts[s]) for s in kept])
                ctx, tokens, counts, ids = ctx.select(rows), tokens[rows], counts[kept], ids[kept]
                history = history[rows] if repeats is not None else history
                selection.keep(kept)
    return [sentence.best(n_best) for sentence in ended]
