"""Copy attention's training targets (`translate.model.copy`): a reference that spells a source-only
piece of its source learns that piece's copy id V + i instead of the spelling, so that the model is
taught to copy what the target vocabulary cannot write as one piece. A rewrite of training batches, on
the training side: the model knows ids, not batches."""

from __future__ import annotations

from translate.data.batch import Batch, pad
from translate.model.copy import CopySwitch
from translate.tokens import BOS_ID, EOS_ID, PAD_ID


def copy_targets(switch: CopySwitch, batch: Batch) -> Batch:
    """The batch with each reference's first spelling of a source-only piece of its source replaced by
    that piece's id V + i (longer spellings first); the other tokens as they were."""
    spelled = switch.spelled()
    if not spelled:
        return batch
    targets, changed = [], False
    for src, tgt in zip(batch.src.tolist(), batch.tgt_out.tolist()):
        tgt = tgt[:tgt.index(EOS_ID)] if EOS_ID in tgt else [t for t in tgt if t != PAD_ID]
        firsts = {piece: i for i, piece in reversed(list(enumerate(src))) if piece in spelled}
        for piece, position in sorted(firsts.items(), key=lambda item: -len(spelled[item[0]])):
            tgt, found = _replace_first(tgt, spelled[piece], switch.tgt_vocab + position)
            changed |= found
        targets.append(tgt)
    if not changed:
        return batch
    padded = pad([[BOS_ID, *t, EOS_ID] for t in targets]).to(batch.tgt_out.device)
    return Batch(src=batch.src, src_lens=batch.src_lens, tgt_in=padded[:, :-1], tgt_out=padded[:, 1:])


def _replace_first(tokens: list[int], spelling: tuple[int, ...], token: int) -> tuple[list[int], bool]:
    """tokens with the first occurrence of `spelling` replaced by `token`."""
    size = len(spelling)
    for start in range(len(tokens) - size + 1):
        if tuple(tokens[start:start + size]) == spelling:
            return [*tokens[:start], token, *tokens[start + size:]], True
    return tokens, False
