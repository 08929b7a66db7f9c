"""Inverted dropout with a faster mask on the CPU.

`nn.Dropout` draws its mask with `bernoulli_`, which on the CPU costs about 35 ns per element
(9 % of a training step of the default model on 2 threads); comparing a `uniform_` draw with p
is 2.4x faster and gives the same distribution: each element is kept with probability 1 - p
and scaled by 1 / (1 - p).
"""

from __future__ import annotations

import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float) -> None:
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"dropout probability must be in [0, 1), got {p}")
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0:
            return x
        keep = torch.empty_like(x).uniform_() >= self.p
        return x * keep * (1.0 / (1.0 - self.p))

    def extra_repr(self) -> str:
        return f"p={self.p}"
