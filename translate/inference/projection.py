"""Spans of a source text projected onto its translation through the model's attention, as Bergamot
places inline tags with its alignments: a sentence split by inline markup (`I like <b>green</b> tea`) is
translated whole, and the translation is cut where the source's pieces of text begin.

The source is cut into segments at `boundaries` (character offsets). Each target word is scored
against each segment by the attention between their pieces, read by rows and by columns (see
`word_scores`); the words are then assigned to segments in
order (the assignment is monotone, as the markup around the segments stays in its order) so that
the summed mass is largest, by dynamic programming. A segment marked `required` (one that holds a
letter) gets at least one word whenever the translation has enough words, so a link or an emphasis
is never emptied while words are left to give it. The cuts are the character offsets in the
translation where the first word of each segment after the first begins; every character of the
translation lands in exactly one segment, in order, so nothing of it is lost or repeated.

Pieces are found in the texts by their spelling, in order: a piece the text does not spell (a byte
piece, a digit that `copy_digits` changed, a name that the lexicon replaced) takes the place where
the search stands, so the cut is approximate there and never out of order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SPECIAL = frozenset({"</s>", "<s>", "<pad>", "<unk>"})


@dataclass(frozen=True)
class Aligned:
    """One sentence's attention matrix within a text's pieces: rows are target pieces
    `target_start:target_end` (the end of sentence included), columns source pieces
    `source_start:source_end`."""

    source_start: int
    source_end: int
    target_start: int
    target_end: int
    weights: Sequence[Sequence[float]]


def piece_offsets(text: str, pieces: Sequence[str]) -> list[int | None]:
    """Where each piece starts in `text` (None for the end of sentence and other special pieces),
    searched forward from the previous piece; a piece that is not spelled within a few characters of
    where the search stands starts there."""
    out: list[int | None] = []
    at = 0
    for piece in pieces:
        if piece in SPECIAL:
            out.append(None)
            continue
        surface = piece.replace("\u2581", " ").strip()
        found = text.find(surface, at) if surface and not _is_byte(piece) else -1
        if found >= 0 and (not text[at:found].strip() or found - at <= 3):
            out.append(found)
            at = found + len(surface)
        else:
            while at < len(text) and text[at].isspace():
                at += 1
            out.append(min(at, len(text)))
    return out


def _is_byte(piece: str) -> bool:
    return piece.startswith("<0x") and piece.endswith(">")


def words(pieces: Sequence[str]) -> list[list[int]]:
    """Target pieces grouped into words, the units a cut may fall between: a piece continues the word
    before it when it does not start with SentencePiece's space and both are letters or digits of
    a script written with spaces (so `▁gre` `en` is one word, each Chinese piece its own)."""
    out: list[list[int]] = []
    previous = ""
    for index, piece in enumerate(pieces):
        if piece in SPECIAL:
            previous = ""
            continue
        joins = (out and previous and not piece.startswith("\u2581") and _spaced(previous[-1]) and _spaced(piece[0]))
        if joins:
            out[-1].append(index)
        else:
            out.append([index])
        previous = piece
    return out


def _spaced(char: str) -> bool:
    """A letter or digit of a script written with spaces between words (Latin, Greek, Cyrillic...)."""
    return char.isalnum() and ord(char) < 0x2E80


def segment_of(offset: int | None, boundaries: Sequence[int]) -> int | None:
    """Which segment a character offset lies in: the number of boundaries at or before it."""
    if offset is None:
        return None
    return sum(1 for boundary in boundaries if boundary <= offset)


def word_scores(source: str, source_pieces: Sequence[str], target_pieces: Sequence[str], aligned: Sequence[Aligned],
                boundaries: Sequence[int], groups: Sequence[Sequence[int]]) -> list[list[float]]:
    """Per target word, how strongly it aligns with each source segment: the mean of the attention
    mass its pieces give to the segment's pieces (rows as the model normalised them) and of the mass
    they take of each of those source pieces' attention over the sentence's target pieces (columns
    normalised). The second view finds a source word's translation where the model attended to it
    late or from a neighbouring step; together they are the symmetric reading of one matrix."""
    segments = [segment_of(offset, boundaries) for offset in piece_offsets(source, source_pieces)]
    row_score: dict[int, list[float]] = {}
    for block in aligned:
        rows = [row for row in range(len(block.weights)) if target_pieces[block.target_start + row] not in SPECIAL]
        totals = [sum(float(block.weights[row][column]) for row in rows) for column in range(block.source_end - block.source_start)]
        for row in rows:
            scores = [0.0] * (len(boundaries) + 1)
            for column, weight in enumerate(block.weights[row]):
                piece = block.source_start + column
                segment = segments[piece] if piece < len(segments) else None
                if segment is not None:
                    scores[segment] += 0.5 * float(weight) + (0.5 * float(weight) / totals[column] if totals[column] > 0 else 0.0)
            row_score[block.target_start + row] = scores
    empty = [0.0] * (len(boundaries) + 1)
    return [[sum(row_score.get(p, empty)[k] for p in group) for k in range(len(boundaries) + 1)] for group in groups]


def assign(scores: Sequence[Sequence[float]], required: Sequence[bool]) -> list[int]:
    """The monotone assignment of words to segments with the largest summed score, every required
    segment given a word (when there are at least as many words as required segments; else none is
    required). Ties keep a word in the segment of the word before it."""
    segments = len(required)
    if not scores:
        return []
    needed = required if sum(required) <= len(scores) else [False] * segments
    # skippable[j][k]: segments strictly between j and k need no word
    blocked = [0] * (segments + 1)  # required segments before index k
    for k in range(segments):
        blocked[k + 1] = blocked[k] + int(needed[k])
    skippable = [[blocked[k] - blocked[j + 1] == 0 if k > j else False for k in range(segments)]
                 for j in range(segments)]
    minus = float("-inf")
    best = [[minus] * segments for _ in scores]
    back = [[-1] * segments for _ in scores]
    for k in range(segments):
        if blocked[k] == 0:
            best[0][k] = scores[0][k]
    for u in range(1, len(scores)):
        for k in range(segments):
            choice, value = k, best[u - 1][k]
            for j in range(k):
                if skippable[j][k] and best[u - 1][j] > value:
                    choice, value = j, best[u - 1][j]
            if value > minus:
                best[u][k], back[u][k] = value + scores[u][k], choice
    last = len(scores) - 1
    ends = [k for k in range(segments) if best[last][k] > minus and blocked[segments] - blocked[k + 1] == 0]
    k = max(ends, key=lambda e: (best[last][e], -e))
    out = [k]
    for u in range(last, 0, -1):
        k = back[u][k]
        out.append(k)
    return out[::-1]


def cuts(source: str, source_pieces: Sequence[str], target: str, target_pieces: Sequence[str],
         aligned: Sequence[Aligned], boundaries: Sequence[int], required: Sequence[bool]) -> list[int]:
    """Where `target` is cut so that its i-th part translates the source's i-th segment (one cut per
    boundary, non-decreasing, each at the start of a word); see the module's docstring."""
    if not boundaries:
        return []
    groups = words(target_pieces)
    starts = piece_offsets(target, target_pieces)
    scores = word_scores(source, source_pieces, target_pieces, aligned, boundaries, groups)
    chosen = assign(scores, required)
    out = []
    for k in range(1, len(boundaries) + 1):
        first = next((u for u, segment in enumerate(chosen) if segment >= k), None)
        offset = starts[groups[first][0]] if first is not None else None
        out.append(len(target) if offset is None else offset)
    for k in range(1, len(out)):  # offsets found by spelling could step back; cuts never do
        out[k] = max(out[k], out[k - 1])
    return out


def proportional(source: str, boundaries: Sequence[int], target: str) -> list[int]:
    """Cuts without an alignment: at the same fractions of the translation as the boundaries are of
    the source (or at the boundaries themselves, where the translation is the source)."""
    if target == source:
        return list(boundaries)
    return [round(len(target) * b / max(1, len(source))) for b in boundaries]
