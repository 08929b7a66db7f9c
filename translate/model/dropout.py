"""Inverted dropout with a cheaper mask on the CPU.

`nn.Dropout` draws its mask with `bernoulli_`, about 15 ns per element on the CPU (9 % of a
training step of the default model on 2 threads). Here one 32-bit random draw serves two elements:
`random_()` fills int32 words with 31 uniform bits, each 16-bit half keeps its low 15 bits (uniform
over 0..32767), and an element is dropped when its number is below round(p * 32768). The drop
probability is p to within 1/65536 (0.3 -> 0.29999) and kept elements are scaled by the exact
1 / (1 - p_effective), so the layer stays unbiased. About 2.5x faster than a `uniform_` draw.
"""

from __future__ import annotations

import torch
from torch import nn

LEVELS = 1 << 15  # distinct values of one 15-bit number


class Dropout(nn.Module):
    def __init__(self, p: float) -> None:
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"dropout probability must be in [0, 1), got {p}")
        self.p = p
        self.threshold = round(p * LEVELS)
        self.effective_p = self.threshold / LEVELS  # what is actually dropped

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.threshold == 0:
            return x
        words = torch.empty((x.numel() + 1) // 2, dtype=torch.int32, device=x.device).random_()
        numbers = words.view(torch.int16)[:x.numel()].view(x.shape) & (LEVELS - 1)
        return x * (numbers >= self.threshold) * (1.0 / (1.0 - self.effective_p))

    def extra_repr(self) -> str:
        return f"p={self.p}"
