"""The decoder-feature interface: what a feature adds to a decoder step, in one object.

A feature may carry values between steps in the decoder state, by name (`state`: per step,
reordered with the beams), and values fixed per sentence that it computes from the source ids
(`fixed`); feed the attention's scorer (`attention_input`, the coverage vector); change the step's
output scores (`output`); read the previous tokens its own way (`decoder_input`); add to the training
loss (`loss`); rewrite training targets (`targets`); and learn what it needs from the vocabularies
before training (`setup`). Every method has a neutral default, so a feature overrides what it does.

The decoder, the loss, the ONNX export and the ONNX Runtime engine loop over a model's features and
never name one: the export lists the features' state and fixed names in the graphs it writes, and
the runtime feeds them back by those names (`translate.inference.export`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import torch
from torch import nn

if TYPE_CHECKING:
    from translate.model.attention.base import Memory


class Vocabulary(Protocol):
    """What a feature may read of a SentencePiece vocabulary (`translate.data.tokenizer.Tokenizer` is one)."""

    def __len__(self) -> int: ...

    def piece(self, i: int) -> str: ...

    def piece_id(self, piece: str) -> int: ...

    def is_special(self, i: int) -> bool: ...

    def encode(self, texts: list[str]) -> list[list[int]]: ...

    @property
    def unk_id(self) -> int: ...


class Feature(nn.Module):
    """One decoder feature; see the module's docstring. `name` is its registry name
    (`translate.config.features`)."""

    name = ""
    state: tuple[str, ...] = ()  # (B, S, ...) values carried and updated from step to step
    fixed: tuple[str, ...] = ()  # (B, S, ...) values of each sentence, from its source ids
    extends_output: bool = False  # `output` returns log-probabilities over more ids than the target vocabulary

    def start(self, memory: Memory) -> dict[str, torch.Tensor]:
        """The state before the first step."""
        return {}

    def fixed_values(self, src: torch.Tensor) -> dict[str, torch.Tensor]:
        """The fixed values of each sentence, from its source ids (B, S)."""
        return {}

    def attention_input(self, values: Mapping[str, torch.Tensor]) -> torch.Tensor | None:
        """What the attention's scorer reads besides the query and keys (the coverage vector), or None."""
        return None

    def advance(self, values: Mapping[str, torch.Tensor], weights: torch.Tensor, query: torch.Tensor,
                memory: Memory) -> dict[str, torch.Tensor]:
        """The state after a step that attended with `weights` (B, S) from `query` (B, Dq)."""
        return {}

    def output(self, scores: torch.Tensor, weights: torch.Tensor, attentional: torch.Tensor,
               values: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """The step's output scores (N, V) (logits, or log-probabilities once a feature made them so)
        changed by the feature, from the attention weights (N, S) and the attentional output (N, H)."""
        return scores

    def decoder_input(self, tokens: torch.Tensor) -> torch.Tensor:
        """The previous tokens as the decoder's embedding reads them."""
        return tokens

    def loss(self, weights: torch.Tensor, target_mask: torch.Tensor) -> torch.Tensor | None:
        """A training loss term summed over real target tokens (the trainer divides by their count),
        from the attention weights (B, T, S); None for none."""
        return None

    def targets(self, src: torch.Tensor, tgt_out: torch.Tensor) -> torch.Tensor | None:
        """Rewritten training targets (B, T) for sources (B, S) (padded with PAD after EOS), or None
        where the feature keeps them; the decoder input follows them (BOS, then the targets)."""
        return None

    def setup(self, src: Vocabulary, tgt: Vocabulary, tgt_lang: str) -> None:
        """Learn what the feature needs from the vocabularies, once, before training."""

    @property
    def sequential(self) -> bool:
        """Whether each teacher-forced step must wait for the last (a state that steps update)."""
        return bool(self.state)
