"""The searches by name, each the one loop (`core.run`) with its selection: beam, greedy, token by
token (sampling), lexically constrained; and `decode_search`, what a `DecodeConfig` asks for."""

from __future__ import annotations

from typing import Any

from translate.config.schema import DecodeConfig
from translate.inference.search.beam import BeamSelection
from translate.inference.search.constrained import ConstrainedSelection
from translate.inference.search.core import StepFn, run
from translate.inference.search.pick import Pick, PickSelection, most_probable
from translate.inference.search.rules import Hypothesis, RepeatBan
from translate.tokens import BOS_ID, EOS_ID, PAD_ID


def beam_search(step: StepFn, ctx: Any, limits: Any, bos: int, eos: int, beam_size: int, alpha: float = 1.0,
                n_best: int = 1, pad: int = 0, coverage: float = 0.0, repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
    """Per sentence its `n_best` hypotheses by length-penalised score (+ the coverage penalty with beta
    `coverage` > 0, which needs a context with `attended()`). A sentence ends at its length limit, or once
    it holds `beam_size` ended hypotheses and its best live one (ranked at the next length) cannot beat
    the worst of them."""
    return run(step, ctx, limits, bos, eos, BeamSelection(len(limits), beam_size, alpha, eos), n_best, (pad, bos),
               coverage, repeats)


def token_by_token(step: StepFn, ctx: Any, limits: Any, bos: int, eos: int, pick: Pick, pad: int = 0,
                   repeats: RepeatBan | None = None) -> list[Hypothesis]:
    """One hypothesis per sentence, `pick` choosing each next token; scores are log-probabilities."""
    return [n_best[0] for n_best in run(step, ctx, limits, bos, eos, PickSelection(len(limits), pick, eos), 1, (pad, bos),
                                        repeats=repeats)]


def greedy(step: StepFn, ctx: Any, limits: Any, bos: int, eos: int, pad: int = 0,
           repeats: RepeatBan | None = None) -> list[Hypothesis]:
    """The most probable token at each step."""
    return token_by_token(step, ctx, limits, bos, eos, most_probable, pad, repeats)


def constrained_search(step: StepFn, ctx: Any, limits: Any, bos: int, eos: int, beam_size: int,
                       constraints: list[list[list[int]]], alpha: float = 1.0, n_best: int = 1, pad: int = 0,
                       banned_after: list[int] | None = None, coverage: float = 0.0,
                       avoid: list[list[list[int]]] | None = None, repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
    """Beam search in which each sentence must produce its constraints and none of its `avoid` sequences
    (`search.constrained`) -> per sentence its n-best, those holding every constraint first."""
    selection = ConstrainedSelection(constraints, beam_size, alpha, eos, banned_after, avoid)
    return run(step, ctx, limits, bos, eos, selection, n_best, (pad, bos), coverage, repeats)


def decode_search(step: StepFn, ctx: Any, limits: Any, decode: DecodeConfig, pick: Pick | None = None,
                  repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
    """What `decode` asks for over the project's special tokens: `pick` given (sampling), token by token;
    beam size 1, greedy; else beam search with its length and coverage penalties and n-best. `repeats`
    (given where `decode.block_repeats` holds): no stutter."""
    if pick is not None:
        return [[h] for h in token_by_token(step, ctx, limits, BOS_ID, EOS_ID, pick, PAD_ID, repeats)]
    if decode.beam_size == 1:
        return [[h] for h in greedy(step, ctx, limits, BOS_ID, EOS_ID, PAD_ID, repeats)]
    return beam_search(step, ctx, limits, BOS_ID, EOS_ID, decode.beam_size, decode.length_penalty, decode.n_best, PAD_ID,
                       decode.coverage_penalty, repeats)
