"""What copy attention copies (`translate.model.copy`), in text: which target piece each source piece
is, and the text of a translation holding copied source-only pieces.

A source piece is the target piece of the same text. SentencePiece marks a word's first piece with ▁;
a target language written with spaces takes the source piece as it is, else its ▁-less form, then
the other one: en→zh copies "▁2019" as "2019" when the Chinese vocabulary holds it. Special and byte
pieces are the same ids in both vocabularies. A piece the target vocabulary lacks is source-only (-1).
"""

from __future__ import annotations

from translate.data.tokenizer import Tokenizer

MARK = "\u2581"  # SentencePiece's word-start mark


def _is_byte(piece: str) -> bool:
    return piece.startswith("<0x") and piece.endswith(">") and len(piece) == 6


def _special(tok: Tokenizer, i: int) -> bool:
    """A control, <unk> or byte piece: the same id in every vocabulary of the project, never spelled out."""
    return bool(tok.sp.IsControl(i) or tok.sp.IsUnknown(i)) or _is_byte(str(tok.sp.IdToPiece(i)))


def copy_table(src: Tokenizer, tgt: Tokenizer, tgt_lang: str) -> list[int]:
    """Per source piece id, the target id of the same piece, or -1."""
    table = []
    for i in range(len(src)):
        piece = str(src.sp.IdToPiece(i))
        if _special(src, i):
            table.append(i if str(tgt.sp.IdToPiece(i)) == piece else -1)
            continue
        bare = piece.removeprefix(MARK)
        candidates = [piece, bare, MARK + bare] if tgt_lang != "zh" else [bare, piece, MARK + bare]
        found = [t for t in (int(tgt.sp.PieceToId(c)) for c in candidates if c)
                 if t != tgt.sp.unk_id() and str(tgt.sp.IdToPiece(t)) in candidates]
        table.append(found[0] if found else -1)
    return table


def spellings(src: Tokenizer, tgt: Tokenizer, table: list[int]) -> list[list[int]]:
    """Per source piece id, how the target tokenizer spells a source-only piece's text (what a reference
    holds where a translation copies it); [] for the pieces the target vocabulary holds, and specials."""
    rows: list[list[int]] = []
    for i, target in enumerate(table):
        plain = target < 0 and not _special(src, i)
        bare = str(src.sp.IdToPiece(i)).removeprefix(MARK)
        spelled = tgt.encode([bare])[0] if plain and bare else []
        rows.append([] if tgt.sp.unk_id() in spelled else spelled)  # <unk> would match any unknown text
    return rows


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
