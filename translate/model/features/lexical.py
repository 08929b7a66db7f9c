"""The lexical model of Nguyen & Chiang (2018, "Improving Lexical Choice in Neural Machine
Translation", sec. 3): the attention's weighted sum of the source words' embeddings goes straight to
the output layer, beside the decoder's attentional output, so that a source word can vote for its
translation without passing through the RNN's states — the attentional output mixes context and
history, and rare words lose out in it (their "the model translates a rare word as a frequent one").

    fₜ = Σₛ αₜₛ eₛ,   hₜˡ = tanh(fₜ) + fₜ,   p(y) = softmax(W oₜ + b + Wˡ hₜˡ)

eₛ are the source pieces' embeddings (a table of this feature's own, E wide: a value fixed per
sentence), α the attention weights of the step. A decoder feature (`translate.model.features.base`),
on with `model.features=lexical`; it needs attention weights over the source (not kind=none, not a
mixture over positions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from translate.model.features.base import Feature
from translate.tokens import PAD_ID


class LexicalModel(Feature):
    name = "lexical"
    fixed = ("lexical_embeddings",)

    def __init__(self, src_vocab: int, embedding_size: int, tgt_vocab: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(src_vocab, embedding_size, padding_idx=PAD_ID)
        nn.init.normal_(self.embedding.weight, std=embedding_size ** -0.5)
        with torch.no_grad():
            self.embedding.weight[PAD_ID].zero_()  # padding has no embedding (and padding_idx keeps it so)
        self.out = nn.Linear(embedding_size, tgt_vocab, bias=False)

    def fixed_values(self, src: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"lexical_embeddings": self.embedding(src)}  # (B, S, E)

    def output(self, scores: torch.Tensor, weights: torch.Tensor, attentional: torch.Tensor,
               values: Mapping[str, torch.Tensor]) -> torch.Tensor:
        embeddings = values["lexical_embeddings"]
        summed = (weights.unsqueeze(1).to(embeddings.dtype) @ embeddings).squeeze(1)  # (N, E)
        lexical: torch.Tensor = self.out(torch.tanh(summed) + summed)
        return scores + lexical.to(scores.dtype)


def build(cfg: Any, attention: Any, src_vocab: int, tgt_vocab: int) -> Feature | None:
    """The registry's builder (`translate.config.features`)."""
    return LexicalModel(src_vocab, cfg.embedding_size, tgt_vocab)
