"""The fused label-smoothed cross-entropy: the same values and gradients as through log_softmax."""

import pytest
import torch

from translate.loss import smoothed_nll


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
