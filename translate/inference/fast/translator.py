"""FastEngine and FastTranslator: a checkpoint translated on ONNX Runtime, for commands that translate
a few sentences and would otherwise spend most of their time importing PyTorch."""

from __future__ import annotations

from pathlib import Path

from translate.checkpoint.files import SRC_SPM, TGT_SPM, WEIGHTS, read_artifact, read_meta, resolve
from translate.config.paths import find_model
from translate.config.schema import DecodeConfig
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.inference.constrained import constrained_search
from translate.inference.fast.graphs import graph_folder
from translate.inference.fast.model import FastSeq2Seq
from translate.inference.fast.search import beam_search, greedy, max_length
from translate.inference.hypothesis import Hypothesis
from translate.inference.text_translator import TextTranslator
from translate.tokens import BOS_ID, EOS_ID, PAD_ID


class FastEngine:
    """The graphs derived from the PyTorch model with the NumPy search (same rules as the PyTorch
    search); one sentence at a time, so it suits a handful of sentences, not files."""

    def __init__(self, model: FastSeq2Seq) -> None:
        self.model = model

    def search(self, sources: list[list[int]], decode: DecodeConfig) -> list[list[Hypothesis]]:
        if decode.sample > 0:
            raise ConfigError("sampling (decode.sample > 0) runs on the PyTorch engine: use --engine torch")
        results = []
        for ids in sources:
            ctx, limit = self.model.encode(ids), max_length(len(ids), decode.max_len_a, decode.max_len_b)
            if decode.beam_size == 1:
                results.append([greedy(self.model.step, ctx, limit, BOS_ID, EOS_ID, PAD_ID)])
            else:
                results.append(beam_search(self.model.step, ctx, limit, BOS_ID, EOS_ID, decode.beam_size,
                                           decode.length_penalty, decode.n_best, PAD_ID))
        return results

    def constrained(self, sources: list[list[int]], decode: DecodeConfig, constraints: list[list[list[int]]],
                    beam_size: int, banned_after: list[int] | None = None) -> list[list[Hypothesis]]:
        return [constrained_search(self.model.step, self.model.encode(ids),
                                   [max_length(len(ids), decode.max_len_a, decode.max_len_b)], BOS_ID, EOS_ID, beam_size,
                                   [sentence_constraints], decode.length_penalty, decode.n_best, PAD_ID, banned_after)[0]
                for ids, sentence_constraints in zip(sources, constraints)]


class FastTranslator(TextTranslator):
    """Translates like `Translator` (same text handling, model and search rules) with a `FastEngine`."""

    @classmethod
    def from_checkpoint(cls, path: Path | str, threads: int = 1) -> FastTranslator:
        """A checkpoint or run folder, or a released model by name (`en-zh`). The graphs of its
        architecture are derived on first use (this imports PyTorch once); raises CheckpointError when
        the checkpoint is unreadable."""
        path = resolve(find_model(path))
        artifact = read_artifact(path, read_meta(path))
        src_tok, tgt_tok = Tokenizer.load(path / SRC_SPM), Tokenizer.load(path / TGT_SPM)
        graphs = graph_folder(path, artifact.model, len(src_tok), len(tgt_tok))
        return cls(FastEngine(FastSeq2Seq(graphs, path / WEIGHTS, threads)), src_tok, tgt_tok, artifact.decode,
                   artifact.src_lang, artifact.tgt_lang)
