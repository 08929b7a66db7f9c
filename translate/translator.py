"""Translator: checkpoint -> strings in, strings out. Used by the CLI, evaluation, training validation and tests."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import torch

from translate.checkpoint import Loaded, load_checkpoint
from translate.config import DecodeConfig
from translate.data.batch import collate, pad
from translate.data.cleaning import normalize_whitespace
from translate.data.normalize import copy_digits, normalize_source, split_sentences
from translate.data.tokenizer import BOS_ID, EOS_ID, PAD_ID, Tokenizer, source_ids, target_ids
from translate.device import resolve_device
from translate.model import Seq2Seq
from translate.paths import find_model
from translate.search import Hypothesis, beam_search, greedy, max_lengths

logger = logging.getLogger(__name__)

MAX_SOURCE_TOKENS = 200  # longer inputs are truncated (with a warning) to bound time and memory


@dataclass
class Translation:
    text: str
    score: float
    tokens: list[int]


@dataclass
class Alignment:
    """The attention of one translation, teacher-forced: weights[t][s] is how much target piece t
    (the translation's pieces, then </s>) attended to source piece s (the source's pieces, then
    </s>); heads[h][t][s] the same per head for multi-head attention, else None."""

    source_pieces: list[str]
    target_pieces: list[str]
    weights: list[list[float]]
    heads: list[list[list[float]]] | None = None


class Translator:
    """A model with its tokenizers and default decoding settings; runs on the model's device."""

    def __init__(self, model: Seq2Seq, src_tokenizer: Tokenizer, tgt_tokenizer: Tokenizer, decode: DecodeConfig,
                 src_lang: str = "", tgt_lang: str = "") -> None:
        """src_lang / tgt_lang ("en", "zh"; "" = unknown) select the input normalisation and how
        sentences of a paragraph are split and joined."""
        self.model, self.src_tokenizer, self.tgt_tokenizer, self.decode = model, src_tokenizer, tgt_tokenizer, decode
        self.src_lang, self.tgt_lang = src_lang, tgt_lang

    @classmethod
    def from_checkpoint(cls, path: Path | str, device: str = "cpu") -> Translator:
        """A checkpoint or run folder, or a released model by name (`en-zh`)."""
        return cls.from_loaded(load_checkpoint(find_model(path), resolve_device(device)))

    @classmethod
    def from_loaded(cls, loaded: Loaded) -> Translator:
        return cls(loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer, loaded.artifact.decode,
                   loaded.artifact.src_lang, loaded.artifact.tgt_lang)

    def encode_sources(self, texts: list[str]) -> list[list[int]]:
        encoded = self.src_tokenizer.encode([normalize_source(t, self.src_lang) for t in texts])
        for i, ids in enumerate(encoded):
            if len(ids) > MAX_SOURCE_TOKENS:
                logger.warning("sentence %d has %d pieces; truncated to %d", i + 1, len(ids), MAX_SOURCE_TOKENS)
                encoded[i] = ids[:MAX_SOURCE_TOKENS]
        return [source_ids(ids) for ids in encoded]

    def translate(self, texts: list[str], decode: DecodeConfig | None = None) -> list[str]:
        return [n_best[0].text for n_best in self.translate_n_best(texts, decode)]

    def translate_paragraphs(self, texts: list[str], decode: DecodeConfig | None = None) -> list[str]:
        """Like `translate`, but a text of several sentences is translated sentence by sentence
        (all sentences in one batched search) and the translations joined."""
        pieces = [split_sentences(text, self.src_lang) or [""] for text in texts]
        flat = self.translate([s for sentences in pieces for s in sentences], decode)
        joiner = "" if self.tgt_lang == "zh" else " "
        out, start = [], 0
        for sentences in pieces:
            out.append(joiner.join(t for t in flat[start:start + len(sentences)] if t))
            start += len(sentences)
        return out

    @torch.inference_mode()  # no autograd bookkeeping at all (no version counters, no view tracking)
    def translate_n_best(self, texts: list[str], decode: DecodeConfig | None = None) -> list[list[Translation]]:
        """Translate in batches of similar length; returns n-best lists in input order."""
        decode = decode or self.decode
        was_training = self.model.training
        self.model.eval()
        sources = self.encode_sources(texts)
        order = sorted(range(len(texts)), key=lambda i: len(sources[i]))
        results: list[list[Translation]] = [[] for _ in texts]
        for start in range(0, len(order), decode.batch_size):
            chunk = order[start:start + decode.batch_size]
            for i, hyps in zip(chunk, self._search([sources[i] for i in chunk], decode)):
                outputs = self.tgt_tokenizer.decode([h.tokens for h in hyps])
                if decode.copy_digits:
                    outputs = [copy_digits(texts[i], text) for text in outputs]
                results[i] = [Translation(text, h.score, h.tokens) for text, h in zip(outputs, hyps)]
        for i, text in enumerate(texts):
            if not normalize_whitespace(text):
                results[i] = [Translation("", 0.0, [])]
        self.model.train(was_training)
        return results

    @torch.no_grad()
    def align(self, texts: list[str], translations: list[list[int]]) -> list[Alignment]:
        """Attention weights of each source text against its translation's tokens (one batch)."""
        if not texts:
            return []
        was_training = self.model.training
        self.model.eval()
        src = self.encode_sources(texts)
        tgt = [target_ids(tokens) for tokens in translations]
        batch = collate(src, tgt).to(self.model.device)
        out = self.model(batch.src, batch.src_lens, batch.tgt_in)
        alignments = []
        for i, (s, t) in enumerate(zip(src, tgt)):
            rows, cols = len(t) - 1, len(s)
            heads = None if out.head_weights is None else out.head_weights[i, :rows, :, :cols].transpose(0, 1).tolist()
            alignments.append(Alignment(self.src_tokenizer.pieces(s), self.tgt_tokenizer.pieces(t[1:]),
                                        out.weights[i, :rows, :cols].tolist(), heads))
        self.model.train(was_training)
        return alignments

    def _search(self, sources: list[list[int]], decode: DecodeConfig) -> list[list[Hypothesis]]:
        device = self.model.device
        src_lens = torch.tensor([len(s) for s in sources])
        ctx = self.model.encode(pad(sources).to(device), src_lens)
        limits = max_lengths(src_lens, decode.max_len_a, decode.max_len_b).to(device)
        if decode.beam_size == 1:
            return [[h] for h in greedy(self.model.step, ctx, limits, BOS_ID, EOS_ID, PAD_ID)]
        return beam_search(self.model.step, ctx, limits, BOS_ID, EOS_ID, decode.beam_size,
                           decode.length_penalty, decode.n_best, PAD_ID)
