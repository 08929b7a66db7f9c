"""Several models' steps as one (an ensemble): each step's log-probabilities are the mean of the
members' (a product of experts, renormalised by nothing: search only compares scores). Members may
differ in everything but their vocabularies; whichever engine steps them, they are combined here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from translate.inference.search.core import StepFn


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
