"""Greedy, sampled and batched beam search over any step function; knows nothing about RNNs.

A step function maps the previous tokens (N,) and a context to log-probabilities (N, V) and the
next context; the context only needs `select(indices)` to follow beams. Finished sentences are
dropped from the batch, so each sentence's result is independent of what it is batched with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import torch

from translate.inference.deadline import check_deadline
from translate.inference.hypothesis import Hypothesis, length_penalty

__all__ = ["Hypothesis", "beam_search", "greedy", "length_penalty", "max_lengths", "sample"]


class Selectable(Protocol):
    def select(self, indices: torch.Tensor) -> Selectable:
        """Rows `indices` of the batch, in that order (may change which sentences are present)."""
        ...

    def reorder(self, indices: torch.Tensor) -> Selectable:
        """Like select, but `indices` only permute rows among the beams of the same sentence, so
        whatever is constant per sentence (the encoder memory) can be kept as is."""
        ...


C = TypeVar("C", bound=Selectable)
# Named regions of a search step: a profile (`python scripts/profiler.py search`) splits time by them.
REGIONS = ("model.step", "search.candidates", "search.finished", "search.advance", "search.reorder")
_NAMING = ContextVar("search_named_regions", default=False)


@contextmanager
def named_regions() -> Iterator[None]:
    """Within this block, search steps are labelled for torch.profiler (REGIONS); outside it the labels
    cost nothing (a profiler range costs microseconds, a step of a short sentence well under a millisecond)."""
    token = _NAMING.set(True)
    try:
        yield
    finally:
        _NAMING.reset(token)


def _region(name: str) -> AbstractContextManager[Any]:
    return torch.profiler.record_function(name) if _NAMING.get() else nullcontext()
CHUNK = 100  # tokens per vocabulary chunk in the beam's candidate search
StepFn = Callable[[torch.Tensor, C], tuple[torch.Tensor, C]]


def max_lengths(src_lens: torch.Tensor, a: float, b: int) -> torch.Tensor:
    """Longest output allowed per sentence (EOS excluded): a * source length + b."""
    return (src_lens.float() * a).long() + b


def _only_eos(log_probs: torch.Tensor, rows: torch.Tensor, eos: int, banned: tuple[int, ...]) -> torch.Tensor:
    """Never emit `banned` (padding, BOS); rows that reached their length limit may only end."""
    log_probs[..., list(banned)] = float("-inf")
    if rows.any():
        eos_scores = log_probs[rows, ..., eos].clone()
        log_probs[rows] = float("-inf")
        log_probs[rows, ..., eos] = eos_scores
    return log_probs


Pick = Callable[[torch.Tensor], torch.Tensor]  # (N, V) log-probabilities -> (N,) chosen tokens


def _token_by_token(step_fn: StepFn[C], ctx: C, max_lens: torch.Tensor, bos: int, eos: int, pad: int,
                    pick: Pick) -> list[Hypothesis]:
    """One hypothesis per sentence, `pick` choosing each next token; scores are the model's log-probabilities."""
    batch, device = max_lens.size(0), max_lens.device
    tokens = torch.full((batch,), bos, dtype=torch.long, device=device)
    outputs: list[list[int]] = [[] for _ in range(batch)]
    total = torch.zeros(batch, device=device)
    active = torch.arange(batch, device=device)
    for t in range(int(max_lens.max()) + 1):
        check_deadline()
        with _region("model.step"):
            log_probs, ctx = step_fn(tokens, ctx)
        log_probs = _only_eos(log_probs, max_lens[active] <= t, eos, (pad, bos))
        tokens = pick(log_probs)
        total[active] += log_probs.gather(1, tokens.unsqueeze(1)).squeeze(1)
        for row, token in zip(active.tolist(), tokens.tolist()):
            if token != eos:
                outputs[row].append(token)
        going = tokens != eos
        if not going.any():
            break
        if not going.all():
            keep = going.nonzero().squeeze(1)
            active, tokens, ctx = active[keep], tokens[keep], ctx.select(keep)  # type: ignore[assignment]
    return [Hypothesis(out, float(s), float(s)) for out, s in zip(outputs, total)]


@torch.no_grad()
def greedy(step_fn: StepFn[C], ctx: C, max_lens: torch.Tensor, bos: int, eos: int, pad: int = 0) -> list[Hypothesis]:
    """Pick the most probable token at each step. max_lens (B,)."""
    return _token_by_token(step_fn, ctx, max_lens, bos, eos, pad, lambda log_probs: log_probs.argmax(-1))


@torch.no_grad()
def sample(step_fn: StepFn[C], ctx: C, max_lens: torch.Tensor, bos: int, eos: int, temperature: float = 1.0,
           generator: torch.Generator | None = None, pad: int = 0) -> list[Hypothesis]:
    """Draw each token from the model's distribution sharpened (temperature < 1) or flattened (> 1):
    softmax(log p / temperature). Varied translations of the same text, e.g. synthetic training sources
    (sampled back-translation). Reproducible for the same generator state and the same batch."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")

    def pick(log_probs: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(log_probs.float() / temperature, dim=-1)
        return torch.multinomial(probs, 1, generator=generator).squeeze(1)

    return _token_by_token(step_fn, ctx, max_lens, bos, eos, pad, pick)


@dataclass
class _Beams:
    """Live beams of the active sentences: scores (A, K), history (A, K, t), ids (A,) sentence numbers."""

    scores: torch.Tensor
    history: torch.Tensor
    ids: torch.Tensor


def _top_candidates(beams: _Beams, log_probs: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Best 2k continuations per sentence: scores, source beam, token (each (A, 2k)).

    Exact, without a top-k over all width * V sums (as slow as the output layer itself for V = 4,000):
    cut each beam's vocabulary into chunks of CHUNK tokens; a chunk's best sum is its beam's score
    plus the chunk's maximum, an upper bound for every candidate in it, so a sentence's best 2k
    candidates lie in its 2k chunks with the highest bounds; only those are searched.
    """
    active, width, vocab = log_probs.shape
    size = min(CHUNK, vocab)
    padded = -(-vocab // size) * size
    if padded != vocab:  # vocabularies that are no multiple of the chunk: impossible filler tokens
        log_probs = torch.nn.functional.pad(log_probs, (0, padded - vocab), value=float("-inf"))
    per_beam = padded // size
    chunks = log_probs.reshape(active, width * per_beam, size)
    bounds = beams.scores.repeat_interleave(per_beam, dim=1) + chunks.amax(-1)  # (A, width * per_beam)
    best_chunks = bounds.topk(min(2 * k, bounds.size(1)), dim=1).indices  # (A, picks)
    picked = chunks.gather(1, best_chunks.unsqueeze(-1).expand(-1, -1, size))  # (A, picks, size)
    candidates = (beams.scores.gather(1, best_chunks // per_beam).unsqueeze(-1) + picked).view(active, -1)
    if candidates.size(1) < 2 * k:  # tiny vocabularies: pad with impossible candidates
        candidates = torch.nn.functional.pad(candidates, (0, 2 * k - candidates.size(1)), value=float("-inf"))
    top_scores, flat = candidates.topk(2 * k, dim=1)
    flat = flat.clamp_max(best_chunks.size(1) * size - 1)  # padding positions point at a real (impossible) candidate
    chunk = best_chunks.gather(1, flat // size)
    tokens = ((chunk % per_beam) * size + flat % size).clamp_max(vocab - 1)  # filler tokens are impossible too
    return top_scores, chunk // per_beam, tokens


def _collect_finished(beams: _Beams, top: tuple[torch.Tensor, torch.Tensor, torch.Tensor], k: int, eos: int,
                      alpha: float, finished: list[list[Hypothesis]]) -> None:
    """EOS among the k best candidates ends a hypothesis (fairseq's rule: never from ranks >= k)."""
    scores, origin, tokens = top
    ranks = torch.arange(scores.size(1), device=scores.device).unsqueeze(0)
    rows, cols = ((tokens == eos) & (ranks < k) & torch.isfinite(scores)).nonzero(as_tuple=True)
    if rows.numel() == 0:
        return
    sequences = beams.history[rows, origin[rows, cols]].tolist()  # one indexing per step, not per hypothesis
    for sid, seq, raw in zip(beams.ids[rows].tolist(), sequences, scores[rows, cols].tolist()):
        finished[sid].append(Hypothesis(seq, raw / length_penalty(len(seq) + 1, alpha), raw))


def _advance(beams: _Beams, top: tuple[torch.Tensor, torch.Tensor, torch.Tensor], k: int, eos: int) -> tuple[_Beams, torch.Tensor, torch.Tensor]:
    """Keep the k best non-EOS candidates; return new beams, their source rows (A*k,), and their tokens."""
    scores, origin, tokens = top
    width = beams.scores.size(1)  # 1 at the first step, k afterwards
    ranks = torch.arange(scores.size(1), device=scores.device).unsqueeze(0) + (tokens == eos).long() * scores.size(1)
    keep = ranks.argsort(dim=1, stable=True)[:, :k]  # (A, k)
    origin, tokens = origin.gather(1, keep), tokens.gather(1, keep)
    history = beams.history.gather(1, origin.unsqueeze(-1).expand(-1, -1, beams.history.size(2)))
    rows = (torch.arange(origin.size(0), device=origin.device).unsqueeze(1) * width + origin).view(-1)
    new = _Beams(scores=scores.gather(1, keep), history=torch.cat([history, tokens.unsqueeze(-1)], dim=2), ids=beams.ids)
    return new, rows, tokens.view(-1)


def _still_open(beams: _Beams, finished: list[list[Hypothesis]], need: int, alpha: float, t: int) -> torch.Tensor:
    """(A,) True where the sentence needs more steps: fewer than `need` finished, or its best live
    beam (normalised at the next length) could still beat the `need`-th best finished one."""
    best_live = (beams.scores[:, 0] / length_penalty(t + 2, alpha)).tolist()
    flags = []
    for sid, live in zip(beams.ids.tolist(), best_live):
        done = sorted((h.score for h in finished[sid]), reverse=True)
        flags.append(len(done) < need or live > done[need - 1])
    return torch.tensor(flags, dtype=torch.bool, device=beams.scores.device)


@torch.no_grad()
def beam_search(step_fn: StepFn[C], ctx: C, max_lens: torch.Tensor, bos: int, eos: int, beam_size: int,
                alpha: float = 1.0, n_best: int = 1, pad: int = 0) -> list[list[Hypothesis]]:
    """Batched beam search. A sentence ends at its max length, or once it holds `beam_size` finished
    hypotheses and its best live beam (normalised at the next length, as Hugging Face's
    `BeamHypotheses`) cannot beat the worst of them; exact for alpha = 0, where scores only fall.

    Returns, per sentence, the `n_best` hypotheses ordered by length-penalised score.
    """
    batch, k, device = max_lens.size(0), beam_size, max_lens.device
    # The first step runs once per sentence (one live beam each); its k best tokens then fan out.
    beams = _Beams(scores=torch.zeros(batch, 1, device=device),
                   history=torch.zeros(batch, 1, 0, dtype=torch.long, device=device),
                   ids=torch.arange(batch, device=device))
    tokens = torch.full((batch,), bos, dtype=torch.long, device=device)
    finished: list[list[Hypothesis]] = [[] for _ in range(batch)]
    for t in range(int(max_lens.max()) + 1):
        check_deadline()
        with _region("model.step"):
            log_probs, ctx = step_fn(tokens, ctx)
        width = beams.scores.size(1)
        with _region("search.candidates"):
            log_probs = _only_eos(log_probs.view(-1, width, log_probs.size(-1)), max_lens[beams.ids] <= t, eos,
                                  (pad, bos))
            top = _top_candidates(beams, log_probs, k)
        with _region("search.finished"):
            _collect_finished(beams, top, k, eos, alpha, finished)
        with _region("search.advance"):
            beams, rows, tokens = _advance(beams, top, k, eos)
            open_rows = _still_open(beams, finished, k, alpha, t) & (max_lens[beams.ids] > t)
        if not open_rows.any():
            break
        with _region("search.reorder"):
            ctx = (ctx.select(rows) if width == 1 else ctx.reorder(rows))  # type: ignore[assignment]
            if not open_rows.all():
                keep = open_rows.nonzero().squeeze(1)
                beam_rows = (keep.unsqueeze(1) * k + torch.arange(k, device=device)).view(-1)
                beams = _Beams(beams.scores[keep], beams.history[keep], beams.ids[keep])
                ctx, tokens = ctx.select(beam_rows), tokens[beam_rows]  # type: ignore[assignment]
    return [sorted(hyps, key=lambda h: -h.score)[:n_best] for hyps in finished]
