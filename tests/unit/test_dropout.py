"""The project's dropout: nn.Dropout's distribution (keep 1 - p, scale 1 / (1 - p)) with p rounded to
1/32768, identity in eval."""

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
    assert abs(layer.effective_p - 0.3) < 1 / 65536
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / (1 - layer.effective_p)))
    assert abs(y.mean().item() - 1.0) < 0.01  # unbiased


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.9])
def test_every_element_and_both_halves_of_a_draw_follow_p(p: float) -> None:
    """Odd sizes (the last draw half used) and shapes; even and odd positions (the two 16-bit
    halves of one 32-bit draw) each drop at rate p, independently of each other."""
    torch.manual_seed(1)
    y = Dropout(p).train()(torch.ones(301, 333))
    dropped = (y == 0).flatten().float()
    assert abs(dropped.mean().item() - p) < 0.01
    even, odd = dropped[0:-1:2], dropped[1::2]
    assert abs(even.mean().item() - p) < 0.015 and abs(odd.mean().item() - p) < 0.015
    both = (even * odd).mean().item()  # independence of the two halves
    assert abs(both - p * p) < 0.015


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
