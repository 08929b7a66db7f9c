"""SentencePiece per language: training on the training split, encode/decode, special ids in one place.

Every sequence the model sees gets its special tokens here: sources end with EOS
(`source_ids`), targets are BOS ... EOS (`target_ids`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

from translate.config.schema import TokenizerConfig
from translate.errors import CheckpointError, ConfigError
from translate.tokens import BOS_ID, EOS_ID, PAD_ID, SPECIAL_IDS, UNK_ID

# Bump when train_tokenizer's fixed arguments change, so cached models trained the old way are not reused.
TRAINING_RECIPE = "2: no dummy prefix for zh"


def source_ids(pieces: list[int]) -> list[int]:
    """Piece ids of a source sentence -> what the encoder reads (ends with EOS)."""
    return [*pieces, EOS_ID]


def target_ids(pieces: list[int]) -> list[int]:
    """Piece ids of a target sentence -> BOS ... EOS (teacher forcing reads [:-1], predicts [1:])."""
    return [BOS_ID, *pieces, EOS_ID]


def fits(src_pieces: list[int], tgt_pieces: list[int], max_tokens: int) -> bool:
    """Whether a pair stays within `max_tokens` once its special tokens are added: what the encoder reads
    (pieces + EOS) and what the decoder reads and predicts (BOS + pieces, pieces + EOS)."""
    return len(src_pieces) < max_tokens and len(tgt_pieces) <= max_tokens - 1


def train_tokenizer(sentences: Iterable[str], lang: str, cfg: TokenizerConfig) -> bytes:
    """Train a SentencePiece model on `sentences`; return the serialized model."""
    model = io.BytesIO()
    normalization = cfg.zh_normalization if lang == "zh" else cfg.en_normalization
    try:
        _train(sentences, lang, cfg, model, normalization)
    except RuntimeError as exc:
        raise _refusal(exc, lang, cfg) from None
    return model.getvalue()


def _refusal(exc: RuntimeError, lang: str, cfg: TokenizerConfig) -> ConfigError:
    """SentencePiece's refusal as one line naming the setting and a value that works."""
    message = str(exc)
    too_small = re.search(r"Vocabulary size is smaller than required_chars\. (\d+) vs (\d+)", message)
    if too_small:
        needed = int(too_small.group(2)) + 4  # its characters, plus the four special pieces
        coverage = " (or lower tokenizer.zh_character_coverage, e.g. 0.9995)" if lang == "zh" else ""
        return ConfigError(f"tokenizer.{lang}_vocab_size={cfg.vocab_size(lang)} is too small for the {lang} "
                           f"training text: its characters alone need {needed} pieces; set "
                           f"--set tokenizer.{lang}_vocab_size={max(needed, 2 * needed // 100 * 100)} or more{coverage}")
    first = message.splitlines()[0] if message else type(exc).__name__
    detail = first.split("] ", 1)[-1]
    return ConfigError(f"SentencePiece refused the {lang} tokenizer settings (tokenizer.*): {detail}")


def _train(sentences: Iterable[str], lang: str, cfg: TokenizerConfig, model: io.BytesIO, normalization: str) -> None:
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=model,
        vocab_size=cfg.vocab_size(lang),
        model_type=cfg.model_type,
        character_coverage=cfg.zh_character_coverage if lang == "zh" else 1.0,
        normalization_rule_name=normalization,
        byte_fallback=cfg.byte_fallback,
        add_dummy_prefix=lang != "zh",  # Chinese has no spaces: no "▁" pieces inside a sentence
        pad_id=PAD_ID, unk_id=UNK_ID, bos_id=BOS_ID, eos_id=EOS_ID,
        hard_vocab_limit=False,
        input_sentence_size=2_000_000,  # callers pass a bounded sample (data/corpus.py)
        shuffle_input_sentence=True,
        num_threads=2,
        minloglevel=2,
    )


class Tokenizer:
    """A loaded SentencePiece model with the project's special ids."""

    def __init__(self, model_proto: bytes) -> None:
        self.proto = model_proto
        self.sp = spm.SentencePieceProcessor()
        try:
            self.sp.LoadFromSerializedProto(model_proto)
        except (RuntimeError, OSError) as exc:
            raise CheckpointError(f"not a SentencePiece model: {exc}") from None
        if self.sp.pad_id() != PAD_ID or self.sp.eos_id() != EOS_ID:
            raise CheckpointError("SentencePiece model has unexpected special ids (train it with translate)")

    @classmethod
    def load(cls, path: Path) -> Tokenizer:
        if not path.is_file():
            raise CheckpointError(f"tokenizer model missing: {path}")
        return cls(path.read_bytes())

    def save(self, path: Path) -> None:
        path.write_bytes(self.proto)

    def __len__(self) -> int:
        return int(self.sp.GetPieceSize())

    def encode(self, texts: list[str]) -> list[list[int]]:
        """Piece ids without special tokens."""
        return [list(ids) for ids in self.sp.Encode(texts)]

    def sample(self, texts: list[str], alpha: float) -> list[list[int]]:
        """Piece ids drawn from the model's segmentations instead of the best one (subword regularisation,
        Kudo 2018): a unigram model samples over all segmentations, smoothed by `alpha`; a BPE model drops
        merges with probability `alpha` (BPE-dropout). Seeded by `sentencepiece.set_random_generator_seed`.

        One text per call: a list is encoded on fresh pool threads whose random generators start from the
        seed again, so every call would draw the same segmentations."""
        return [list(self.sp.Encode(text, enable_sampling=True, nbest_size=-1, alpha=alpha)) for text in texts]

    def decode(self, ids: list[list[int]]) -> list[str]:
        return [str(self.sp.Decode([i for i in seq if i not in SPECIAL_IDS])) for seq in ids]

    def pieces(self, ids: list[int]) -> list[str]:
        """The piece string of each id (specials as <s>, </s>, <pad>): labels for attention views."""
        return [str(self.sp.IdToPiece(i)) for i in ids]

    def piece(self, i: int) -> str:
        return str(self.sp.IdToPiece(i))

    def piece_id(self, piece: str) -> int:
        """The id of a piece (`unk_id` for a piece the vocabulary lacks)."""
        return int(self.sp.PieceToId(piece))

    @property
    def unk_id(self) -> int:
        return int(self.sp.unk_id())

    def is_special(self, i: int) -> bool:
        """A control, <unk> or byte piece: the same id in every vocabulary of the project, never spelled out."""
        piece = self.piece(i)
        return bool(self.sp.IsControl(i) or self.sp.IsUnknown(i)) or (
            piece.startswith("<0x") and piece.endswith(">") and len(piece) == 6)

    def unk_rate(self, texts: list[str]) -> float:
        """Share of pieces that are <unk> (byte fallback counts as known)."""
        encoded = self.encode(texts)
        total = sum(len(s) for s in encoded)
        return sum(s.count(UNK_ID) for s in encoded) / max(total, 1)
