"""The one search (`translate.inference.search`): beam, greedy and sampling on scripted probabilities —
exact hypotheses, scores and frequencies — and its candidate search against a full ranking."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from translate.inference.search import beam_search, greedy, length_penalty, max_lengths, token_by_token
from translate.inference.search.beam import top_candidates
from translate.inference.search.rules import RepeatBan, coverage_penalty
from translate.inference.translator import sampler

BOS, EOS, A, B, C = 2, 3, 4, 5, 6
V = 7
TINY = 1e-6
# sentence id -> prefix (tokens after BOS) -> next-token probabilities; unlisted prefixes end (EOS 1.0)
TABLES: dict[int, dict[tuple[int, ...], dict[int, float]]] = {
    0: {(): {A: 0.5, B: 0.4, EOS: 0.1}, (A,): {EOS: 0.6, C: 0.4}, (B,): {C: 0.7, EOS: 0.3}},
    1: {(): {C: 0.9, EOS: 0.1}, (C,): {C: 0.5, A: 0.3, EOS: 0.2}, (C, C): {EOS: 0.9, B: 0.1}},
    2: {(): {A: 1.0}, (A,): {A: 1.0}, (A, A): {A: 1.0}, (A, A, A): {A: 0.9, EOS: 0.1}, (A, A, A, A): {A: 1.0}},
    # a term the model cannot spell (B then C at TINY), after which it would rather go on with A than end
    3: {(): {A: 0.99, B: 0.01}, (A,): {EOS: 0.9, B: 0.1},
        **{(A, B, C) + (A,) * n: {EOS: 0.3, A: 0.7} for n in range(12)}},
}
# the attention each emitted token paid to two source positions (others: none; a third position is padding)
ATTENTION = {A: (1.0, 0.0), B: (0.5, 0.5), C: (0.0, 1.0)}


@dataclass
class Scripted:
    """Search context: which sentence each row is, and what it has emitted so far."""

    sentence: list[int]
    prefix: list[tuple[int, ...]]
    started: bool = False

    def select(self, indices: np.ndarray) -> Scripted:
        idx = indices.tolist()
        return Scripted([self.sentence[i] for i in idx], [self.prefix[i] for i in idx], self.started)

    def reorder(self, indices: np.ndarray) -> Scripted:
        assert [self.sentence[i] for i in indices.tolist()] == self.sentence  # beams stay with their sentence
        return self.select(indices)

    def attended(self) -> np.ndarray:
        """(N, 3): the attention each source position received from the tokens fed so far; 1 on padding."""
        sums = [np.sum([ATTENTION.get(t, (0.0, 0.0)) for t in prefix], axis=0) if prefix else np.zeros(2) for prefix in self.prefix]
        return np.array([[*row, 1.0] for row in sums], dtype=np.float32)


def step(tokens: np.ndarray, ctx: Scripted) -> tuple[np.ndarray, Scripted]:
    prefixes = [p + (t,) if ctx.started else p for p, t in zip(ctx.prefix, tokens.tolist())]
    log_probs = np.full((len(prefixes), V), math.log(TINY), dtype=np.float32)
    for row, (sid, prefix) in enumerate(zip(ctx.sentence, prefixes)):
        for token, p in TABLES[sid].get(prefix, {EOS: 1.0}).items():
            log_probs[row, token] = math.log(p)
    return log_probs, Scripted(ctx.sentence, prefixes, True)


def context(sentences: list[int]) -> Scripted:
    return Scripted(sentences, [() for _ in sentences])


def limits(n: int, value: int = 10) -> np.ndarray:
    return np.full(n, value)


def sample(step_fn, ctx, lims, bos, eos, temperature, generator=None):  # type: ignore[no-untyped-def]
    """Sampling as the PyTorch engine draws: token by token, each token drawn by `sampler`."""
    return token_by_token(step_fn, ctx, lims, bos, eos, sampler(temperature, generator or torch.Generator()))


def test_greedy_takes_the_locally_best_token() -> None:
    [hyp] = greedy(step, context([0]), limits(1), BOS, EOS)
    assert hyp.tokens == [A]
    assert hyp.log_prob == pytest.approx(math.log(0.5 * 0.6))


def test_beam_finds_the_better_sequence_and_orders_n_best() -> None:
    [hyps] = beam_search(step, context([0]), limits(1), BOS, EOS, beam_size=2, alpha=0.0, n_best=3)
    assert [h.tokens for h in hyps] == [[A], [B, C], [A, C]]
    assert [h.score for h in hyps] == pytest.approx([math.log(0.3), math.log(0.28), math.log(0.2)])


def test_length_penalty_prefers_the_longer_hypothesis() -> None:
    [hyps] = beam_search(step, context([0]), limits(1), BOS, EOS, beam_size=2, alpha=1.0, n_best=2)
    assert [h.tokens for h in hyps] == [[B, C], [A]]
    assert hyps[0].score == pytest.approx(math.log(0.28) / ((5 + 3) / 6))
    assert hyps[0].log_prob == pytest.approx(math.log(0.28))
    assert hyps[1].score == pytest.approx(math.log(0.3) / ((5 + 2) / 6))


def test_length_penalty_formula() -> None:
    assert length_penalty(7, 0.0) == 1.0
    assert length_penalty(7, 1.0) == pytest.approx(2.0)
    assert length_penalty(1, 0.6) == pytest.approx(1.0)


def test_coverage_penalty_formula() -> None:
    """beta * sum_j log(min(attention received, 1)), floored at 1e-6 received."""
    got = coverage_penalty(np.array([[0.5, 2.0, 1.0], [0.0, 0.25, 1.0]]), 0.4)
    assert got.tolist() == pytest.approx([0.4 * math.log(0.5), 0.4 * (math.log(1e-6) + math.log(0.25))])
    assert coverage_penalty(np.ones((1, 4)), 3.0).tolist() == [0.0]


def test_coverage_penalty_reranks_hypotheses_by_the_source_they_left_unattended() -> None:
    """Sentence 0's three hypotheses: [A] (p .3) attends only position 0, [B C] (.28) gives it 1.5 and
    position 1 .5, [A C] (.2) covers both. Without the penalty [A] wins; with beta = 1 the ranking is
    log p + sum_j log min(a_j, 1): [A C], [B C], [A]."""
    [plain] = beam_search(step, context([0]), limits(1), BOS, EOS, beam_size=2, alpha=0.0, n_best=3)
    assert [h.tokens for h in plain] == [[A], [B, C], [A, C]]
    [hyps] = beam_search(step, context([0]), limits(1), BOS, EOS, beam_size=2, alpha=0.0, n_best=3, coverage=1.0)
    assert [h.tokens for h in hyps] == [[A, C], [B, C], [A]]
    assert [h.score for h in hyps] == pytest.approx([math.log(0.2), math.log(0.28) + math.log(0.5),
                                                     math.log(0.3) + math.log(1e-6)], abs=1e-5)
    assert [h.log_prob for h in hyps] == pytest.approx([math.log(0.2), math.log(0.28), math.log(0.3)])
    [[half]] = beam_search(step, context([0]), limits(1), BOS, EOS, beam_size=2, alpha=1.0, n_best=1, coverage=0.5)
    assert half.tokens == [A, C]
    assert half.score == pytest.approx(math.log(0.2) / ((5 + 3) / 6))  # covered: the length penalty alone


@pytest.mark.parametrize("sentence", [0, 1, 2])
def test_beam_one_equals_greedy(sentence: int) -> None:
    [g] = greedy(step, context([sentence]), limits(1, 3), BOS, EOS)
    [[b]] = beam_search(step, context([sentence]), limits(1, 3), BOS, EOS, beam_size=1, alpha=0.0)
    assert b.tokens == g.tokens
    assert b.log_prob == pytest.approx(g.log_prob)


def test_max_length_forces_the_end() -> None:
    [g] = greedy(step, context([2]), limits(1, 3), BOS, EOS)
    assert g.tokens == [A, A, A]
    [[b]] = beam_search(step, context([2]), limits(1, 3), BOS, EOS, beam_size=3, alpha=0.0)
    assert b.tokens == [A, A, A]
    assert b.log_prob == pytest.approx(math.log(0.1))  # the forced EOS is scored, not free
    assert max_lengths([4, 10, 3], 1.5, 2).tolist() == [8, 17, 6]
    assert max_lengths([11], 0.7, 5).tolist() == [12]  # 7.7 truncated


@pytest.mark.parametrize("beam,beta", [(1, 0.0), (2, 0.0), (4, 0.0), (4, 0.3)])
def test_batched_search_equals_one_by_one(beam: int, beta: float) -> None:
    sentences = [0, 1, 2, 1, 0]
    lims = np.array([10, 10, 3, 2, 10])
    batched = beam_search(step, context(sentences), lims, BOS, EOS, beam, alpha=0.6, n_best=beam, coverage=beta)
    for i, sid in enumerate(sentences):
        alone = beam_search(step, context([sid]), lims[i:i + 1], BOS, EOS, beam, alpha=0.6, n_best=beam,
                            coverage=beta)[0]
        assert [h.tokens for h in batched[i]] == [h.tokens for h in alone]
        assert [h.score for h in batched[i]] == pytest.approx([h.score for h in alone])
    greedy_batched = greedy(step, context(sentences), lims, BOS, EOS)
    assert [h.tokens for h in greedy_batched] == [greedy(step, context([s]), lims[i:i + 1], BOS, EOS)[0].tokens
                                                   for i, s in enumerate(sentences)]


@pytest.mark.parametrize("vocab", [3, 57, 100, 4000, 4037])
def test_chunked_candidates_equal_a_full_ranking(vocab: int) -> None:
    """The candidate search over vocabulary chunks finds exactly the 2k best beam-score + log-prob
    sums per sentence, in the order a full stable sort of all width * V sums gives (random scores)."""
    rng = np.random.default_rng(vocab)
    active, width, k = 6, 4, 4
    logits = rng.normal(0, 4, (active, width, vocab)).astype(np.float32)
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    log_probs[0, :, : vocab - 1] = -np.inf  # a sentence at its length limit: only the last token left
    scores = (-rng.random((active, width)) * 5).astype(np.float32)
    sums, origin, tokens = top_candidates(scores, log_probs, 2 * k)
    full = (scores[:, :, None] + log_probs).reshape(active, -1)
    order = np.argsort(-full, axis=1, kind="stable")[:, : 2 * k]
    expected = np.take_along_axis(full, order, 1)
    assert sums.shape == (active, 2 * k)
    np.testing.assert_array_equal(sums[:, : expected.shape[1]], expected)
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(origin[:, : order.shape[1]][finite], (order // vocab)[finite])
    np.testing.assert_array_equal(tokens[:, : order.shape[1]][finite], (order % vocab)[finite])
    assert int(tokens.max()) < vocab and int(origin.max()) < width  # impossible fillers still index real tokens


def test_ties_between_candidates_go_to_the_lower_beam_then_the_lower_token() -> None:
    log_probs = np.full((1, 2, 250), -50.0, dtype=np.float32)
    log_probs[0, :, [7, 180]] = -1.0  # four equal candidates in two beams and two chunks
    sums, origin, tokens = top_candidates(np.zeros((1, 2), dtype=np.float32), log_probs, 4)
    assert sums.tolist() == [[-1.0] * 4]
    assert origin.tolist() == [[0, 0, 1, 1]] and tokens.tolist() == [[7, 180, 7, 180]]


def test_searches_stop_at_a_passed_deadline_and_run_without_one() -> None:
    import time

    from translate.inference.deadline import SearchTimeout, deadline
    from translate.inference.search import constrained_search

    with deadline(time.monotonic() - 1):
        with pytest.raises(SearchTimeout, match="search stopped at its deadline"):
            beam_search(step, context([0]), limits(1), BOS, EOS, beam_size=2)
        with pytest.raises(SearchTimeout):
            greedy(step, context([0]), limits(1), BOS, EOS)
        with pytest.raises(SearchTimeout):
            constrained_search(step, context([0]), [10], BOS, EOS, 2, [[[C]]])
    with deadline(time.monotonic() + 60):
        assert greedy(step, context([0]), limits(1), BOS, EOS)[0].tokens == [A]


def test_sampling_draws_whole_sequences_with_the_model_probabilities() -> None:
    """Sentence 0's five sequences have probabilities 0.3, 0.28, 0.2, 0.12, 0.1 (TINY mass aside);
    4,000 draws in one batch land within 4 standard deviations of them, each scored by its log-probability."""
    n = 4000
    draws = sample(step, context([0] * n), limits(n), BOS, EOS, 1.0, torch.Generator().manual_seed(7))
    expected = {(A,): 0.3, (B, C): 0.28, (A, C): 0.2, (B,): 0.12, (): 0.1}
    counts = {seq: sum(tuple(h.tokens) == seq for h in draws) for seq in expected}
    assert sum(counts.values()) >= n - 2  # tokens at TINY probability: almost never
    for seq, p in expected.items():
        assert abs(counts[seq] / n - p) < 4 * math.sqrt(p * (1 - p) / n), (seq, counts[seq])
    for h in draws:
        if tuple(h.tokens) in expected:
            assert h.log_prob == pytest.approx(math.log(expected[tuple(h.tokens)]), abs=1e-5)
            assert h.score == h.log_prob


def test_sampling_is_seeded_sharpens_to_greedy_and_keeps_the_length_limit() -> None:
    sentences = [0, 1, 0, 1] * 25
    first = sample(step, context(sentences), limits(100), BOS, EOS, 1.0, torch.Generator().manual_seed(1))
    again = sample(step, context(sentences), limits(100), BOS, EOS, 1.0, torch.Generator().manual_seed(1))
    other = sample(step, context(sentences), limits(100), BOS, EOS, 1.0, torch.Generator().manual_seed(2))
    assert [h.tokens for h in first] == [h.tokens for h in again]
    assert [h.tokens for h in first] != [h.tokens for h in other]
    cold = sample(step, context(sentences), limits(100), BOS, EOS, 0.01, torch.Generator().manual_seed(3))
    assert [h.tokens for h in cold] == [h.tokens for h in greedy(step, context(sentences), limits(100), BOS, EOS)]
    [capped] = sample(step, context([2]), limits(1, 3), BOS, EOS, 1.0, torch.Generator().manual_seed(4))
    assert capped.tokens == [A, A, A] and capped.log_prob == pytest.approx(math.log(0.1))  # the forced EOS is scored
    with pytest.raises(ValueError, match="temperature must be > 0"):
        sample(step, context([0]), limits(1), BOS, EOS, 0.0)


# No stutter (RepeatBan): A is a piece of two letters (工作), B of one (谢), C of none (",000").
LETTERS = np.array([0, 0, 0, 0, 2, 1, 0])
STUTTER_TABLES: dict[int, dict[tuple[int, ...], dict[int, float]]] = {
    # the model would say A twice, then end
    10: {(): {A: 0.9, EOS: 0.1}, (A,): {A: 0.6, EOS: 0.4}},
    # B twice is a word (谢谢); a third time it is a stutter
    11: {(): {B: 0.9, EOS: 0.1}, (B,): {B: 0.9, EOS: 0.1}, (B, B): {B: 0.6, EOS: 0.4}},
    # the run B A said twice (three letters), broken off before its last piece
    12: {(): {B: 1.0}, (B,): {A: 1.0}, (B, A): {B: 1.0}, (B, A, B): {A: 0.7, C: 0.2, EOS: 0.1}},
    # C has no letters: ",000,000"
    13: {(): {C: 1.0}, (C,): {C: 0.8, EOS: 0.2}},
}
TABLES.update(STUTTER_TABLES)
# no n-gram said twice (RepeatBan.ngram): the model would say B A, then C, then B A again
TABLES[14] = {(): {B: 1.0}, (B,): {A: 1.0}, (B, A): {C: 1.0}, (B, A, C): {B: 1.0},
              (B, A, C, B): {A: 0.7, C: 0.2, EOS: 0.1}}


def ban(free: list[bool]) -> RepeatBan:
    return RepeatBan(LETTERS, np.array(free))


@pytest.mark.parametrize(("sentence", "free", "banned"), [
    (10, [A], [A]), (11, [B, B, B], [B, B]), (12, [B, A, B, A], [B, A, B, C]), (13, [C, C], [C, C])])
def test_greedy_never_says_a_run_twice_unless_the_source_does(sentence: int, free: list[int], banned: list[int]) -> None:
    """Sentence 10 without the rule says A A; with it the model's next choice (EOS, .4) ends it."""
    [plain] = greedy(step, context([sentence]), limits(1), BOS, EOS)
    [excused] = greedy(step, context([sentence]), limits(1), BOS, EOS, repeats=ban([True]))
    assert plain.tokens == excused.tokens == (free if sentence != 10 else [A, A])
    [held] = greedy(step, context([sentence]), limits(1), BOS, EOS, repeats=ban([False]))
    assert held.tokens == banned
    if sentence == 10:
        assert held.log_prob == pytest.approx(math.log(0.9 * 0.4))
    if sentence == 12:
        assert held.log_prob == pytest.approx(math.log(0.2))  # the banned A's mass is not redistributed


def test_beam_search_bans_stutter_per_row_while_sentences_leave_the_batch() -> None:
    """A batch of four: sentence 0 (table 0) ends at once and leaves; the histories of the others must
    follow their rows, and only the sentence marked free may repeat."""
    batch = [0, 10, 11, 10]
    free = [False, False, False, True]
    got = beam_search(step, context(batch), limits(4), BOS, EOS, beam_size=2, alpha=0.0, n_best=2, repeats=ban(free))
    alone = [beam_search(step, context([s]), limits(1), BOS, EOS, beam_size=2, alpha=0.0, n_best=2,
                         repeats=ban([f]))[0] for s, f in zip(batch, free)]
    assert [[h.tokens for h in hyps] for hyps in got] == [[h.tokens for h in hyps] for hyps in alone]
    assert [h.tokens for h in got[1]] == [[A], []]
    assert [h.tokens for h in got[2]] == [[B, B], []]  # .324, then the empty one (.1) before [B] (.09)
    assert [h.tokens for h in got[3]] == [[A, A], [A]]
    for hyps, excused in zip(got, free):
        for h in hyps:
            assert excused or h.tokens[-2:] != [A, A] and h.tokens[-3:] != [B, B, B]


@pytest.mark.parametrize(("history", "ngram", "banned"), [
    ([[B, A, C, B]], 2, {A}),  # B A held: after B, A would say it again
    ([[B, A, C, B]], 3, set()),  # no 3-gram of B A C ... ends in B
    ([[B, A, C, B, A]], 3, {C}),  # B A C held: after B A, C would say it again
    ([[A, C, C, A]], 2, {C}),  # A C (two letters)
    ([[C, B, C, C]], 2, set()),  # C B has one letter (谢 after ",000"): it may come again ...
    ([[C, C, C]], 2, set()),  # ... nor of pieces without letters (",000,000,000")
    ([[B, B]], 2, {B}),  # B B B holds the bigram B B twice (谢谢谢)
    ([[B, A]], 2, set()),  # nothing said yet to say twice
])
def test_an_ngram_held_is_never_said_again(history: list[list[int]], ngram: int, banned: set[int]) -> None:
    rule = RepeatBan(LETTERS, np.array([False]), adjacent=False, ngram=ngram, ngram_free=np.array([False]))
    out = rule.apply(np.zeros((1, V), dtype=np.float32), np.array(history), np.array([0]))
    assert set(np.flatnonzero(np.isinf(out[0])).tolist()) == banned
    free = RepeatBan(LETTERS, np.array([False]), adjacent=False, ngram=ngram, ngram_free=np.array([True]))
    assert not np.isinf(free.apply(np.zeros((1, V), dtype=np.float32), np.array(history), np.array([0]))).any()


def test_greedy_and_beam_search_never_say_an_ngram_twice_unless_the_source_does() -> None:
    """Sentence 14 would say B A C B A; with bigrams held, the A (.7) after B is banned and C (.2) follows,
    its mass not redistributed; a source that says an n-gram twice may be translated so."""
    [plain] = greedy(step, context([14]), limits(1), BOS, EOS)
    assert plain.tokens == [B, A, C, B, A]
    bigrams = RepeatBan(LETTERS, np.array([False]), adjacent=False, ngram=2, ngram_free=np.array([False]))
    [held] = greedy(step, context([14]), limits(1), BOS, EOS, repeats=bigrams)
    assert held.tokens == [B, A, C, B, C] and held.log_prob == pytest.approx(math.log(0.2))
    [[beam]] = beam_search(step, context([14]), limits(1), BOS, EOS, beam_size=3, alpha=0.0, n_best=1, repeats=bigrams)
    assert beam.tokens == [B, A, C, B, C]
    excused = RepeatBan(LETTERS, np.array([False]), adjacent=False, ngram=2, ngram_free=np.array([True]))
    assert greedy(step, context([14]), limits(1), BOS, EOS, repeats=excused)[0].tokens == [B, A, C, B, A]
