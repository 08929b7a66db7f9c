"""HTML in, HTML out: the text a reader sees is translated and every byte of markup is kept.

The document is read by the standard library's HTML parser (tokens and their positions, never
regular expressions over markup). Each stretch of text between two tags is one run; a run is
translated when it holds a letter and sits outside elements whose content is not prose (`script`,
`style`, `code`, `pre`, `kbd`, `samp`, `textarea`, `svg`, `math`) and outside what its author marked
as not to be translated: HTML's `translate="no"` (inherited, `translate="yes"` turns it back on) and
the classes `notranslate`, `mention` and `hashtag` (Mastodon marks @mentions and #hashtags so).
Everything else (tags with their attributes as written, comments, entities in untranslated text,
the whitespace around each run) comes back verbatim; a translation is written escaped, so the
result is well-formed wherever the input was.

Runs are translated one by one, so a sentence split by inline markup (`I like <b>green</b> tea`)
is translated in pieces: the price of keeping every tag where it was.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

NOT_PROSE = frozenset({"script", "style", "code", "pre", "kbd", "samp", "textarea", "svg", "math"})
NO_TRANSLATE_CLASSES = frozenset({"notranslate", "mention", "hashtag"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})


@dataclass(frozen=True)
class Run:
    """One stretch of text to translate: where it lies in the document and its text without the
    whitespace around it (entities decoded)."""

    start: int
    end: int
    leading: str
    text: str
    trailing: str


@dataclass(frozen=True)
class Markup:
    document: str
    runs: tuple[Run, ...]

    @property
    def texts(self) -> list[str]:
        """The texts to translate, in document order."""
        return [run.text for run in self.runs]

    def render(self, translations: Sequence[str]) -> str:
        """The document with each run replaced by its translation (escaped), all else as it was."""
        if len(translations) != len(self.runs):
            raise ValueError(f"{len(translations)} translations for {len(self.runs)} text runs")
        out, at = [], 0
        for run, translation in zip(self.runs, translations):
            out += [self.document[at:run.start], html.escape(run.leading, quote=False),
                    html.escape(translation, quote=False), html.escape(run.trailing, quote=False)]
            at = run.end
        out.append(self.document[at:])
        return "".join(out)


class _Reader(HTMLParser):
    """Records where each text token starts and whether it is prose to translate; a token ends
    where the next one starts (the parser reports each token's start position)."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=False)
        # where each line starts: the parser counts lines by "\n" alone
        self.lines = [0, *(i + 1 for i, c in enumerate(document) if c == "\n")]
        self.tokens: list[tuple[int, bool]] = []  # (start, is translatable text)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped inside)

    def _position(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def _token(self, text: bool) -> None:
        self.tokens.append((self._position(), text and not self._skipping()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._token(False)
        if tag in VOID:
            return
        values = {name: (value or "") for name, value in attrs}
        mark = values.get("translate", "").strip().lower()
        classes = set(values.get("class", "").split())
        skip = self._skipping() if mark not in ("no", "yes") else mark == "no"
        skip = skip or tag in NOT_PROSE or bool(classes & NO_TRANSLATE_CLASSES)
        self.stack.append((tag, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._token(False)

    def handle_endtag(self, tag: str) -> None:
        self._token(False)
        for depth in range(len(self.stack) - 1, -1, -1):  # close what is open, as browsers do
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                break

    def handle_data(self, data: str) -> None:
        self._token(True)

    def handle_entityref(self, name: str) -> None:
        self._token(True)

    def handle_charref(self, name: str) -> None:
        self._token(True)

    def handle_comment(self, data: str) -> None:
        self._token(False)

    def handle_decl(self, decl: str) -> None:
        self._token(False)

    def handle_pi(self, data: str) -> None:
        self._token(False)

    def unknown_decl(self, data: str) -> None:
        self._token(False)

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """`<![...` that the standard parser does not know (it raises): a bogus comment up to the next
        `>`, as browsers read it."""
        try:
            return int(super().parse_marked_section(i, report))
        except AssertionError:
            return int(self.parse_bogus_comment(i, report))


def read_html(document: str) -> Markup:
    """The document's text runs to translate (see the module's docstring for which)."""
    reader = _Reader(document)
    reader.feed(document)
    reader.close()
    bounds = [*(start for start, _ in reader.tokens), len(document)]
    runs: list[Run] = []
    index = 0
    while index < len(reader.tokens):
        start, text = reader.tokens[index]
        end_index = index
        while end_index < len(reader.tokens) and reader.tokens[end_index][1] == text and text:
            end_index += 1
        if text:
            end = bounds[end_index]
            decoded = html.unescape(document[start:end])
            stripped = decoded.strip()
            if any(c.isalpha() for c in stripped):
                lead = decoded[:len(decoded) - len(decoded.lstrip())]
                runs.append(Run(start, end, lead, stripped, decoded[len(lead) + len(stripped):]))
            index = end_index
        else:
            index += 1
    return Markup(document, tuple(runs))
