"""The data flow from files to training batches: read -> clean -> SentencePiece -> numericalise (cached)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import datasets
import pyarrow as pa

from translate.config.paths import cache_path, data_dir
from translate.config.schema import DataConfig, TokenizerConfig
from translate.data.batching import fingerprint, numericalize
from translate.data.cache import publish, read_arrow, read_tokenizer, write_atomic
from translate.data.cleaning import check_columns, clean, clean_to_file
from translate.data.readers import read_split
from translate.data.tokenizer import TRAINING_RECIPE, Tokenizer, train_tokenizer

logger = logging.getLogger(__name__)


@dataclass
class Corpus:
    """Cleaned text of one split (columns en, zh) and its numericalised form (src_ids, tgt_ids)."""

    text: datasets.Dataset
    ids: datasets.Dataset

    def sources(self, cfg: DataConfig) -> list[str]:
        return list(self.text[cfg.src_lang])

    def references(self, cfg: DataConfig) -> list[str]:
        return list(self.text[cfg.tgt_lang])


@dataclass
class PreparedData:
    train: Corpus
    dev: Corpus
    src_tokenizer: Tokenizer
    tgt_tokenizer: Tokenizer
    report: list[str] = field(default_factory=list)


def _source_key(cfg: DataConfig, split: str) -> str:
    """Identify a split's content: file bytes for local data, name and split for the hub."""
    if cfg.format == "hf":
        return f"{cfg.hf_name}:{cfg.hf_config}:{getattr(cfg, split)}"
    h = hashlib.sha1()
    for file in _split_files(cfg, split):
        if file.is_file():
            stat = file.stat()
            h.update(_file_digest(str(file.resolve()), stat.st_size, stat.st_mtime_ns))
    return h.hexdigest()


@functools.lru_cache(maxsize=16)
def _file_digest(path: str, size: int, mtime_ns: int) -> bytes:
    """SHA-1 of a file's bytes, read in blocks (a corpus may be gigabytes); computed once per
    process for an unchanged file (size and mtime are part of the cache key)."""
    h = hashlib.sha1()
    with open(path, "rb") as stream:
        while block := stream.read(1 << 20):
            h.update(block)
    return h.digest()


def _split_files(cfg: DataConfig, split: str) -> list[Path]:
    """The local file(s) of a split: one TSV/JSONL file, or <name>.en and <name>.zh."""
    base = data_dir(cfg.data_dir) / getattr(cfg, split)
    return [base] if cfg.format != "text" else [base.with_name(base.name + ".en"), base.with_name(base.name + ".zh")]


def _where(cfg: DataConfig, split: str) -> str:
    """How a split's reader names it in reports (ReadReport.path)."""
    if cfg.format == "hf":
        return f"{cfg.hf_name}:{getattr(cfg, split)}"
    return "+".join(str(file) for file in _split_files(cfg, split))


CLEAN_VERSION = "3"  # bump when reading or cleaning changes what a cached cleaned split holds


def read_clean(cfg: DataConfig, split: str, report: list[str], cache: Path | None = None) -> datasets.Dataset:
    """Read and clean one split; with `cache`, the cleaned text is kept there as an Arrow file keyed
    by the file's bytes and the cleaning settings, and memory-mapped on the next run."""
    key = fingerprint(_source_key(cfg, split), str(cfg.max_chars), str(cfg.max_ratio), str(cfg.check_columns),
                      split if split == "train" else "eval", CLEAN_VERSION)
    path = cache / f"text-{key}.arrow" if cache is not None else None
    if path is not None and path.with_suffix(".json").is_file():
        found = read_arrow(path)
        if found is not None:
            cached = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            report.append(cached["report"].replace(cached["path"], _where(cfg, split)))  # same bytes, maybe another path
            return found
    ds, read_report = read_split(cfg, split)
    if cfg.check_columns:
        check_columns(ds, read_report.path)
    if path is None:
        cleaned, clean_report = clean(ds, cfg.max_chars, cfg.max_ratio, filter_training=split == "train")
        report.append(f"{split}: {read_report.summary()}; {clean_report.summary()}")
        return cleaned
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    clean_report = clean_to_file(ds, tmp, cfg.max_chars, cfg.max_ratio, filter_training=split == "train")
    del ds
    pa.default_memory_pool().release_unused()  # the raw corpus: give its memory back before tokenising
    line = f"{split}: {read_report.summary()}; {clean_report.summary()}"
    report.append(line)
    write_atomic(path.with_suffix(".json"), json.dumps({"report": line, "path": read_report.path}))
    publish(tmp, path)
    return datasets.Dataset.from_file(str(path))


TOKENIZER_SAMPLE = 300_000  # SentencePiece learns a 4k-8k vocabulary as well from this many sentences


def sample_sentences(ds: datasets.Dataset, lang: str, limit: int = TOKENIZER_SAMPLE, seed: int = 0) -> Iterator[str]:
    """Column `lang` streamed in chunks (never the whole corpus as one Python list); a corpus
    larger than `limit` gives a random sample of `limit` sentences (same seed, same sample)."""
    if len(ds) > limit:
        ds = ds.shuffle(seed=seed).select(range(limit))
    for chunk in ds.select_columns([lang]).iter(batch_size=10_000):
        yield from chunk[lang]


def _tokenizer(settings: TokenizerConfig, lang: str, train_text: datasets.Dataset, key: str, cache: Path) -> Tokenizer:
    tok_cfg = json.dumps(dataclasses.asdict(settings), sort_keys=True)
    path = cache / f"spm-{lang}-{fingerprint(key, tok_cfg, lang, TRAINING_RECIPE)}.model"
    cached = read_tokenizer(path)
    if cached is not None:
        return cached
    logger.info("training SentencePiece (%s, %d pieces) on %d of %d sentences", lang, settings.vocab_size(lang),
                min(len(train_text), TOKENIZER_SAMPLE), len(train_text))
    tokenizer = Tokenizer(train_tokenizer(sample_sentences(train_text, lang), lang, settings))
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tokenizer.save(tmp)
    os.replace(tmp, path)  # never a half-written model under the real name
    return tokenizer


def prepare_data(data: DataConfig, tokenizer: TokenizerConfig,
                 tokenizers: tuple[Tokenizer, Tokenizer] | None = None) -> PreparedData:
    """Read and clean train/dev, train (or reuse) tokenizers, numericalise with an on-disk cache.

    Pass `tokenizers` (src, tgt) to reuse a run's own models when resuming.
    """
    cache = cache_path(data.cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    report: list[str] = []
    clock = _PhaseClock()
    train_text = read_clean(data, "train", report, cache)
    dev_text = read_clean(data, "dev", report, cache)
    clock.done("read and clean")
    clean_key = fingerprint(_source_key(data, "train"), str(data.max_chars), str(data.max_ratio))
    if tokenizers is None:
        tokenizers = (_tokenizer(tokenizer, data.src_lang, train_text, clean_key, cache),
                      _tokenizer(tokenizer, data.tgt_lang, train_text, clean_key, cache))
    clock.done("tokenizers")
    src_tok, tgt_tok = tokenizers
    tok_key = fingerprint(src_tok.proto, tgt_tok.proto, data.direction)
    train_ids = numericalize(train_text, data.src_lang, data.tgt_lang, src_tok, tgt_tok, cache,
                             f"train-{fingerprint(clean_key, tok_key, str(data.max_tokens))}", data.max_tokens)
    before = len(train_text)
    dev_ids = numericalize(dev_text, data.src_lang, data.tgt_lang, src_tok, tgt_tok, cache,
                           f"dev-{fingerprint(_source_key(data, 'dev'), tok_key)}")
    clock.done("token ids")
    report.append(f"train: dropped {before - len(train_ids)} pairs over {data.max_tokens} pieces; "
                  f"{len(train_ids)} pairs for training")
    dev_refs = list(dev_text[data.tgt_lang])
    report.append(f"dev <unk> rate: source {src_tok.unk_rate(list(dev_text[data.src_lang])):.4%}, "
                  f"target {tgt_tok.unk_rate(dev_refs):.4%}; vocab {len(src_tok)} src / {len(tgt_tok)} tgt pieces")
    report.append(clock.summary())
    return PreparedData(Corpus(train_text, train_ids), Corpus(dev_text, dev_ids), src_tok, tgt_tok, report)


def _peak_rss_mib() -> int:
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


class _PhaseClock:
    """Seconds spent in each phase of preparation, for the report and the scale benchmark."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.phases: list[tuple[str, float]] = []

    def done(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases.append((phase, now - self.last))
        self.last = now
        logger.info("%s: %.1f s (peak RSS so far %d MiB)", phase, self.phases[-1][1], _peak_rss_mib())

    def summary(self) -> str:
        parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.phases)
        return f"prepared in {self.last - self.start:.1f} s ({parts})"


def load_eval_split(cfg: DataConfig, split: str) -> tuple[list[str], list[str]]:
    """Sources and references of dev or test, whitespace-normalised, nothing filtered."""
    text = read_clean(cfg, split, [])
    return list(text[cfg.src_lang]), list(text[cfg.tgt_lang])
