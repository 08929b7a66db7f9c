"""What a model cannot read well in an input, said in words: characters its tokenizer only knows as
raw bytes (never seen in training), and the other language's script mixed in. The server returns
these with each translation and the page shows them; nothing is changed in the input."""

from __future__ import annotations

import re

from translate.data.tokenizer import Tokenizer
from translate.tokens import UNK_ID

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
BYTE_PIECE = re.compile(r"^<0x[0-9A-F]{2}>$")
SHOWN = 5  # examples named in a notice


def unreadable(text: str, tokenizer: Tokenizer) -> list[str]:
    """The distinct characters of `text` the tokenizer encodes as bytes or <unk>, in order of appearance."""
    found: list[str] = []
    for ch in dict.fromkeys(text):
        if ch.isspace() or ch in found:
            continue
        ids = tokenizer.encode([ch])[0]
        if any(i == UNK_ID for i in ids) or any(BYTE_PIECE.match(p) for p in tokenizer.pieces(ids)):
            found.append(ch)
    return found


def reading_notices(text: str, src_lang: str, tokenizer: Tokenizer) -> list[str]:
    """Plain-language notices about `text` for a model reading `src_lang`; [] when there is nothing to say."""
    notices = []
    unknown = unreadable(text, tokenizer)
    if unknown:
        notices.append(f"{len(unknown)} character(s) the model never saw in training ({' '.join(unknown[:SHOWN])}): "
                       f"it reads them as raw bytes, so they may come out wrong or not at all")
    if src_lang == "en":
        han = HAN.findall(text)
        if han:
            notices.append(f"Chinese characters in English text ({' '.join(han[:SHOWN])}): the English→Chinese model "
                           f"reads them poorly; translate them on their own line, or give them in a glossary")
    elif src_lang == "zh":
        words = LATIN_WORD.findall(text)
        if words:
            notices.append(f"Latin letters in Chinese text ({' '.join(words[:SHOWN])}): the Chinese→English model "
                           f"reads them poorly; names are better given in a glossary")
    return notices
