"""What people type, made to look like the training data: typography that phones and web pages
produce made plain (`typography`: curly quotes and apostrophes, full-width Latin letters and digits,
no-break spaces, dash characters), Traditional Chinese converted to
Simplified (OpenCC's t2s tables), half-width punctuation in Chinese text made full-width (the
training data's Chinese side is 96 % full-width: 。？，！), and paragraphs split into sentences
(the model was trained on single sentences; translating a paragraph whole degrades it); and
numbers copied back from the source where the model changed them."""

from __future__ import annotations

import functools
import re
from typing import Any

from translate.data.cleaning import normalize_whitespace
from translate.data.quantities import NUMBER, numbers, plain

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_FULL = {",": "，", "?": "？", "!": "！", ":": "：", ";": "；", "(": "（", ")": "）"}
# half-width punctuation next to a Han character (or at the end after one) -> full-width
# a run of spaces is read from its start only (the look-behinds): linear in the text
_NEAR_HAN = re.compile(rf"(?<=[{_HAN}])\s*([,?!:;])\s*|(?<!\s)\s*([,?!:;])\s*(?=[{_HAN}])")
_PAREN = re.compile(rf"(?<!\s)\s*\((?=[^()]*[{_HAN}])([^()]*+)\)\s*")
_FINAL_DOT = re.compile(rf"(?<=[{_HAN}])\.(?=\s*$|\s*[“”\"」』])")
_CORNER = str.maketrans({"「": "“", "」": "”", "『": "‘", "』": "’"})
# sentence ends: Chinese 。！？ (and their half-width forms), then closing quotes
_ZH_END = re.compile(r"([。！？!?…]+[”」』\"’）)]*)")  # a run of marks ends one sentence (太好了！！！)
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


# The training data's English side writes ' (7,653 times) and " (312) where phones type ’ (3 times) and
# “ ” (never); its Chinese side writes ASCII digits and letters. Each of these becomes what the data holds.
# Chinese full-width punctuation (，。？！：；（）) and Chinese quotes “” are what the data holds: kept.
_TYPOGRAPHY = str.maketrans({
    "\u2019": "'", "\u2018": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\uff07": "'",  # ’ ‘ ‚ ‛ ′ ＇
    "\uff02": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',  # ＂ „ ‟ ″
    "\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u2009": " ", "\u200a": " ", "\u3000": " ",  # odd spaces
    "\u200b": "", "\u2060": "", "\ufeff": "",  # zero-width spaces
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-", "\uff0d": "-",  # dashes
    **{chr(0xFF10 + i): chr(0x30 + i) for i in range(10)},  # full-width digits
    **{chr(0xFF21 + i): chr(0x41 + i) for i in range(26)},  # full-width capitals
    **{chr(0xFF41 + i): chr(0x61 + i) for i in range(26)},  # full-width small letters
})
_LATIN_QUOTES = re.compile(r"[“”]")
_CLOCK_COLON = re.compile(r"(?<=\d)：(?=\d)")  # １７：３０ -> 17:30
_HAN_NEAR = re.compile(rf"[{_HAN}]")
# marks that the training data never doubles (none of its 26,000 pairs holds !!, ?!, ... or …): a run of
# ! and ? is read as one (? where the run asks), an ellipsis as the end of a sentence or, inside one, a pause
_MARK_RUN = re.compile(r"[!?！？]{2,}")
_ELLIPSIS = re.compile(r"(?<!\s)\s*(?:\.{2,}|…+|。{2,}|(?<!\d)[~～〜]+(?!\d))(?=([\"”’')）」』]*\s*$)?)\s*")


def typography(text: str) -> str:
    """Typography made plain, as the training data writes it: curly apostrophes and single quotes -> ',
    full-width or low double quotes -> ", no-break and other odd spaces -> a space (zero-width ones
    dropped), dashes and minus signs -> -, full-width Latin letters and digits -> ASCII (and a full-width colon between digits); in a
    text without Han characters also “ ” -> " (Chinese text keeps them, as its training side does).
    Idempotent: "I can’t sleep." and "I can't sleep." read alike."""
    text = _CLOCK_COLON.sub(":", text.translate(_TYPOGRAPHY))
    return text if _HAN_NEAR.search(text) else _LATIN_QUOTES.sub('"', text)


def chinese_punctuation(text: str) -> str:
    """Half-width , ? ! : ; ( ) next to Han characters and a final . after one become full-width;
    「」『』 become “”‘’ (as in the training data). Latin-only stretches are left alone."""
    text = _NEAR_HAN.sub(lambda m: _FULL[m.group(1) or m.group(2)], text)
    text = _PAREN.sub(lambda m: f"（{m.group(1)}）", text)
    return _FINAL_DOT.sub("。", text).translate(_CORNER)


def normalize_source(text: str, lang: str) -> str:
    """The one normalisation of user input before tokenising (typography, whitespace; for Chinese also
    Simplified characters and full-width punctuation)."""
    text = single_marks(normalize_whitespace(typography(text)), lang)
    return chinese_punctuation(to_simplified(text)) if lang == "zh" else text


_LEADING_MARK = re.compile(r"^[，、；：,;:]+\s*(?=\S)")


def no_leading_mark(translation: str) -> str:
    """A translation without the comma, enumeration comma, semicolon or colon it starts with (，我们不船加拿大，
    抱歉。 -> 我们不船加拿大，抱歉。): no sentence starts with one, and the model now and then writes one first."""
    return _LEADING_MARK.sub("", translation)


def single_marks(text: str, lang: str) -> str:
    """Marks as the training data writes them, once: "Really?!" and "Wow!!!" are read as "Really?" and
    "Wow!", 太好了！！！ as 太好了！; an ellipsis that ends a sentence as its full stop ("It's already
    December..." read as "It's already December."; the model wrote 二十二月, "twenty-second month", for
    it), one inside a sentence as a comma ("Well... I guess so." as "Well, I guess so."), one that starts
    a sentence not at all; a tilde that softens a sentence (别迟到哦～, "see you~") as an ellipsis is
    read (a range, 10~20, stays)."""
    zh = lang == "zh"
    text = _MARK_RUN.sub(lambda m: ("？" if zh else "?") if set(m.group(0)) & set("?？") else ("！" if zh else "!"), text)
    return _ELLIPSIS.sub(lambda m: ("。" if zh else ".") if m.group(1) is not None else "" if m.start() == 0
                         else ("，" if zh else ", "), text)


# An emoji with its modifiers: flags, pictographs with variation selectors and skin tones, ZWJ sequences.
EMOJI = (r"(?:[\U0001F1E6-\U0001F1FF]{2}"  # flags
         r"|[\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf\u2934\u2935"
         r"\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001F000-\U0001FAFF]"
         r"[\ufe0e\ufe0f\U0001F3FB-\U0001F3FF]*"  # variation selectors, skin tones
         r"(?:\u200d[\u2600-\u27bf\U0001F000-\U0001FAFF][\ufe0e\ufe0f\U0001F3FB-\U0001F3FF]*)*)")  # ZWJ sequences
# Emoji that end a sentence written without its full stop: in Chinese, emoji after Han text and followed
# by a space and more Han text (我女儿今天学会了骑自行车 👩‍👧🚲 我为她感到骄傲！; Chinese puts no
# spaces between words, so the space marks the break, and 我爱吃🍎和🍌 stays whole); in English, emoji
# after a word or a sentence's end and followed by a space and what starts a sentence (I passed 🎉 Now I
# can rest.; Just landed!!! 🛬 The flight was late.).
_ZH_EMOJI_END = re.compile(rf"(?<=[{_HAN}])([ \t]*{EMOJI}(?:[ \t]*{EMOJI})*)[ \t]+(?=[{_HAN}])")
_EN_EMOJI_END = re.compile(rf"(?<=[A-Za-z0-9.!?])([ \t]*{EMOJI}(?:[ \t]*{EMOJI})*)[ \t]+(?=[A-Z\"“‘(])")


def split_text(text: str, lang: str) -> tuple[list[str], list[int]]:
    """A text -> its sentences, line by line (`split_sentences` on each line), and for each sentence but
    the last the line breaks between it and the next (0: the same line; 2: a blank line between), so
    that `join_translations` keeps the text's lines."""
    sentences: list[str] = []
    breaks: list[int] = []
    newlines = 0
    for number, line in enumerate(typography(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")):
        newlines += number > 0
        for part in split_sentences(line, lang):
            if sentences:
                breaks.append(newlines)
            sentences.append(part)
            newlines = 0
    return sentences, breaks


def join_translations(translations: list[str], breaks: list[int], tgt_lang: str) -> str:
    """Translated sentences joined as `split_text` found them: line breaks where the text had them, else
    the target language's joiner (nothing in Chinese, a space in English); empty translations vanish."""
    joiner = "" if tgt_lang == "zh" else " "
    out, pending = "", 0
    for i, translation in enumerate(translations):
        pending += breaks[i - 1] if i else 0
        if not translation:
            continue
        if out:
            out += "\n" * pending if pending else joiner
        out, pending = out + translation, 0
    return out


def split_sentences(text: str, lang: str) -> list[str]:
    """A paragraph -> its sentences (a single sentence comes back as is, its typography made plain). An
    emoji that ends a sentence written without a full stop ends it (`_ZH_EMOJI_END`, `_EN_EMOJI_END`)."""
    text = normalize_whitespace(typography(text))
    text = (_ZH_EMOJI_END if lang == "zh" else _EN_EMOJI_END).sub(lambda m: m.group(1) + "\n", text)
    if "\n" in text:
        return [sentence for chunk in text.split("\n") for sentence in split_sentences(chunk, lang)]
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


def copy_digits(source: str, output: str) -> str:
    """Numbers survive: when the output has as many numbers (`data.quantities`: 17:30 and 1,000 are one
    each) as the source but not the same ones (the model turned 1636 into 1666), each output number
    becomes the most similar unused source number (so reordered dates keep their order), written with
    thousands commas only where the output wrote its own number with them. Other outputs are returned
    unchanged."""
    wanted, got = numbers(source), numbers(output)
    if not wanted or len(wanted) != len(got) or sorted(map(plain, wanted)) == sorted(map(plain, got)):
        return output
    unused = list(wanted)

    def closest(match: re.Match[str]) -> str:
        number = plain(match.group(0))
        best: str = min(unused, key=lambda w: _distance(number, plain(w)))
        unused.remove(best)
        return best if "," in match.group(0) else plain(best)

    return NUMBER.sub(closest, output)


def _distance(a: str, b: str) -> tuple[int, int]:
    """How unlike two numbers are: length difference first, then differing positions."""
    return abs(len(a) - len(b)), sum(x != y for x, y in zip(a, b))
