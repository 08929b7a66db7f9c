"""What people type, made to look like the training data: Traditional Chinese converted to
Simplified (OpenCC's t2s tables), half-width punctuation in Chinese text made full-width (the
training data's Chinese side is 96 % full-width: 。？，！), and paragraphs split into sentences
(the model was trained on single sentences; translating a paragraph whole degrades it); and
numbers copied back from the source where the model changed them."""

from __future__ import annotations

import functools
import re
from typing import Any

from translate.data.cleaning import normalize_whitespace

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FULL = {",": "，", "?": "？", "!": "！", ":": "：", ";": "；", "(": "（", ")": "）"}
# half-width punctuation next to a Han character (or at the end after one) -> full-width
_NEAR_HAN = re.compile(rf"(?<=[{_HAN}])\s*([,?!:;])\s*|\s*([,?!:;])\s*(?=[{_HAN}])")
_PAREN = re.compile(rf"\s*\(([^()]*[{_HAN}][^()]*)\)\s*")
_FINAL_DOT = re.compile(rf"(?<=[{_HAN}])\.(?=\s*$|\s*[“”\"」』])")
_CORNER = str.maketrans({"「": "“", "」": "”", "『": "‘", "』": "’"})
# sentence ends: Chinese 。！？ (and their half-width forms), then closing quotes
_ZH_END = re.compile(r"(?<=[。！？!?…])([”」』\"’）)]*)")
# English: . ! ? then closing quotes, then space and a capital, digit or opening quote
_EN_END = re.compile(r"(?<=[.!?])([\"”’')]*)\s+(?=[A-Z0-9\"“‘(])")
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr", "sr", "vs", "etc", "e.g", "i.e", "no", "u.s"}


@functools.lru_cache(maxsize=1)
def _t2s() -> Any:
    import opencc

    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional -> Simplified characters (OpenCC t2s; Simplified text comes back unchanged)."""
    return str(_t2s().convert(text))


def chinese_punctuation(text: str) -> str:
    """Half-width , ? ! : ; ( ) next to Han characters and a final . after one become full-width;
    「」『』 become “”‘’ (as in the training data). Latin-only stretches are left alone."""
    text = _NEAR_HAN.sub(lambda m: _FULL[m.group(1) or m.group(2)], text)
    text = _PAREN.sub(lambda m: f"（{m.group(1)}）", text)
    return _FINAL_DOT.sub("。", text).translate(_CORNER)


def normalize_source(text: str, lang: str) -> str:
    """The one normalisation of user input before tokenising (whitespace; for Chinese also
    Simplified characters and full-width punctuation)."""
    text = normalize_whitespace(text)
    return chinese_punctuation(to_simplified(text)) if lang == "zh" else text


def split_sentences(text: str, lang: str) -> list[str]:
    """A paragraph -> its sentences (a single sentence comes back as is)."""
    text = normalize_whitespace(text)
    if lang == "zh":
        parts = _ZH_END.sub(lambda m: m.group(1) + "\n", text).split("\n")
    else:
        parts = []
        start = 0
        for m in _EN_END.finditer(text):
            words = text[start:m.start()].split()
            last = words[-1].lower().rstrip(".!?\"”’')") if words else ""
            if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):  # Mr. / J. Smith
                continue
            parts.append(text[start:m.end()])
            start = m.end()
        parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_DIGITS = re.compile(r"\d+")


def _distance(a: str, b: str) -> tuple[int, int]:
    """How unlike two digit strings are: length difference first, then differing positions."""
    return abs(len(a) - len(b)), sum(x != y for x, y in zip(a, b))


def copy_digits(source: str, output: str) -> str:
    """Numbers survive: when the output has as many digit strings as the source but not the same
    ones (the model turned 1636 into 1666), each output number becomes the most similar unused
    source number (so reordered dates keep their order). Other outputs are returned unchanged."""
    wanted, got = _DIGITS.findall(source), _DIGITS.findall(output)
    if not wanted or len(wanted) != len(got) or sorted(wanted) == sorted(got):
        return output
    unused = list(wanted)

    def closest(match: re.Match[str]) -> str:
        best: str = min(unused, key=lambda w: _distance(match.group(0), w))
        unused.remove(best)
        return best

    return _DIGITS.sub(closest, output)
