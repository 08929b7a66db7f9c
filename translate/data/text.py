"""Reading a user's text file into lines: UTF-8 (BOM tolerated, CRLF accepted), with errors that
name the file, the line and the likely encoding. No `datasets` here: `translate file` stays light."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

from translate.errors import DataError

logger = logging.getLogger(__name__)


def _suspect_encoding(raw: bytes) -> str:
    for name in ("gb18030", "big5", "latin-1"):
        try:
            raw.decode(name)
            return name.upper() if name != "gb18030" else "GB18030/GBK"
        except UnicodeDecodeError:
            continue
    return "unknown"


def _utf16_without_bom(raw: bytes) -> str | None:
    """'UTF-16LE' / 'UTF-16BE' when the start has many NUL bytes, nearly all at odd (even) positions:
    ASCII (tabs, newlines, Latin letters) in UTF-16 is a letter then a NUL byte."""
    head = raw[:4096]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if len(head) < 4 or even + odd < len(head) // 10:
        return None
    if odd >= 4 * max(even, 1):
        return "UTF-16LE"
    if even >= 4 * max(odd, 1):
        return "UTF-16BE"
    return None


def _check_start(path: Path, head: bytes) -> None:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(f"{path}: file is UTF-16 (byte-order mark found); convert it to UTF-8, "
                        f"e.g. iconv -f UTF-16 -t UTF-8 {path.name}")
    utf16 = _utf16_without_bom(head)
    if utf16:
        raise DataError(f"{path}: file looks like {utf16} without a byte-order mark (NUL bytes in every other "
                        f"position); convert it to UTF-8, e.g. iconv -f {utf16} -t UTF-8 {path.name}")


PROGRESS_LINES = 500_000  # a progress line (count, rate, ETA) every this many lines of a large file


def _log_progress(path: Path, lines: int, done: int, size: int, seconds: float) -> None:
    rate = lines / max(seconds, 1e-9)
    left = seconds * (size - done) / max(done, 1)
    logger.info("%s: %s lines read (%.0f%%), %s lines/s, ETA %d s", path.name, f"{lines:,}", 100 * done / max(size, 1),
                f"{rate:,.0f}", round(left))


def iter_text_lines(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 file (BOM tolerated, CRLF accepted), read one at a time, so a corpus of
    millions of lines is never in memory twice; an encoding error names the line."""
    if not path.exists():
        raise DataError(f"{path}: file not found")
    if path.is_dir():
        raise DataError(f"{path}: is a directory, expected a file")
    size, began = path.stat().st_size, time.monotonic()
    done = 0
    with open(path, "rb") as file:
        _check_start(path, file.peek(4096)[:4096])
        for number, raw in enumerate(file, start=1):
            done += len(raw)
            if number % PROGRESS_LINES == 0:
                _log_progress(path, number, done, size, time.monotonic() - began)
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"{path}:{number}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); the file looks "
                                f"like {_suspect_encoding(raw)}: convert it, e.g. iconv -f GB18030 -t UTF-8") from None
            yield line.removesuffix("\n").removesuffix("\r")


def read_text_lines(path: Path) -> list[str]:
    """Read a UTF-8 file (BOM tolerated, CRLF accepted) into lines; clear errors otherwise."""
    return list(iter_text_lines(path))
