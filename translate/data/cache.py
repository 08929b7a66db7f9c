"""Reading the per-user cache defensively: an entry that is damaged (a truncated Arrow file, a
SentencePiece model cut short) is removed with a one-line notice and rebuilt by the caller, never a
traceback. Entries are written to a temporary name and renamed into place, so a half-written one
is never found under its real name; an Arrow entry is then sealed with its size (`seal`), since a
memory-mapped Arrow file cut short can read back without an error but with wrong rows."""

from __future__ import annotations

import logging
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


def seal(path: Path) -> None:
    """Record the size of a cache entry just renamed into place (read_arrow checks it)."""
    _seal_of(path).write_text(str(path.stat().st_size), encoding="utf-8")


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
