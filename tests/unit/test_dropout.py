"""The project's dropout: same distribution as nn.Dropout (keep 1 - p, scale 1 / (1 - p)), identity in eval."""

from __future__ import annotations

import pytest
import torch

from translate.model.dropout import Dropout


def test_keeps_one_minus_p_and_rescales() -> None:
    torch.manual_seed(0)
    layer = Dropout(0.3).train()
    x = torch.ones(200_000)
    y = layer(x)
    kept = y != 0
    assert abs(kept.float().mean().item() - 0.7) < 0.005
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / 0.7))
    assert abs(y.mean().item() - 1.0) < 0.01  # unbiased


def test_identity_in_eval_and_at_zero_and_gradients_follow_the_mask() -> None:
    x = torch.randn(4, 8, requires_grad=True)
    assert torch.equal(Dropout(0.5).eval()(x), x)
    assert torch.equal(Dropout(0.0).train()(x), x)
    y = Dropout(0.5).train()(x)
    y.sum().backward()
    assert x.grad is not None
    assert torch.equal(x.grad != 0, y != 0)
    with pytest.raises(ValueError, match="dropout probability"):
        Dropout(1.0)
