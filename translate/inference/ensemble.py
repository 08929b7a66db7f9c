"""Ensembles, whichever engine decodes them: which checkpoints may be decoded together (the same
direction and byte-identical tokenizers), and several models' steps as one (each step's log-probabilities
are the mean of the members': a product of experts, renormalised by nothing, since search only compares
scores). Members may differ in everything but their vocabularies. Free of PyTorch: the PyTorch engine
(`inference.translator`) and ONNX Runtime's (`inference.fast`) both step their members through here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.inference.search.core import StepFn


@dataclass(frozen=True)
class Member:
    """One model of an ensemble, as the checks see it."""

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


@dataclass(frozen=True)
class MembersContext:
    """One decoding context per member, selected and reordered together."""

    members: tuple[Any, ...]

    def select(self, rows: np.ndarray) -> MembersContext:
        return MembersContext(tuple(ctx.select(rows) for ctx in self.members))

    def reorder(self, rows: np.ndarray) -> MembersContext:
        return MembersContext(tuple(ctx.reorder(rows) for ctx in self.members))

    def attended(self) -> np.ndarray:
        """The members' mean attention received per source position (N, S) (1 on padding)."""
        mean: np.ndarray = np.mean(np.stack([ctx.attended() for ctx in self.members]), axis=0)
        return mean


def members_step(steps: Sequence[StepFn]) -> StepFn:
    """The members' steps as one step over a `MembersContext`; one member is its own step."""
    if len(steps) == 1:
        return steps[0]

    def step(tokens: np.ndarray, ctx: MembersContext) -> tuple[np.ndarray, MembersContext]:
        outputs = [member(tokens, member_ctx) for member, member_ctx in zip(steps, ctx.members)]
        rows = [np.asarray(log_probs, dtype=np.float32) for log_probs, _ in outputs]
        width = max(r.shape[1] for r in rows)  # copy attention's members rank V + S ids: the others cannot copy
        rows = [np.pad(r, ((0, 0), (0, width - r.shape[1])), constant_values=-np.inf) for r in rows]
        mean = np.mean(np.stack(rows), axis=0)
        return mean, MembersContext(tuple(next_ctx for _, next_ctx in outputs))

    return step


def members_context(contexts: Sequence[Any]) -> Any:
    """The members' contexts as one (one member: its own)."""
    return contexts[0] if len(contexts) == 1 else MembersContext(tuple(contexts))
