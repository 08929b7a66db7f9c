"""Copy attention (a pointer-generator: Gu et al. 2016; See et al. 2017, sec. 2.2).

At each step a switch p_gen = σ(wᵀoₜ + b), from the attentional output oₜ, mixes the generator's
distribution over the target vocabulary with the attention distribution over the source positions:

    p(y) = p_gen · softmax(W oₜ)(y) + (1 - p_gen) · Σ_{i: id(xᵢ) = y} αᵢ

The ids a source position copies to (`copy_ids`) extend the target vocabulary of V pieces: a source
piece that the target vocabulary also holds (the same text, `translate.data.copying.copy_table`) copies
to that target id; a source-only piece copies to V + i, i the first position of the sentence holding
that piece, so that repeats of one piece add up. Search therefore ranks V + S ids per step, and an
id >= V in a translation is the source piece at position id - V (`translate.data.copying.copied_text`);
fed back to the decoder, such an id reads as <unk>.

Training learns those ids where the reference spells a source-only piece: each such piece's spelling in
target pieces (its text encoded by the target tokenizer) is looked for in the reference, and the first
occurrence becomes the one id V + i (`translate.training.copy_targets`, on the training side). Elsewhere copying a piece both vocabularies hold
and generating it are the same id, so the switch is free to choose.
"""

from __future__ import annotations

import torch
from torch import nn

from translate.tokens import UNK_ID

MAX_SPELLING = 16  # target pieces of a source-only piece's spelling; a longer one is never looked for


class CopySwitch(nn.Module):
    """The switch p_gen, the table from source piece ids to target ids (-1: the target has no such
    piece) and the spelling of each source-only piece in target ids (-1 after its end); both are buffers,
    saved with the weights, filled from the tokenizers before training (`set_table`)."""

    table: torch.Tensor
    spellings: torch.Tensor

    def __init__(self, hidden_size: int, src_vocab: int, tgt_vocab: int) -> None:
        super().__init__()
        self.gate = nn.Linear(hidden_size, 1)
        self.tgt_vocab = tgt_vocab
        self.register_buffer("table", torch.full((src_vocab,), -1, dtype=torch.long))
        self.register_buffer("spellings", torch.full((src_vocab, MAX_SPELLING), -1, dtype=torch.long))
        self._spelled: dict[int, tuple[int, ...]] | None = None

    def set_table(self, table: list[int], spellings: list[list[int]] | None = None) -> None:
        """table: per source id its target id or -1; spellings: per source id the target ids that spell
        a source-only piece ([] for the others; one longer than MAX_SPELLING is left out)."""
        rows = spellings or [[] for _ in table]
        if len(table) != self.table.numel() or any(not -1 <= t < self.tgt_vocab for t in table):
            raise ValueError(f"a copy table maps {self.table.numel()} source ids to target ids or -1")
        if len(rows) != len(table) or any(not 0 <= t < self.tgt_vocab for row in rows for t in row):
            raise ValueError(f"copy spellings are {self.table.numel()} lists of target ids")
        self.table.copy_(torch.tensor(table, dtype=torch.long))
        self.spellings.fill_(-1)
        for i, row in enumerate(rows):
            if table[i] < 0 and 0 < len(row) <= MAX_SPELLING:
                self.spellings[i, :len(row)] = torch.tensor(row, dtype=torch.long)
        self._spelled = None

    def spelled(self) -> dict[int, tuple[int, ...]]:
        """Source id -> its spelling, for the source-only pieces that have one (read from the buffer once)."""
        if self._spelled is None:
            rows = self.spellings.tolist()
            self._spelled = {i: tuple(t for t in row if t >= 0) for i, row in enumerate(rows) if row[0] >= 0}
        return self._spelled

    def copy_ids(self, src: torch.Tensor) -> torch.Tensor:
        """src (B, S) -> the id each source position copies to (B, S), in [0, V + S)."""
        mapped = self.table[src]
        same = src.unsqueeze(2) == src.unsqueeze(1)  # (B, S, S): positions holding the same piece
        first = same.int().argmax(dim=2)  # the first position with that piece (argmax: the first maximum)
        return torch.where(mapped >= 0, mapped, first + self.tgt_vocab)

    def log_probs(self, logits: torch.Tensor, weights: torch.Tensor, attentional: torch.Tensor,
                  copy_ids: torch.Tensor) -> torch.Tensor:
        """logits (N, V), attention weights (N, S), attentional outputs (N, H), copy_ids (N, S) ->
        log p (N, V + S) of the mixture (float32; -inf where nothing can be produced)."""
        gate = self.gate(attentional).float()  # (N, 1): log p_gen = logsigmoid, log(1 - p_gen) = logsigmoid(-·)
        generated = torch.log_softmax(logits.float(), dim=-1) + nn.functional.logsigmoid(gate)
        copied = torch.zeros(logits.size(0), self.tgt_vocab + weights.size(1), device=logits.device)
        copied.scatter_add_(1, copy_ids, weights.float())
        log_copied = copied.clamp_min(1e-30).log().masked_fill(copied == 0, float("-inf"))
        log_copied = log_copied + nn.functional.logsigmoid(-gate)
        # the source-only columns only copy: no logaddexp of two -inf there (its gradient is NaN)
        vocab = torch.logaddexp(generated, log_copied[:, :self.tgt_vocab])
        return torch.cat([vocab, log_copied[:, self.tgt_vocab:]], dim=1)

    def decoder_input(self, tokens: torch.Tensor) -> torch.Tensor:
        """Previous tokens as the decoder's embedding reads them: a copied source-only piece as <unk>."""
        return tokens.masked_fill(tokens >= self.tgt_vocab, UNK_ID)

