"""Copy attention (a pointer-generator: Gu et al. 2016; See et al. 2017, sec. 2.2).

At each step a switch p_gen = σ(wᵀoₜ + b), from the attentional output oₜ, mixes the generator's
distribution over the target vocabulary with the attention distribution over the source positions:

    p(y) = p_gen · softmax(W oₜ)(y) + (1 - p_gen) · Σ_{i: id(xᵢ) = y} αᵢ

The ids a source position copies to (`copy_ids`, a value fixed per sentence) extend the target
vocabulary of V pieces: a source piece that the target vocabulary also holds (the same text,
`copy_table`) copies to that target id; a source-only piece copies to V + i, i the first position of the sentence holding
that piece, so that repeats of one piece add up. Search therefore ranks V + S ids per step, and an
id >= V in a translation is the source piece at position id - V (`translate.data.copying.copied_text`);
fed back to the decoder, such an id reads as <unk>.

Training learns those ids where the reference spells a source-only piece: each such piece's spelling in
target pieces (its text encoded by the target tokenizer) is looked for in the reference, and the first
occurrence becomes the one id V + i (`CopySwitch.targets`). Elsewhere copying a piece both
vocabularies hold and generating it are the same id, so the switch is free to choose.

A source piece is the target piece of the same text. SentencePiece marks a word's first piece with ▁;
a target language written with spaces takes the source piece as it is, else its ▁-less form, then
the other one: en→zh copies "▁2019" as "2019" when the Chinese vocabulary holds it. Special and byte
pieces are the same ids in both vocabularies. A piece the target vocabulary lacks is source-only (-1).

A decoder feature (`translate.model.features.base`); the text of a translation with copied pieces is
`translate.data.copying.copied_text`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

from translate.model.features.base import Feature, Vocabulary
from translate.tokens import EOS_ID, PAD_ID, UNK_ID

MAX_SPELLING = 16  # target pieces of a source-only piece's spelling; a longer one is never looked for
MARK = "\u2581"  # SentencePiece's word-start mark


class CopySwitch(Feature):
    """The switch p_gen, the table from source piece ids to target ids (-1: the target has no such
    piece) and the spelling of each source-only piece in target ids (-1 after its end); both are buffers,
    saved with the weights, filled from the vocabularies before training (`setup`)."""

    name = "copy"
    fixed = ("copy_ids",)
    extends_output = True
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

    def fixed_values(self, src: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"copy_ids": self.copy_ids(src)}

    def output(self, scores: torch.Tensor, weights: torch.Tensor, attentional: torch.Tensor,
               values: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self.log_probs(scores, weights, attentional, values["copy_ids"])

    def setup(self, src: Vocabulary, tgt: Vocabulary, tgt_lang: str) -> None:
        table = copy_table(src, tgt, tgt_lang)
        self.set_table(table, spellings(src, tgt, table))

    def targets(self, src: torch.Tensor, tgt_out: torch.Tensor) -> torch.Tensor | None:
        """Each reference's first spelling of a source-only piece of its source replaced by that
        piece's id V + i (longer spellings first); None where no reference changes."""
        spelled = self.spelled()
        if not spelled:
            return None
        targets, changed = [], False
        for source, tgt in zip(src.tolist(), tgt_out.tolist()):
            tgt = tgt[:tgt.index(EOS_ID)] if EOS_ID in tgt else [t for t in tgt if t != PAD_ID]
            firsts = {piece: i for i, piece in reversed(list(enumerate(source))) if piece in spelled}
            for piece, position in sorted(firsts.items(), key=lambda item: -len(spelled[item[0]])):
                tgt, found = _replace_first(tgt, spelled[piece], self.tgt_vocab + position)
                changed |= found
            targets.append([*tgt, EOS_ID])
        if not changed:
            return None
        width = max(len(t) for t in targets)
        return torch.tensor([t + [PAD_ID] * (width - len(t)) for t in targets], dtype=torch.long, device=tgt_out.device)


def _replace_first(tokens: list[int], spelling: tuple[int, ...], token: int) -> tuple[list[int], bool]:
    """tokens with the first occurrence of `spelling` replaced by `token`."""
    size = len(spelling)
    for start in range(len(tokens) - size + 1):
        if tuple(tokens[start:start + size]) == spelling:
            return [*tokens[:start], token, *tokens[start + size:]], True
    return tokens, False


def copy_table(src: Vocabulary, tgt: Vocabulary, tgt_lang: str) -> list[int]:
    """Per source piece id, the target id of the same piece, or -1."""
    table = []
    for i in range(len(src)):
        piece = src.piece(i)
        if src.is_special(i):
            table.append(i if i < len(tgt) and tgt.piece(i) == piece else -1)
            continue
        bare = piece.removeprefix(MARK)
        candidates = [piece, bare, MARK + bare] if tgt_lang != "zh" else [bare, piece, MARK + bare]
        found = [t for t in (tgt.piece_id(c) for c in candidates if c) if t != tgt.unk_id and tgt.piece(t) in candidates]
        table.append(found[0] if found else -1)
    return table


def spellings(src: Vocabulary, tgt: Vocabulary, table: list[int]) -> list[list[int]]:
    """Per source piece id, how the target tokenizer spells a source-only piece's text (what a reference
    holds where a translation copies it); [] for the pieces the target vocabulary holds, and specials."""
    rows: list[list[int]] = []
    for i, target in enumerate(table):
        plain = target < 0 and not src.is_special(i)
        bare = src.piece(i).removeprefix(MARK)
        spelled = tgt.encode([bare])[0] if plain and bare else []
        rows.append([] if tgt.unk_id in spelled else spelled)  # <unk> would match any unknown text
    return rows


def build(cfg: Any, attention: Any, src_vocab: int, tgt_vocab: int) -> Feature | None:
    """The registry's builder (`translate.config.features`): the switch where `model.copy_attention` is on."""
    return CopySwitch(cfg.hidden_size, src_vocab, tgt_vocab) if cfg.copy_attention else None

