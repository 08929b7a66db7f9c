"""Numericalisation (cached as Arrow), length bucketing and token-count batches of a training corpus."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa

from translate.data.batch import Batch, collate
from translate.data.cache import publish, read_arrow
from translate.data.sampling import SubwordSampler
from translate.data.tokenizer import Tokenizer, fits, source_ids, target_ids


def fingerprint(*parts: str | bytes) -> str:
    h = hashlib.sha1()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:16]


IDS_FORMAT = "2"  # int32 ids only, one Arrow file (format 1: a save_to_disk folder with the text too)


def numericalize(ds: datasets.Dataset, src_lang: str, tgt_lang: str, src_tok: Tokenizer, tgt_tok: Tokenizer,
                 cache_dir: Path | None, key: str, max_tokens: int = 0) -> datasets.Dataset:
    """`src_ids` (with EOS) and `tgt_ids` (BOS ... EOS) as int32 lists, written as they are made to
    `cache_dir/key.ids.arrow` and memory-mapped from there (a large corpus's ids are never all in RAM).

    With `max_tokens` (training data; the caller's key must include it), rows are left out as they
    are encoded when the source has more than `max_tokens` ids (EOS included) or the target more
    than `max_tokens` + 1 (BOS and EOS included): what the decoder reads and predicts stays <= max_tokens.
    """
    path = cache_dir / f"{key}.ids{IDS_FORMAT}.arrow" if cache_dir else None
    cached = read_arrow(path) if path is not None else None
    if cached is not None:
        return cached

    def encode(rows: dict[str, list[str]]) -> dict[str, list[list[int]]]:
        pairs = zip(src_tok.encode(rows[src_lang]), tgt_tok.encode(rows[tgt_lang]))
        kept = [(s, t) for s, t in pairs if not max_tokens or fits(s, t, max_tokens)]
        return {"src_ids": [source_ids(s) for s, _ in kept], "tgt_ids": [target_ids(t) for _, t in kept]}

    ids = datasets.Sequence(datasets.Value("int32"))
    features = datasets.Features({"src_ids": ids, "tgt_ids": ids})
    if path is None:
        return ds.map(encode, batched=True, batch_size=10_000, remove_columns=ds.column_names, features=features)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    ds.map(encode, batched=True, batch_size=10_000, remove_columns=ds.column_names, features=features,
           cache_file_name=str(tmp), load_from_cache_file=False)
    if path.exists():  # another process finished first: keep its copy
        tmp.unlink(missing_ok=True)
    else:
        publish(tmp, path)
    return datasets.Dataset.from_file(str(path))


def token_batches(src_lens: list[int], tgt_lens: list[int], batch_tokens: int, bucket_batches: int,
                  seed: int, epoch: int, shuffle: bool = True) -> list[list[int]]:
    """Group example indices into batches of at most `batch_tokens` padded target (or source) tokens.

    Examples are shuffled, then sorted by length inside pools of `bucket_batches` batches so each
    batch holds similar lengths; the batch order is shuffled again. Deterministic in (seed, epoch).
    """
    rng = random.Random(seed * 100_003 + epoch)
    order = list(range(len(src_lens)))
    if shuffle:
        rng.shuffle(order)
    approx_per_batch = max(1, batch_tokens // max(1, sum(tgt_lens) // max(1, len(tgt_lens))))
    pool = max(1, approx_per_batch * bucket_batches) if shuffle else len(order)
    batches: list[list[int]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start:start + pool], key=lambda i: (tgt_lens[i], src_lens[i]))
        current: list[int] = []
        longest = 0
        for i in chunk:
            longest_new = max(longest, tgt_lens[i], src_lens[i])
            if current and longest_new * (len(current) + 1) > batch_tokens:
                batches.append(current)
                current, longest_new = [], max(tgt_lens[i], src_lens[i])
            current.append(i)
            longest = longest_new
        if current:
            batches.append(current)
    if shuffle:
        rng.shuffle(batches)
    return batches


class RaggedIds:
    """Variable-length id sequences as one flat array and offsets (row i = values[offsets[i]:offsets[i+1]]).

    Read from an Arrow list column without a Python object per token: a million pairs of 30 pieces
    take 240 MB as int32 here, against 2 GB as Python lists of ints.
    """

    def __init__(self, values: np.ndarray, offsets: np.ndarray) -> None:
        self.values, self.offsets = values, offsets

    @classmethod
    def from_column(cls, table: pa.Table, name: str) -> RaggedIds:
        column = table.column(name).combine_chunks()
        if isinstance(column, pa.ChunkedArray):  # an empty table has no chunk to combine
            column = pa.array([], type=column.type)
        offsets = column.offsets.to_numpy().astype(np.int64)
        values = column.values.to_numpy(zero_copy_only=False)
        return cls(values, offsets - offsets[0] if len(offsets) else offsets)

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row(self, i: int) -> np.ndarray:
        return self.values[self.offsets[i]:self.offsets[i + 1]]

    def __len__(self) -> int:
        return max(0, len(self.offsets) - 1)


class BatchStream:
    """Epochs of token batches over a numericalised dataset, resumable from (epoch, index).

    With a `sampler`, each batch's rows are segmented anew when it is built (subword regularisation);
    batches are still grouped by the lengths of the best segmentation."""

    def __init__(self, ds: datasets.Dataset, batch_tokens: int, bucket_batches: int, seed: int,
                 sampler: SubwordSampler | None = None) -> None:
        # Flat arrays read from Arrow once: indexing a `datasets` column converts one row at a time
        # (slow enough to show in a training step), and Python lists of ints
        # cost ~70 bytes per token (2 GB for a million pairs).
        table = ds.select_columns(["src_ids", "tgt_ids"]).with_format("arrow")[:]
        self.src = RaggedIds.from_column(table, "src_ids")
        self.tgt = RaggedIds.from_column(table, "tgt_ids")
        self.src_lens: list[int] = self.src.lengths().tolist()
        self.tgt_lens: list[int] = (self.tgt.lengths() - 1).tolist()
        self.batch_tokens, self.bucket_batches, self.seed, self.sampler = batch_tokens, bucket_batches, seed, sampler

    def epoch_batches(self, epoch: int) -> list[list[int]]:
        return token_batches(self.src_lens, self.tgt_lens, self.batch_tokens, self.bucket_batches, self.seed, epoch)

    def batch(self, indices: list[int]) -> Batch:
        src, tgt = [self.src.row(i) for i in indices], [self.tgt.row(i) for i in indices]
        if self.sampler is not None:
            return collate(*self.sampler(src, tgt))
        return collate(src, tgt)

    def __len__(self) -> int:
        return len(self.src)
