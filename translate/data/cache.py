"""Reading the per-user cache defensively: an entry that is damaged (a truncated Arrow file, a
SentencePiece model cut short) is removed with a one-line notice and rebuilt by the caller, never a
traceback. Entries are written to a temporary name and renamed into place (`publish`), so a
half-written one is never found under its real name; an Arrow entry is sealed with its size first,
since a memory-mapped Arrow file cut short can read back without an error but with wrong rows. The
seal is in place, whole, before the entry appears: a process that finds the entry while another
publishes it (two study workers on a cold cache) never reads a missing or half-written seal as damage
and removes the other's entry."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import datasets
import pyarrow as pa

from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError

logger = logging.getLogger(__name__)


def _discard(path: Path, problem: BaseException) -> None:
    first_line = (str(problem).splitlines() or [type(problem).__name__])[0][:160]
    logger.warning("cache entry %s cannot be used (%s); rebuilding it", path, first_line)
    for stale in (path, path.with_suffix(".json"), _seal_of(path)):
        stale.unlink(missing_ok=True)


def _seal_of(path: Path) -> Path:
    return path.with_name(path.name + ".size")


def write_atomic(path: Path, text: str) -> None:
    """Write a small cache file under a temporary name and rename it into place: never seen half-written."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def publish(tmp: Path, path: Path) -> None:
    """Put the Arrow entry written at `tmp` in place as `path`, sealed with its size (read_arrow checks it):
    the seal first, then the entry."""
    write_atomic(_seal_of(path), str(tmp.stat().st_size))
    os.replace(tmp, path)


def read_arrow(path: Path) -> datasets.Dataset | None:
    """The cached Arrow file at `path`, or None: missing, or damaged (not its sealed size, or unreadable)
    and removed."""
    if not path.is_file():
        return None
    try:
        if not _seal_of(path).is_file():
            raise ValueError("no size recorded: written by an older version of translate, or cut short")
        sealed = _seal_of(path).read_text(encoding="utf-8").strip()
        if sealed != str(path.stat().st_size):
            raise ValueError(f"damaged: {path.stat().st_size} bytes where {sealed} were recorded")
        return datasets.Dataset.from_file(str(path))
    except (OSError, ValueError, pa.ArrowException) as exc:
        _discard(path, exc)
        return None


def read_tokenizer(path: Path) -> Tokenizer | None:
    """The cached SentencePiece model at `path`, or None: missing, or damaged and removed."""
    if not path.is_file():
        return None
    try:
        return Tokenizer.load(path)
    except CheckpointError as exc:
        _discard(path, exc)
        return None
