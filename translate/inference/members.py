"""Which checkpoints may be decoded together as an ensemble, whichever engine decodes them: the same
direction and byte-identical tokenizers. Free of PyTorch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError


@dataclass(frozen=True)
class Member:
    path: Path
    direction: str
    src_tokenizer: Tokenizer
    tgt_tokenizer: Tokenizer


def check_members(members: Sequence[Member]) -> None:
    """Members must translate the same direction with byte-identical tokenizers; the error names the
    first checkpoint that differs from the first one."""
    first = members[0]
    for other in members[1:]:
        if other.direction != first.direction:
            raise ConfigError(f"ensemble: {other.path} translates {other.direction} but {first.path} "
                              f"translates {first.direction}; give checkpoints of one direction")
        for side, mine, theirs in (("source", first.src_tokenizer, other.src_tokenizer),
                                   ("target", first.tgt_tokenizer, other.tgt_tokenizer)):
            if mine.proto != theirs.proto:
                raise ConfigError(f"ensemble: {other.path} has another {side} vocabulary than {first.path} "
                                  f"({len(theirs)} vs {len(mine)} pieces, or other pieces); members must share "
                                  f"their SentencePiece models (train them with the same data and tokenizer "
                                  f"settings, or fine-tune one from the other with --init-from)")
