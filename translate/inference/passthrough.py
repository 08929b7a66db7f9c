"""What is not language passes through: URLs, e-mail addresses, @mentions, #hashtags, code spans and
emoji are taken out of a text before the model reads it and put back, verbatim, into its translation.

The models never saw such things in training and mistranslate them ("I love this place 🎉 so much!"
came out as a sentence meaning the opposite, the emoji lost), and they do not copy placeholders
either (a number put in a URL's place came back as 七点钟), so the spans are not shown to the model:
- spans at the start or the end of the text (with the spaces around them) go back to the same end:
  "🎉 #travel" after a post, "@anna" before it;
- spans inside the text go back just before the translation's closing punctuation, in their order.

Every span comes back exactly once and byte for byte; a text that is nothing but spans comes back
unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from translate.data.normalize import EMOJI, typography

_URL_BODY = r"[^\s<>\"'，。！？、；：（）【】]*[^\s<>\"'，。！？、；：（）【】.,;:!?)\]]"
_URL = (rf"(?:https?://|www\.){_URL_BODY}"  # with a scheme or www.
        rf"|https?://"  # a scheme alone (Mastodon hides it in a span of its own)
        rf"|(?<![\w@.-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{{2,}}/{_URL_BODY}")  # domain/path: example.org/page
# Every alternative starts only where a run of its first characters starts (the look-behinds): from
# anywhere inside a run it would scan the run again and fail, so a long run ("a-a-a-...") cost its
# square. The patterns are linear in the text (tests/inference/test_linear_patterns.py).
_EMAIL = r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
# @user, or @user@host (Mastodon: ASCII names); a name of other letters (Weibo's @小王) where a space or a mark ends it
_MENTION = (r"(?<![A-Za-z0-9_@.+-])@(?:[A-Za-z0-9_]+(?:@[\w-]+(?:\.[\w-]+)+)?"
            r"|[\w-]+(?=[\s，。！？：；、,.!?:;]|$))")
_HASHTAG = r"#[^#\s]{1,40}#|(?<![A-Za-z0-9_#&])#\w+"  # Weibo's #话题# (a topic between two #), or #tag
_CODE = r"``[^\n]*?``|`[^`\n]+`"  # Markdown's code spans: ``...`` holds single backticks (``git `pull` now``)
SPAN = re.compile(f"{_CODE}|{_URL}|{_EMAIL}|{_MENTION}|{_HASHTAG}|{EMOJI}")
_GAP_BEFORE_PUNCTUATION = re.compile(r"[ \t]+(?=[,.!?;:，。！？；：、])")
_CLOSING = re.compile(r"[\s.!?。！？…\"'”’)）]*$")


@dataclass(frozen=True)
class Protected:
    """A text with its spans taken out: `text` is what the model reads."""

    text: str
    head: str = ""  # the spans (and spaces) that opened the text
    tail: str = ""  # ... that closed it
    inner: tuple[str, ...] = ()  # the spans inside it, in order

    def restore(self, translation: str, spaced: bool = False) -> str:
        """`translation` of `text` with every span back in its place; `spaced`: the target language writes
        spaces between words (English), so a span the source wrote against its words ("@li今天好冷",
        "请看https://example.org") is not glued to the translation ("@li It's cold today.")."""
        if not self.text:
            return self.head + self.tail
        if self.inner:
            cut = _CLOSING.search(translation)
            end = cut.start() if cut else len(translation)
            inner = " " + " ".join(self.inner)
            translation = translation[:end] + inner + translation[end:]
        head, tail = self.head, self.tail
        if spaced and head and translation and not head[-1].isspace() and not translation[0].isspace():
            head += " "
        if spaced and tail and translation and not tail[0].isspace() and not translation[-1].isspace():
            tail = " " + tail
        return head + translation + tail


def protect(text: str) -> Protected:
    """`text` without its URLs, addresses, mentions, hashtags, code spans and emoji (see the module)."""
    spans = list(SPAN.finditer(text))
    if not spans:
        return Protected(text)
    begin, end = 0, len(text)
    head_spans = 0
    for match in spans:  # the spans that open the text, with nothing but spaces between them
        if text[begin:match.start()].strip():
            break
        begin, head_spans = match.end(), head_spans + 1
    rest = spans[head_spans:]
    tail_spans = 0
    for match in reversed(rest):
        if text[match.end():end].strip():
            break
        end, tail_spans = match.start(), tail_spans + 1
    inner = rest[:len(rest) - tail_spans]
    lead = len(text[begin:end]) - len(text[begin:end].lstrip())
    trail = len(text[begin:end]) - len(text[begin:end].rstrip())
    core = text[begin + lead:end - trail]
    pieces, at = [], begin + lead
    for match in inner:
        pieces.append(text[at:match.start()])
        at = match.end()
    pieces.append(text[at:end - trail])
    model_text = _tidy("".join(pieces)) if inner else core
    return Protected(model_text, text[:begin + lead], text[end - trail:], tuple(m.group(0) for m in inner))


def _tidy(text: str) -> str:
    """Where spans were taken out: one space, none before punctuation ("Hello , see ." -> "Hello, see.")."""
    return _GAP_BEFORE_PUNCTUATION.sub("", re.sub(r"[ \t]{2,}", " ", text)).strip()


def read(text: str) -> str:
    """What a model reads of a text: its typography made plain (`data.normalize.typography`), without the
    spans that pass through; the text itself where it is nothing but such spans. Language detection,
    attention, notices and costs are measured on this."""
    return protect(typography(text)).text or text
