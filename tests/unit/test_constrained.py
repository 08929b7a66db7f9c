"""Lexically constrained beam search on scripted probabilities: every constraint appears, placed
where the model scores it best, with exact scores."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.unit.test_search import BOS, EOS, TINY, A, B, C, context, limits, step
from translate.inference.search import beam_search, constrained_search
from translate.inference.search.constrained import Live as _Live
from translate.inference.search.constrained import allocate as _allocate
from translate.inference.search.rules import Hypothesis

array_step = step


def constrained_beam_search(step_fn: Any, ctx: Any, max_len: int, bos: int, eos: int, beam_size: int,
                            constraints: list[list[int]], alpha: float = 1.0, n_best: int = 1,
                            banned_after: list[int] | None = None, avoid: list[list[int]] | None = None) -> list[Hypothesis]:
    """One sentence's constrained search."""
    return constrained_search(step_fn, ctx, [max_len], bos, eos, beam_size, [constraints], alpha, n_best,
                              banned_after=banned_after, avoid=[avoid or []])[0]


def test_without_constraints_it_is_the_plain_beam_search() -> None:
    for alpha in (0.0, 1.0):
        hyps = constrained_beam_search(array_step, context([0]), 10, BOS, EOS, 2, [], alpha=alpha, n_best=2)
        [plain] = beam_search(step, context([0]), limits(1), BOS, EOS, 2, alpha, 2)
        assert [h.tokens for h in hyps] == [h.tokens for h in plain]
        assert [h.score for h in hyps] == pytest.approx([h.score for h in plain])


def test_a_one_token_constraint_is_placed_where_it_scores_best() -> None:
    # sentence 0: A (0.5) then EOS (0.6) is best unconstrained; with C required: B C (0.4 * 0.7) beats A C (0.5 * 0.4)
    [best] = constrained_beam_search(array_step, context([0]), 10, BOS, EOS, 3, [[C]], alpha=0.0)
    assert best.tokens == [B, C]
    assert best.log_prob == pytest.approx(math.log(0.4 * 0.7))


def test_a_constraint_the_model_finds_unlikely_is_still_met() -> None:
    # sentence 1 never wants B before C C; the constraint forces it, and the sequence still ends
    hyps = constrained_beam_search(array_step, context([1]), 6, BOS, EOS, 4, [[B]], alpha=0.0, n_best=4)
    assert hyps and all(B in h.tokens for h in hyps)
    assert hyps[0].tokens == [C, C, B]
    assert hyps[0].log_prob == pytest.approx(math.log(0.9 * 0.5 * 0.1 * 1.0))


def test_a_multi_token_constraint_appears_contiguously_and_several_constraints_all_appear() -> None:
    [best] = constrained_beam_search(array_step, context([1]), 8, BOS, EOS, 4, [[A, B], [C]], alpha=0.0)
    tokens = best.tokens
    assert C in tokens and any(tokens[i:i + 2] == [A, B] for i in range(len(tokens) - 1))
    expected = math.log(0.9 * 0.3 * TINY * 1.0)  # C, A (0.3), B (not scripted: TINY), then EOS
    assert tokens == [C, A, B] and best.log_prob == pytest.approx(expected, rel=1e-5)


def test_at_the_length_limit_hypotheses_that_met_every_constraint_rank_first() -> None:
    hyps = constrained_beam_search(array_step, context([0]), 1, BOS, EOS, 3, [[C]], alpha=0.0, n_best=3)
    assert hyps[0].tokens == [C]  # the only one-token output holding C, however unlikely
    assert all(C not in h.tokens for h in hyps[1:])


def test_banned_after_keeps_a_term_from_being_glued_to_the_next_piece() -> None:
    # unconstrained-best with B is B C; with C banned right after the term B, C may not follow it
    [best] = constrained_beam_search(array_step, context([0]), 4, BOS, EOS, 3, [[B]], alpha=0.0, banned_after=[C])
    assert best.tokens[:2] != [B, C] and B in best.tokens


def test_the_beam_is_shared_round_robin_between_banks() -> None:
    cons = [[A, B]]
    live = [(_Live((C,), -1.0, (False,)), 0), (_Live((C,), -2.0, (False,)), 1), (_Live((A,), -5.0, (False,), 0, 1), 2),
            (_Live((A, B), -9.0, (True,)), 3)]
    chosen = _allocate(live, 3, cons)
    assert [row for _, row in chosen] == [3, 2, 0]  # one from each bank, most constraint tokens first


def test_a_costly_term_does_not_make_the_length_penalty_pay_for_running_on() -> None:
    # sentence 3: the term B C costs ~1e-7; after it each further A (0.7) is cheap next to ending (0.3).
    # Length-penalising the whole sum (alpha 1) would rank A B C A A ... A (to the limit) first; only
    # the freely chosen tokens are length-penalised, so A B C then EOS ranks first.
    hyps = constrained_beam_search(array_step, context([3]), 12, BOS, EOS, 4, [[B, C]], alpha=1.0, n_best=4)
    best = hyps[0]
    assert best.tokens == [A, B, C]
    free, forced = math.log(0.99 * 0.3), math.log(0.1 * TINY)
    assert best.log_prob == pytest.approx(free + forced, rel=1e-6)
    assert best.score == pytest.approx(forced + free / ((5 + 4) / 6), rel=1e-6)
    longer = [h for h in hyps if len(h.tokens) > 3]
    assert longer and all(h.score < best.score for h in longer)
    whole_sum = [h.log_prob / ((5 + len(h.tokens) + 1) / 6) for h in hyps]
    assert max(whole_sum) > whole_sum[0]  # what the old ranking would have preferred


def test_sentences_searched_together_get_what_each_gets_alone() -> None:
    # different sentences, constraints (none, one, two) and length limits, so they end at different steps
    cases = [(0, [[C]], 10), (1, [[A, B], [C]], 8), (3, [[B, C]], 12), (0, [], 3), (1, [[B]], 6)]
    for alpha in (0.0, 1.0):
        alone = [constrained_beam_search(array_step, context([sid]), limit, BOS, EOS, 4, cons, alpha=alpha, n_best=3)
                 for sid, cons, limit in cases]
        together = constrained_search(array_step, context([sid for sid, _, _ in cases]), [limit for _, _, limit in cases],
                                      BOS, EOS, 4, [cons for _, cons, _ in cases], alpha=alpha, n_best=3)
        assert [[h.tokens for h in hyps] for hyps in together] == [[h.tokens for h in hyps] for hyps in alone]
        assert [[h.score for h in hyps] for hyps in together] == [[h.score for h in hyps] for hyps in alone]
        assert all(C in h.tokens for h in together[0]) and all(B in h.tokens for h in together[4])


def test_avoided_sequences_are_never_written() -> None:
    # sentence 0 with C required: B C (0.28) is best; B avoided -> A C (0.5 * 0.4)
    [best] = constrained_beam_search(array_step, context([0]), 10, BOS, EOS, 3, [[C]], alpha=0.0, avoid=[[B]])
    assert best.tokens == [A, C] and best.log_prob == pytest.approx(math.log(0.5 * 0.4))
    # a two-token sequence is banned only whole: after B, C may not come, so B is worth nothing here
    hyps = constrained_beam_search(array_step, context([0]), 10, BOS, EOS, 3, [[C]], alpha=0.0, n_best=3, avoid=[[B, C]])
    assert hyps[0].tokens == [A, C]
    assert all(h.tokens[i:i + 2] != [B, C] for h in hyps for i in range(len(h.tokens)))


def test_sentences_searched_together_avoid_only_their_own_sequences() -> None:
    cases = [(0, [[C]], [[B]]), (0, [[C]], []), (1, [[B]], [[C, C]]), (1, [[B]], [])]
    alone = [constrained_beam_search(array_step, context([sid]), 8, BOS, EOS, 4, cons, alpha=0.0, n_best=2, avoid=avoid)
             for sid, cons, avoid in cases]
    together = constrained_search(array_step, context([sid for sid, _, _ in cases]), [8] * len(cases), BOS, EOS, 4,
                                  [cons for _, cons, _ in cases], 0.0, 2, avoid=[avoid for _, _, avoid in cases])
    assert [[h.tokens for h in hyps] for hyps in together] == [[h.tokens for h in hyps] for hyps in alone]
    assert together[0][0].tokens == [A, C] and together[1][0].tokens == [B, C]
    assert together[2][0].tokens[:2] != [C, C] and together[3][0].tokens == [C, C, B]
