"""What copy attention copied (`translate.model.features.copy`), in text: a translation holding
copied source-only pieces written out."""

from __future__ import annotations

from translate.data.tokenizer import Tokenizer

MARK = "\u2581"  # SentencePiece's word-start mark


def _is_byte(piece: str) -> bool:
    return piece.startswith("<0x") and piece.endswith(">") and len(piece) == 6


def copied_text(tokens: list[int], source: list[int], src: Tokenizer, tgt: Tokenizer, tgt_lang: str) -> str:
    """A translation whose ids >= V (the target vocabulary's size) copy the source piece at position
    id - V: a copy that starts a run of copies starts a word in a language written with spaces, and
    joins its neighbours in Chinese; within a run each piece keeps its own ▁ (a word start)."""
    vocab, out, previous = len(tgt), bytearray(), -2
    for token in tokens:
        if token < vocab:
            piece, previous = str(tgt.sp.IdToPiece(token)), -2
            if tgt.sp.IsControl(token):
                continue
            if _is_byte(piece):
                out.append(int(piece[3:5], 16))
                continue
            if tgt.sp.IsUnknown(token):
                piece = " \u2047 "
        else:
            position = token - vocab
            piece = str(src.sp.IdToPiece(source[position])) if position < len(source) else ""
            if position != previous + 1:  # the start of a run of copies
                piece = (MARK if tgt_lang != "zh" else "") + piece.removeprefix(MARK)
            previous = position
        out.extend(piece.replace(MARK, " ").encode("utf-8"))
    return out.decode("utf-8", errors="replace").strip()
