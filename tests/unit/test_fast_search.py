"""The NumPy search (`translate.inference.fast.search`) makes the decisions of the PyTorch search: the same
hypotheses and scores on scripted and on random probabilities, for greedy and every beam setting."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from tests.unit.test_search import BOS, EOS, TABLES, TINY, A, B, C, V
from translate.inference import search
from translate.inference.fast import search as lite

RANDOM_V, STEPS = 12, 9


def scripted_step(sentence: int):  # type: ignore[no-untyped-def]
    """The scripted tables of test_search as a NumPy step; the context is the prefix emitted so far."""

    def step(tokens: np.ndarray, prefixes: list[tuple[int, ...] | None]) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        new = [() if p is None else p + (int(t),) for p, t in zip(prefixes, tokens)]
        log_probs = np.full((len(new), V), math.log(TINY), np.float32)
        for row, prefix in enumerate(new):
            for token, p in TABLES[sentence].get(prefix, {EOS: 1.0}).items():
                log_probs[row, token] = math.log(p)
        return log_probs, Rows(new)

    return step


class Rows(list):  # type: ignore[type-arg]
    def select(self, rows: np.ndarray) -> Rows:
        return Rows(self[int(r)] for r in rows)


def test_scripted_beam_and_greedy_give_the_exact_hypotheses() -> None:
    hyps = lite.beam_search(scripted_step(0), Rows([None]), 10, BOS, EOS, beam_size=2, alpha=0.0, n_best=3)
    assert [h.tokens for h in hyps] == [[A], [B, C], [A, C]]
    assert [h.score for h in hyps] == pytest.approx([math.log(0.3), math.log(0.28), math.log(0.2)])
    hyps = lite.beam_search(scripted_step(0), Rows([None]), 10, BOS, EOS, beam_size=2, alpha=1.0, n_best=2)
    assert [h.tokens for h in hyps] == [[B, C], [A]]
    assert hyps[0].score == pytest.approx(math.log(0.28) / ((5 + 3) / 6))
    assert lite.greedy(scripted_step(0), Rows([None]), 10, BOS, EOS).tokens == [A]
    forced = lite.beam_search(scripted_step(2), Rows([None]), 3, BOS, EOS, beam_size=3, alpha=0.0)[0]
    assert forced.tokens == [A, A, A] and forced.log_prob == pytest.approx(math.log(0.1))


@dataclass
class TorchRows:
    """PyTorch search context over the random tables: each row's sentence and step."""

    sentence: torch.Tensor
    t: int

    def select(self, rows: torch.Tensor) -> TorchRows:
        return TorchRows(self.sentence[rows], self.t)

    def reorder(self, rows: torch.Tensor) -> TorchRows:
        return self.select(rows)


def random_tables(seed: int, sentences: int) -> np.ndarray:
    """log p(next | sentence, step, previous token): (sentences, STEPS, V, V), EOS likelier with time."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 2.5, (sentences, STEPS, RANDOM_V, RANDOM_V)).astype(np.float32)
    logits[..., EOS] += np.linspace(-2, 3, STEPS, dtype=np.float32)[None, :, None]
    return logits - np.log(np.exp(logits).sum(-1, keepdims=True))


@pytest.mark.parametrize(("beam", "alpha", "n_best"), [(1, 1.0, 1), (2, 0.0, 2), (3, 0.6, 1), (5, 1.0, 5), (4, 2.0, 3)])
def test_random_tables_give_what_the_batched_torch_search_gives(beam: int, alpha: float, n_best: int) -> None:
    sentences, tables = 24, random_tables(beam * 10 + n_best, 24)
    limits = [8, 3, 5, 8, 1, 6] * 4

    def torch_step(tokens: torch.Tensor, ctx: TorchRows) -> tuple[torch.Tensor, TorchRows]:
        rows = tables[ctx.sentence.numpy(), min(ctx.t, STEPS - 1), tokens.numpy()]
        return torch.from_numpy(rows.copy()), TorchRows(ctx.sentence, ctx.t + 1)

    ctx = TorchRows(torch.arange(sentences), 0)
    lims = torch.tensor(limits)
    if beam == 1:
        expected = [[h] for h in search.greedy(torch_step, ctx, lims, BOS, EOS)]
    else:
        expected = search.beam_search(torch_step, ctx, lims, BOS, EOS, beam, alpha, n_best)
    for sid in range(sentences):

        def step(tokens: np.ndarray, t: list[int], sid: int = sid) -> tuple[np.ndarray, Steps]:
            return tables[sid, min(t[0], STEPS - 1), tokens].copy(), Steps([t[0] + 1] * len(tokens))

        if beam == 1:
            got = [lite.greedy(step, Steps([0]), limits[sid], BOS, EOS)]
        else:
            got = lite.beam_search(step, Steps([0]), limits[sid], BOS, EOS, beam, alpha, n_best)
        assert [h.tokens for h in got] == [h.tokens for h in expected[sid]], f"sentence {sid}"
        assert [h.score for h in got] == pytest.approx([h.score for h in expected[sid]], abs=1e-5)
        assert [h.log_prob for h in got] == pytest.approx([h.log_prob for h in expected[sid]], abs=1e-5)


class Steps(list):  # type: ignore[type-arg]
    def select(self, rows: np.ndarray) -> Steps:
        return Steps(self[int(r)] for r in rows)


@pytest.mark.parametrize(("length", "a", "b"), [(4, 1.5, 2), (10, 1.5, 2), (7, 2.0, 10), (3, 1.3, 0), (11, 0.7, 5)])
def test_the_length_limit_is_the_torch_one(length: int, a: float, b: int) -> None:
    assert lite.max_length(length, a, b) == int(search.max_lengths(torch.tensor([length]), a, b)[0])
