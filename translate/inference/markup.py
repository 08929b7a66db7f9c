"""HTML in, HTML out: the text a reader sees is translated, and the reply can hold no markup that the
document did not.

A document is read twice. The standard library's HTML parser gives each token's position, so each
stretch of text between two tags is one run whose bytes can be replaced while every other byte
(tags with their attributes as written, comments, entities in untranslated text, the whitespace
around each run) comes back verbatim. html5lib, an HTML5 parser that reads as browsers do, checks
that reading: the document with each run replaced by a marker must parse to the same elements,
attributes, comments and untranslated text as the document itself, with every marker in text that
a browser shows as prose. Where the two parsers disagree (an unterminated `<!--`, `</ script>`
inside a script, a NUL inside a tag name: places where the standard parser reads text that a
browser reads as markup, or the reverse), the document is translated from html5lib's tree instead
and the reply is that tree serialised: its markup is then normalised, never gained.

A run is translated when it holds a letter and sits outside elements whose content is not prose
(`script`, `style`, `code`, `pre`, `kbd`, `samp`, `textarea`, `svg`, `math`; and `xmp`, `iframe`,
`noembed`, `noframes`, `noscript`, `plaintext`, `template`, whose text a browser reads raw or does not
show) and outside what its
author marked as not to be translated: HTML's `translate="no"` (inherited, `translate="yes"` turns it
back on) and the classes `notranslate`, `mention` and `hashtag` (Mastodon marks @mentions and
#hashtags so). A translation is written as escaped text, so it cannot open a tag, a comment or an
entity.

Runs are translated one by one, so a sentence split by inline markup (`I like <b>green</b> tea`)
is translated in pieces: the price of keeping every tag where it was.

What is guaranteed, whatever the translations are (property-tested with generated documents): the
reply parsed as a browser parses it has the same elements with the same attributes, the same
comments and the same content in script, style and every other untranslated place as the document
parsed so; only the text of the runs differs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from xml.dom.minidom import Node

import html5lib
from html5lib.serializer import HTMLSerializer

from translate.errors import TranslateError

NOT_PROSE = frozenset({"script", "style", "code", "pre", "kbd", "samp", "textarea", "svg", "math",
                       # raw text to a browser (never escaped when written), or content it does not show
                       "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext", "template"})
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


class MarkupError(TranslateError):
    """A document whose translation could not be written back without changing its markup."""


@dataclass(frozen=True)
class Markup:
    """A document's runs to translate: `runs` are positions in `document` when `verbatim` (the
    byte-preserving reading), else only texts. `marked` is html5lib's tree of the document with each
    run's text replaced by a marker, `expected` the skeleton that every reply must parse to."""

    document: str
    runs: tuple[Run, ...]
    verbatim: bool = True
    marked: Any = field(default=None, compare=False, repr=False)
    expected: list[tuple[Any, ...]] = field(default_factory=list, compare=False, repr=False)

    @property
    def texts(self) -> list[str]:
        """The texts to translate, in document order."""
        return [run.text for run in self.runs]

    def render(self, translations: Sequence[str]) -> str:
        """The document with each run replaced by its translation (escaped): byte for byte elsewhere
        when `verbatim` and html5lib reads the result with the document's skeleton, else html5lib's
        tree serialised; MarkupError if even that would not parse back to the document's skeleton."""
        if len(translations) != len(self.runs):
            raise ValueError(f"{len(translations)} translations for {len(self.runs)} text runs")
        if self.verbatim:
            out = self._render_positions(translations)
            if self.marked is None or skeleton(parse_like_a_browser(out)) == self.expected:
                return out
        out = _render_tree(self.marked, translations)
        if skeleton(parse_like_a_browser(out)) != self.expected:
            raise MarkupError("this HTML cannot be written back with its translation without changing its markup "
                              "(html5lib reads it differently once serialised); send it well-formed")
        return out

    def _render_positions(self, translations: Sequence[str]) -> str:
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
    """The document's text runs to translate (see the module's docstring for which), read by position
    where html5lib agrees with that reading, else from html5lib's tree; MarkupError for a document
    whose tree html5lib could not write back as it read it."""
    positional = _read_positions(document)
    expected = skeleton(parse_like_a_browser(document))
    marked = _marked_tree(positional, expected)
    if marked is not None:
        return Markup(document, positional.runs, True, marked, expected)
    markup = _read_tree(document, expected)
    _check_round_trip(markup.marked)
    markup.render([run.text for run in markup.runs])  # MarkupError now, before any translation, if it cannot be
    return markup


def _read_positions(document: str) -> Markup:
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


# html5lib's reading -------------------------------------------------------------------------------

_WHOLE_DOCUMENT = re.compile(r"\A\s*(?:<!--.*?-->\s*)*<(?:!doctype|html|head|body)[\s>/]", re.IGNORECASE | re.DOTALL)
_MARKER = re.compile("\ue000([0-9]+)\ue001")
_SERIALIZER = HTMLSerializer(quote_attr_values="always", omit_optional_tags=False, minimize_boolean_attributes=False)


def parse_like_a_browser(document: str) -> Any:
    """html5lib's DOM of `document`: a whole document when it starts as one, else a body fragment."""
    if _WHOLE_DOCUMENT.match(document):
        return html5lib.parse(document, treebuilder="dom")
    return html5lib.parseFragment(document, treebuilder="dom")


def _walk(tree: Any) -> Iterator[tuple[str, Any, bool]]:
    """Depth first, without recursion: ("start" | "end", element, skipped inside), ("text", node,
    translatable place), ("comment" | "doctype", node, False)."""
    stack: list[tuple[Any, bool, bool]] = [(child, False, False) for child in reversed(tree.childNodes)]
    while stack:
        node, skip, closing = stack.pop()
        if closing:
            yield "end", node, skip
        elif node.nodeType == Node.ELEMENT_NODE:
            inner = _skips(node, skip)
            yield "start", node, inner
            stack.append((node, inner, True))
            stack.extend((child, inner, False) for child in reversed(node.childNodes))
        elif node.nodeType == Node.TEXT_NODE:
            yield "text", node, not skip
        elif node.nodeType == Node.COMMENT_NODE:
            yield "comment", node, False
        elif node.nodeType == Node.DOCUMENT_TYPE_NODE:
            yield "doctype", node, False


def _skips(element: Any, inherited: bool) -> bool:
    """Whether text inside `element` is left untranslated (the rules of the module's docstring)."""
    name = element.localName or element.tagName
    mark = (element.getAttribute("translate") or "").strip().lower()
    classes = set((element.getAttribute("class") or "").split())
    skip = inherited if mark not in ("no", "yes") else mark == "no"
    return skip or name in NOT_PROSE or bool(classes & NO_TRANSLATE_CLASSES)


def skeleton(tree: Any) -> list[tuple[Any, ...]]:
    """Everything a translation must not change: elements with their attributes, comments, the
    doctype, and the text of untranslated places (translatable text is left out)."""
    out: list[tuple[Any, ...]] = []
    for kind, node, flag in _walk(tree):
        if kind == "start":
            attributes = node.attributes
            out.append(("start", node.namespaceURI, node.tagName,
                        tuple(sorted((attributes.item(i).name, attributes.item(i).value)
                                     for i in range(attributes.length)))))
        elif kind == "end":
            out.append(("end", node.tagName))
        elif kind == "comment":
            out.append(("comment", node.data))
        elif kind == "doctype":
            out.append(("doctype", node.name, node.publicId, node.systemId))
        elif not flag and out and out[-1][0] == "text":  # html5lib may split one text in two nodes
            out[-1] = ("text", out[-1][1] + node.data)
        elif not flag:
            out.append(("text", node.data))
    return out


def _marker(index: int) -> str:
    return f"\ue000{index}\ue001"


def _marked_tree(markup: Markup, expected: list[tuple[Any, ...]]) -> Any:
    """html5lib's tree of `markup`'s document with each run's place holding a marker, when html5lib
    reads it as the positions do: the same skeleton as the document, every marker once, in order, in
    translatable text, and no translatable text with a letter left without one; else None."""
    tree = parse_like_a_browser(markup._render_positions([_marker(i) for i in range(len(markup.runs))]))
    if skeleton(tree) != expected:
        return None
    found: list[int] = []
    for kind, node, translatable in _walk(tree):
        if kind != "text":
            continue
        markers = [int(m) for m in _MARKER.findall(node.data)]
        if not translatable and markers:
            return None
        if translatable and not markers and any(c.isalpha() for c in node.data):
            return None
        found += markers
    return tree if found == list(range(len(markup.runs))) else None


def _read_tree(document: str, expected: list[tuple[Any, ...]]) -> Markup:
    """The runs as html5lib's text nodes (a run per translatable text node with a letter), each
    node's text then replaced by its marker."""
    tree = parse_like_a_browser(document)
    runs: list[Run] = []
    for kind, node, translatable in _walk(tree):
        if kind == "text" and translatable:
            stripped = node.data.strip()
            if any(c.isalpha() for c in stripped):
                lead = node.data[:len(node.data) - len(node.data.lstrip())]
                trail = node.data[len(lead) + len(stripped):]
                node.data = lead + _marker(len(runs)) + trail
                runs.append(Run(-1, -1, lead, stripped, trail))
    return Markup(document, tuple(runs), False, tree, expected)


_SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9:_.-]*")
_UNSAFE_COMMENT = re.compile(r"^-?>")


def _check_round_trip(tree: Any) -> None:
    """MarkupError for a tree that html5lib would write in a form browsers may read otherwise: a tag or
    attribute name beyond letters, digits and `:_.-` (a NUL, a quote or a `<` read into it), or a
    comment starting with `>` or `->` (written back, `<!-->` closes at once)."""
    for kind, node, _ in _walk(tree):
        if kind == "start":
            names = [node.tagName, *(node.attributes.item(i).name for i in range(node.attributes.length))]
            bad = next((name for name in names if not _SAFE_NAME.fullmatch(name)), None)
            if bad is not None:
                raise MarkupError(f"this HTML has a tag or attribute named {bad[:40]!r}, which browsers read in "
                                  f"different ways; send it well-formed")
        elif kind == "comment" and _UNSAFE_COMMENT.search(node.data):
            raise MarkupError("this HTML has a comment that browsers read in different ways (one starting "
                              "with `>` or `->`); send it well-formed")


def _render_tree(tree: Any, translations: Sequence[str]) -> str:
    """The marked tree with each marker replaced by its translation, serialised by html5lib (text
    escaped); the tree itself is left as it was."""
    changed = []
    for kind, node, _ in _walk(tree):
        if kind == "text" and "\ue000" in node.data:
            changed.append((node, node.data))
            node.data = _MARKER.sub(lambda m: translations[int(m.group(1))], node.data)
    try:
        return str(_SERIALIZER.render(html5lib.getTreeWalker("dom")(tree)))
    finally:
        for node, data in changed:
            node.data = data
