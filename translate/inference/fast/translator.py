"""FastEngine and FastTranslator: a checkpoint (or several, an ensemble) translated on ONNX Runtime by
the one search, without importing PyTorch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from translate.checkpoint.files import SRC_SPM, TGT_SPM, WEIGHTS, read_artifact, read_meta, resolve
from translate.config.paths import find_model
from translate.config.schema import DecodeConfig
from translate.data.tokenizer import Tokenizer
from translate.errors import ConfigError
from translate.inference.ensemble import Member, MembersContext, check_members, members_context, members_step
from translate.inference.fast.graphs import graph_folder
from translate.inference.fast.model import FastContext, FastSeq2Seq
from translate.inference.search import Hypothesis, RepeatBan, constrained_search, decode_search, max_lengths
from translate.inference.text_translator import TextTranslator
from translate.tokens import BOS_ID, EOS_ID, PAD_ID


class FastEngine:
    """The graphs derived from the PyTorch model (one model or the members of an ensemble), searched
    in batches by the one search, as `TorchEngine` searches the PyTorch model."""

    def __init__(self, models: FastSeq2Seq | Sequence[FastSeq2Seq]) -> None:
        self.members = [models] if isinstance(models, FastSeq2Seq) else list(models)
        self.step = members_step([member.step for member in self.members])

    def encoded(self, sources: list[list[int]], decode: DecodeConfig) -> tuple[FastContext | MembersContext, list[int]]:
        ctx = members_context([member.encode(sources) for member in self.members])
        return ctx, max_lengths([len(ids) for ids in sources], decode.max_len_a, decode.max_len_b).tolist()

    def search(self, sources: list[list[int]], decode: DecodeConfig,
               repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
        if decode.sample > 0:
            raise ConfigError("sampling (decode.sample > 0) runs on the PyTorch engine: use --engine torch")
        ctx, limits = self.encoded(sources, decode)
        return decode_search(self.step, ctx, limits, decode, repeats=repeats)

    def constrained(self, sources: list[list[int]], decode: DecodeConfig, constraints: list[list[list[int]]],
                    beam_size: int, banned_after: list[int] | None = None,
                    avoid: list[list[list[int]]] | None = None, repeats: RepeatBan | None = None) -> list[list[Hypothesis]]:
        """All sentences in one batch (the caller sizes it)."""
        ctx, limits = self.encoded(sources, decode)
        return constrained_search(self.step, ctx, limits, BOS_ID, EOS_ID, beam_size, constraints,
                                  decode.length_penalty, decode.n_best, PAD_ID, banned_after,
                                  decode.coverage_penalty, avoid, repeats)


class FastTranslator(TextTranslator):
    """Translates like `Translator` (same text handling, model and search) with a `FastEngine`."""

    @classmethod
    def from_checkpoints(cls, paths: Sequence[Path | str], threads: int = 1) -> FastTranslator:
        """Checkpoint folders, one or several decoded together as an ensemble (same direction and
        vocabularies, `inference.ensemble.check_members`; the first one's decoding settings). Built by
        `inference.build.load_translator`, the one way to get a translator."""
        folders = [resolve(find_model(path)) for path in paths]
        first = folders[0]
        artifact = read_artifact(first, read_meta(first))
        src_tok, tgt_tok = Tokenizer.load(first / SRC_SPM), Tokenizer.load(first / TGT_SPM)
        found = [(folder, read_artifact(folder, read_meta(folder))) for folder in folders]
        check_members([Member(folder, member.direction, Tokenizer.load(folder / SRC_SPM), Tokenizer.load(folder / TGT_SPM))
                       for folder, member in found])
        members = [FastSeq2Seq(graph_folder(folder, member.model, len(src_tok), len(tgt_tok)), folder / WEIGHTS, threads)
                   for folder, member in found]
        return cls(FastEngine(members), src_tok, tgt_tok, artifact.decode, artifact.src_lang, artifact.tgt_lang)
