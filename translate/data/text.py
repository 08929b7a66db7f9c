"""Reading a user's text file into lines: UTF-8 (BOM tolerated, CRLF accepted), with errors that
name the file, the line and the likely encoding. No `datasets` here: `translate file` stays light."""

from __future__ import annotations

from pathlib import Path

from translate.errors import DataError


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


def read_text_lines(path: Path) -> list[str]:
    """Read a UTF-8 file (BOM tolerated, CRLF accepted) into lines; clear errors otherwise."""
    if not path.exists():
        raise DataError(f"{path}: file not found")
    if path.is_dir():
        raise DataError(f"{path}: is a directory, expected a file")
    raw = path.read_bytes()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(f"{path}: file is UTF-16 (byte-order mark found); convert it to UTF-8, "
                        f"e.g. iconv -f UTF-16 -t UTF-8 {path.name}")
    utf16 = _utf16_without_bom(raw)
    if utf16:
        raise DataError(f"{path}: file looks like {utf16} without a byte-order mark (NUL bytes in every other "
                        f"position); convert it to UTF-8, e.g. iconv -f {utf16} -t UTF-8 {path.name}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"{path}:{line}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); the file looks like "
                        f"{_suspect_encoding(raw)}: convert it, e.g. iconv -f GB18030 -t UTF-8") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]
