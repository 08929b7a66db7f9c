"""The fused label-smoothed cross-entropies (plain and mixture over source positions): the same values
and gradients as autograd through log_softmax."""

import pytest
import torch

from translate.model.decoder import mixture_log_weights
from translate.training.loss import _MixtureNLL, mixture_nll, smoothed_nll


def _reference(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    log_probs = torch.log_softmax(logits, dim=-1)
    return -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1), -log_probs.mean(-1)


@pytest.mark.parametrize("smoothing", [0.0, 0.1, 0.5])
def test_values_and_gradients_match_log_softmax(smoothing: float) -> None:
    torch.manual_seed(0)
    logits = (torch.randn(37, 50, dtype=torch.float64) * 4).requires_grad_()
    targets = torch.randint(0, 50, (37,))
    weights = torch.rand(37, dtype=torch.float64)  # a different weight per token, as after masking
    grads = []
    for function in (smoothed_nll, _reference):
        nll, uniform = function(logits, targets)
        loss = (weights * ((1 - smoothing) * nll + smoothing * uniform)).sum()
        grads.append(torch.autograd.grad(loss, logits)[0])
        if function is smoothed_nll:
            expected = _reference(logits, targets)
            assert torch.allclose(nll, expected[0]) and torch.allclose(uniform, expected[1])
    assert torch.allclose(grads[0], grads[1], atol=1e-12)


def test_gradcheck() -> None:
    logits = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    targets = torch.tensor([0, 6, 3, 3, 1])
    assert torch.autograd.gradcheck(lambda x: smoothed_nll(x, targets), (logits,))


def test_large_logits_stay_finite() -> None:
    logits = torch.tensor([[1000.0, 0.0, -1000.0]], requires_grad=True)
    nll, uniform = smoothed_nll(logits, torch.tensor([0]))
    (nll + uniform).sum().backward()
    assert torch.isfinite(nll).all() and torch.isfinite(uniform).all() and torch.isfinite(logits.grad).all()


def _mixture_reference(logits: torch.Tensor, log_weights: torch.Tensor,
                       targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    log_probs = torch.logsumexp(torch.log_softmax(logits, dim=-1) + log_weights.unsqueeze(-1), dim=1)
    return -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1), -log_probs.mean(-1)


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_mixture_values_and_gradients_match_autograd(smoothing: float, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_MixtureNLL, "BLOCK", 4)  # several blocks, the last one short
    torch.manual_seed(0)
    logits = (torch.randn(11, 6, 30, dtype=torch.float64) * 4).requires_grad_()
    alpha = torch.softmax(torch.randn(11, 6, dtype=torch.float64), -1)
    alpha[:3, 4:] = 0.0  # padded source positions
    log_weights = alpha.clamp_min(1e-30).log().requires_grad_()
    targets = torch.randint(0, 30, (11,))
    scale = torch.rand(11, dtype=torch.float64)
    results = []
    for function in (mixture_nll, _mixture_reference):
        nll, uniform = function(logits, log_weights, targets)
        loss = (scale * ((1 - smoothing) * nll + smoothing * uniform)).sum()
        results.append((nll, uniform, *torch.autograd.grad(loss, (logits, log_weights))))
    for ours, reference in zip(*results):
        assert torch.allclose(ours, reference, atol=1e-12)


def test_mixture_gradcheck() -> None:
    logits = torch.randn(3, 4, 5, dtype=torch.float64, requires_grad=True)
    log_weights = torch.log_softmax(torch.randn(3, 4, dtype=torch.float64), -1).requires_grad_()
    targets = torch.tensor([0, 4, 2])
    assert torch.autograd.gradcheck(lambda z, w: mixture_nll(z, w, targets), (logits, log_weights))


def test_mixture_padding_gets_no_weight_and_no_gradient() -> None:
    """Padded positions (α = 0) are -inf in log space: no tiny (denormal) posteriors, no NaN gradient."""
    scores = torch.tensor([[0.3, -1.2, 0.5, 0.0]], requires_grad=True)
    alpha = torch.softmax(scores.masked_fill(torch.tensor([[False, False, True, True]]), float("-inf")), -1)
    log_weights = mixture_log_weights(alpha)
    assert torch.isinf(log_weights[0, 2:]).all() and torch.isfinite(log_weights[0, :2]).all()
    logits = torch.randn(1, 4, 9, requires_grad=True)
    nll, uniform = mixture_nll(logits, log_weights, torch.tensor([3]))
    (nll + 0.1 * uniform).sum().backward()
    assert scores.grad is not None and logits.grad is not None
    assert torch.isfinite(scores.grad).all() and torch.isfinite(logits.grad).all()
    assert torch.equal(logits.grad[0, 2:], torch.zeros(2, 9))  # positions that cannot be chosen learn nothing
