"""Scoring functions against hand-computed numbers."""

import math

import torch

from translate.model.attention.scoring import (
    additive_score,
    bilinear_score,
    dot_score,
    dot_scores,
    masked_softmax,
    scaled_dot_score,
    scaled_dot_scores,
)

Q = torch.tensor([[1.0, 2.0]])  # (B=1, D=2)
K = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])  # (1, S=3, 2)


def test_dot() -> None:
    assert dot_score(Q, K).tolist() == [[1.0, 2.0, 3.0]]


def test_scaled_dot_is_dot_over_sqrt_d() -> None:
    assert torch.allclose(scaled_dot_score(Q, K), torch.tensor([[1.0, 2.0, 3.0]]) / math.sqrt(2))
    q, k = torch.randn(4, 64), torch.randn(4, 7, 64)
    assert torch.allclose(dot_score(q, k), scaled_dot_score(q, k) * 8.0, atol=1e-5)


def test_many_queries_at_once_score_what_each_query_scores_alone() -> None:
    # self-attention: (B, H, T, d) queries against (B, H, S, d) keys, as one matrix product
    queries, keys = torch.randn(3, 2, 5, 8), torch.randn(3, 2, 7, 8)
    for many, one in ((dot_scores, dot_score), (scaled_dot_scores, scaled_dot_score)):
        together = many(queries, keys)
        assert together.shape == (3, 2, 5, 7)
        for t in range(5):
            assert torch.allclose(together[:, :, t], one(queries[:, :, t], keys), atol=1e-6)
    assert dot_scores(Q.unsqueeze(1), K).tolist() == [[[1.0, 2.0, 3.0]]]


def test_one_query_dot_rounds_as_the_matrix_vector_product_the_studies_were_trained_with() -> None:
    # the committed studies' runs retrain bit for bit only with this rounding; the many-query matrix
    # product gives the same scores to ~1e-7 but not the same bits, which changes a trained model
    torch.manual_seed(0)
    q, k = torch.randn(64, 256), torch.randn(64, 19, 256)
    assert torch.equal(dot_score(q, k), (k @ q.unsqueeze(-1)).squeeze(-1))
    assert torch.equal(scaled_dot_score(q, k), (k @ q.unsqueeze(-1)).squeeze(-1) / 16.0)


def test_bilinear() -> None:
    weight = torch.tensor([[0.0, 1.0], [1.0, 0.0]])  # swaps q: W q = (2, 1)
    assert bilinear_score(Q, K, weight).tolist() == [[2.0, 1.0, 3.0]]


def test_additive() -> None:
    # v^T tanh(Wk + Uq) with Wk, Uq given directly
    keys_proj = torch.tensor([[[0.0, 0.0], [1.0, -1.0]]])
    query_proj = torch.tensor([[0.5, 0.5]])
    v = torch.tensor([1.0, 2.0])
    expected = [math.tanh(0.5) + 2 * math.tanh(0.5), math.tanh(1.5) + 2 * math.tanh(-0.5)]
    assert torch.allclose(additive_score(query_proj, keys_proj, v), torch.tensor([expected]))


def test_additive_with_heads_matches_each_head_alone() -> None:
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 3, 5, 4), torch.randn(3, 4)
    together = additive_score(q, k, v)  # (B, H, S)
    for h in range(3):
        assert torch.allclose(together[:, h], additive_score(q[:, h], k[:, h], v[h]), atol=1e-6)


def test_masked_softmax_zero_on_padding() -> None:
    scores = torch.tensor([[1.0, 2.0, 100.0]])
    weights = masked_softmax(scores, torch.tensor([[True, True, False]]))
    assert weights[0, 2].item() == 0.0
    e = math.exp(1.0)
    assert torch.allclose(weights, torch.tensor([[1 / (1 + e), e / (1 + e), 0.0]]))
