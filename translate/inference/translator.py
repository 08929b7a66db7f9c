"""Translator: checkpoint -> strings in, strings out. Used by the CLI, evaluation, training validation and tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from torch import nn

from translate.checkpoint.store import Loaded
from translate.config.schema import DecodeConfig
from translate.data.batch import collate, pad
from translate.data.tokenizer import Tokenizer, target_ids
from translate.inference.deadline import check_deadline
from translate.inference.ensemble import Member, check_members, members_context, members_step
from translate.inference.search import Hypothesis, RepeatBan, constrained_search, decode_search, max_lengths
from translate.inference.search.core import StepFn
from translate.inference.search.pick import Pick
from translate.inference.text_translator import MAX_SOURCE_TOKENS, TextTranslator, Translation
from translate.model import Seq2Seq
from translate.model.decoder import DecoderOutput
from translate.tokens import BOS_ID, EOS_ID, PAD_ID

__all__ = ["MAX_SOURCE_TOKENS", "Alignment", "Ensemble", "Translation", "Translator"]


@dataclass
class Alignment:
    """The attention of one translation, teacher-forced: weights[t][s] is how much target piece t
    (the translation's pieces, then </s>) attended to source piece s (the source's pieces, then
    </s>); heads[h][t][s] the same per head for multi-head attention, else None."""

    source_pieces: list[str]
    target_pieces: list[str]
    weights: list[list[float]]
    heads: list[list[list[float]]] | None = None


@dataclass(frozen=True)
class TorchContext:
    """A PyTorch decoding context that follows the search's NumPy row indices."""

    inner: Any
    device: torch.device

    def select(self, rows: np.ndarray) -> TorchContext:
        return TorchContext(self.inner.select(torch.from_numpy(rows).to(self.device)), self.device)

    def reorder(self, rows: np.ndarray) -> TorchContext:
        return TorchContext(self.inner.reorder(torch.from_numpy(rows).to(self.device)), self.device)

    def attended(self) -> np.ndarray:
        """(N, S): the attention each source position received so far; 1 on padding (nothing to cover)."""
        state, mask = self.inner.state, self.inner.memory.mask
        attended: np.ndarray = state.attended.masked_fill(~mask, 1.0).float().cpu().numpy()
        return attended


def torch_step(model: Seq2Seq) -> StepFn:
    """`Seq2Seq.step` as the search calls it: NumPy tokens in, NumPy log-probabilities out."""

    def step(tokens: np.ndarray, ctx: TorchContext) -> tuple[np.ndarray, TorchContext]:
        log_probs, inner = model.step(torch.from_numpy(tokens).to(ctx.device), ctx.inner)
        return log_probs.float().cpu().numpy(), TorchContext(inner, ctx.device)

    return step


def sampler(temperature: float, generator: torch.Generator) -> Pick:
    """Draw each token from softmax(log p / temperature): sharpened below 1, flattened above. Varied
    translations of the same text, e.g. synthetic training sources (sampled back-translation);
    reproducible for the same generator state and the same batch."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")

    def pick(log_probs: np.ndarray) -> np.ndarray:
        probs = torch.softmax(torch.from_numpy(log_probs).float() / temperature, dim=-1)
        return torch.multinomial(probs, 1, generator=generator).squeeze(1).numpy()

    return pick


class Ensemble(nn.Module):
    """PyTorch models with the same vocabularies held as one module (their device, parameters, eval mode
    and attention views); search steps each member (`models`) and combines them in `inference.ensemble`."""

    def __init__(self, members: Sequence[Seq2Seq]) -> None:
        super().__init__()
        if not members:
            raise ValueError("an ensemble needs at least one model")
        self.members = nn.ModuleList(members)

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor, tgt_in: torch.Tensor) -> DecoderOutput:
        """Teacher forcing, for attention views: the first member's output with the members' mean
        attention weights (per-head weights only when there is one member)."""
        outputs: list[DecoderOutput] = [member(src, src_lens, tgt_in) for member in self.models]
        if len(outputs) == 1:
            return outputs[0]
        weights = torch.stack([out.weights for out in outputs]).mean(0)
        return DecoderOutput(outputs[0].attentional, weights, None, None)

    @property
    def models(self) -> list[Seq2Seq]:
        """The members as models (the ModuleList that registers them holds plain modules)."""
        return [cast(Seq2Seq, member) for member in self.members]

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def num_parameters(self) -> int:
        return sum(member.num_parameters() for member in self.models)


def check_loaded(loaded: Sequence[Loaded]) -> None:
    """`inference.ensemble.check_members` on loaded checkpoints."""
    check_members([Member(m.path, m.artifact.direction, m.src_tokenizer, m.tgt_tokenizer) for m in loaded])


class TorchEngine:
    """A PyTorch model (or an ensemble of them) on its device, in eval mode, searched by the one search."""

    def __init__(self, model: Seq2Seq | Ensemble) -> None:
        self.model = model
        self.members = model.models if isinstance(model, Ensemble) else [model]
        self.step = members_step([torch_step(member) for member in self.members])

    def encoded(self, sources: list[list[int]], decode: DecodeConfig) -> tuple[Any, np.ndarray]:
        """Source ids (with EOS) -> the members' decoding context and each sentence's longest output."""
        device = self.model.device
        src, src_lens = pad(sources).to(device), torch.tensor([len(s) for s in sources])
        ctx = members_context([TorchContext(member.encode(src, src_lens), device) for member in self.members])
        return ctx, max_lengths([len(s) for s in sources], decode.max_len_a, decode.max_len_b)

    @contextmanager
    def _evaluating(self) -> Iterator[None]:
        """Eval mode and no autograd bookkeeping at all (no version counters, no view tracking)."""
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode():
                yield
        finally:
            self.model.train(was_training)

    def search(self, sources: list[list[int]], decode: DecodeConfig,
               repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
        with self._evaluating():
            ctx, limits = self.encoded(sources, decode)
            pick = sampler(decode.sample, torch.Generator().manual_seed(decode.seed)) if decode.sample > 0 else None
            return decode_search(self.step, ctx, limits, decode, pick, repeats)

    def constrained(self, sources: list[list[int]], decode: DecodeConfig, constraints: list[list[list[int]]],
                    beam_size: int, banned_after: list[int] | None = None,
                    avoid: list[list[list[int]]] | None = None, repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
        """All sentences in one batch (the caller sizes it)."""
        with self._evaluating():
            ctx, limits = self.encoded(sources, decode)
            return constrained_search(self.step, ctx, limits, BOS_ID, EOS_ID, beam_size, constraints,
                                      decode.length_penalty, decode.n_best, PAD_ID, banned_after,
                                      decode.coverage_penalty, avoid, repeats)


class Translator(TextTranslator):
    """Translates with a `TorchEngine`: a PyTorch model (or an ensemble of them) with its tokenizers and
    default decoding settings; runs on the model's device. Adds what needs the PyTorch model: `align`."""

    engine: TorchEngine

    def __init__(self, model: Seq2Seq | Ensemble, src_tokenizer: Tokenizer, tgt_tokenizer: Tokenizer, decode: DecodeConfig,
                 src_lang: str = "", tgt_lang: str = "") -> None:
        super().__init__(TorchEngine(model), src_tokenizer, tgt_tokenizer, decode, src_lang, tgt_lang)

    @property
    def model(self) -> Seq2Seq | Ensemble:
        return self.engine.model

    @classmethod
    def from_ensemble(cls, loaded: Sequence[Loaded], decode: DecodeConfig | None = None) -> Translator:
        """Loaded checkpoints decoded together (mean log-probabilities per step); see `inference.ensemble`."""
        check_loaded(loaded)
        return cls.from_loaded(loaded[0], Ensemble([member.model for member in loaded]).eval(), decode)

    @classmethod
    def from_loaded(cls, loaded: Loaded, model: Seq2Seq | Ensemble | None = None, decode: DecodeConfig | None = None) -> Translator:
        """A loaded checkpoint's translator: its tokenizers, languages (hence the input normalisation) and
        decoding settings; `model` / `decode` replace its model (e.g. a variant of the same weights) or settings."""
        return cls(model if model is not None else loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer,
                   decode if decode is not None else loaded.artifact.decode, loaded.artifact.src_lang,
                   loaded.artifact.tgt_lang)

    @torch.no_grad()
    def align(self, texts: list[str], translations: list[list[int]]) -> list[Alignment]:
        """Attention weights of each source text against its translation's tokens, on the pieces the
        search read (`read`: without the spans that pass through). Teacher-forced in chunks of pairs
        of like lengths, each at most ALIGN_CHUNK_CELLS padded cells (source x target x pairs) and
        ALIGN_CHUNK_ROWS decoder rows (target x pairs; one pair alone may be more), with
        `check_deadline` before each: so the pass's memory does not grow with
        the request, a server hands the model to another batch between chunks, and work nobody waits
        for stops within one chunk."""
        if not texts:
            return []
        was_training = self.model.training
        self.model.eval()
        src = self.encode_sources([self.read(text) for text in texts], warn=False)
        tgt = [target_ids(tokens) for tokens in translations]
        alignments: list[Alignment | None] = [None] * len(texts)
        for chunk in _chunks_of_cells([len(s) for s in src], [len(t) for t in tgt], ALIGN_CHUNK_CELLS):
            check_deadline()
            batch = collate([src[i] for i in chunk], [tgt[i] for i in chunk]).to(self.model.device)
            out = self.model(batch.src, batch.src_lens, batch.tgt_in)
            for row, i in enumerate(chunk):
                alignments[i] = self._alignment(src[i], tgt[i], out.weights[row], None if out.head_weights is None
                                                else out.head_weights[row])
        self.model.train(was_training)
        return [a for a in alignments if a is not None]

    def _alignment(self, s: list[int], t: list[int], weights: torch.Tensor, heads: torch.Tensor | None) -> Alignment:
        rows, cols = len(t) - 1, len(s)
        vocab, source_pieces = len(self.tgt_tokenizer), self.src_tokenizer.pieces(s)
        target_pieces = [source_pieces[i - vocab] if i >= vocab else p  # a copied source-only piece
                         for i, p in zip(t[1:], self.tgt_tokenizer.pieces([min(i, vocab - 1) for i in t[1:]]))]
        per_head = None if heads is None else heads[:rows, :, :cols].transpose(0, 1).tolist()
        return Alignment(source_pieces, target_pieces, weights[:rows, :cols].tolist(), per_head)


ALIGN_CHUNK_CELLS = 200_000  # padded attention cells of one chunk of `Translator.align` (its memory)
ALIGN_CHUNK_ROWS = 4_096  # pairs x decoder steps of one chunk (its time: the decoder steps one row at a time)


def _chunks_of_cells(source_lengths: list[int], target_lengths: list[int], cells: int,
                     rows: int | None = None) -> list[list[int]]:
    """Indices of pairs in chunks of like lengths (sorted by source, then target length), each chunk's
    padded cells (longest source x longest target x pairs) at most `cells` and its decoder rows (longest
    target x pairs) at most `rows` (default ALIGN_CHUNK_ROWS), a pair alone where it is more."""
    rows = ALIGN_CHUNK_ROWS if rows is None else rows
    order = sorted(range(len(source_lengths)), key=lambda i: (source_lengths[i], target_lengths[i]))
    chunks: list[list[int]] = []
    chunk: list[int] = []
    longest_source = longest_target = 0
    for i in order:
        s, t = max(longest_source, source_lengths[i]), max(longest_target, target_lengths[i])
        if chunk and (s * t * (len(chunk) + 1) > cells or t * (len(chunk) + 1) > rows):
            chunks.append(chunk)
            chunk, s, t = [], source_lengths[i], target_lengths[i]
        chunk.append(i)
        longest_source, longest_target = s, t
    if chunk:
        chunks.append(chunk)
    return chunks
