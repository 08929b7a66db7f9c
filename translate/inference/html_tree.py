"""The document as a browser reads it: html5lib's tree (an HTML5 parser that reads as browsers do),
what in it is prose to translate, its skeleton (everything a translation must not change), and that
tree written back with markers in place of text replaced.

`inference.markup` reads a document by positions and checks that reading against this one; where
the two disagree it translates from this tree instead."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any
from xml.dom.minidom import Node

import html5lib
from html5lib.serializer import HTMLSerializer

from translate.errors import TranslateError

NOT_PROSE = frozenset({"script", "style", "code", "pre", "kbd", "samp", "textarea", "svg", "math",
                       # raw text to a browser (never escaped when written), or content it does not show
                       "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext", "template"})
# classes whose text stays as written: Google's and Mastodon's (@mentions, #hashtags, and the halves of a
# link's URL that Mastodon, Pleroma and older servers split into spans: the hidden scheme and tail, the
# shown part)
NO_TRANSLATE_CLASSES = frozenset({"notranslate", "mention", "hashtag", "invisible", "ellipsis"})


class MarkupError(TranslateError):
    """A document whose translation could not be written back without changing its markup."""


_DOCUMENT_START = re.compile(r"<(?:!doctype|html|head|body)[\s>/]", re.IGNORECASE)
_SPACE = re.compile(r"\s*")
MARKER = re.compile("\ue000([0-9]+)\ue001")
AROUND_MARKER = re.compile("(?<!\\s)\\s*\ue000([0-9]+)\ue001\\s*")  # from a run of spaces' start only: linear
_SERIALIZER = HTMLSerializer(quote_attr_values="always", omit_optional_tags=False, minimize_boolean_attributes=False,
                             escape_lt_in_attrs=True)  # "</noscript><img ...>" in an attribute stays text


def is_whole_document(document: str) -> bool:
    """Whether `document` starts, after spaces and comments, with a doctype, html, head or body tag. Read
    comment by comment (each ends at its first "-->", as in a browser), in one pass: a pattern with a
    repeated comment group took time exponential in the comments ("<!---->" x 22: 0.7 s)."""
    at = _SPACE.match(document).end()  # type: ignore[union-attr]
    while document.startswith("<!--", at):
        end = document.find("-->", at + 4)
        if end < 0:
            return False
        at = _SPACE.match(document, end + 3).end()  # type: ignore[union-attr]
    return _DOCUMENT_START.match(document, at) is not None


def parse_like_a_browser(document: str) -> Any:
    """html5lib's DOM of `document`: a whole document when it starts as one, else a body fragment."""
    if is_whole_document(document):
        return html5lib.parse(document, treebuilder="dom")
    return html5lib.parseFragment(document, treebuilder="dom")


def walk(tree: Any) -> Iterator[tuple[str, Any, bool]]:
    """Depth first, without recursion: ("start" | "end", element, skipped inside), ("text", node,
    translatable place), ("comment" | "doctype", node, False)."""
    stack: list[tuple[Any, bool, bool]] = [(child, False, False) for child in reversed(tree.childNodes)]
    while stack:
        node, skip, closing = stack.pop()
        if closing:
            yield "end", node, skip
        elif node.nodeType == Node.ELEMENT_NODE:
            inner = skips(node, skip)
            yield "start", node, inner
            stack.append((node, inner, True))
            stack.extend((child, inner, False) for child in reversed(node.childNodes))
        elif node.nodeType == Node.TEXT_NODE:
            yield "text", node, not skip
        elif node.nodeType == Node.COMMENT_NODE:
            yield "comment", node, False
        elif node.nodeType == Node.DOCUMENT_TYPE_NODE:
            yield "doctype", node, False


def skips(element: Any, inherited: bool) -> bool:
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
    for kind, node, flag in walk(tree):
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


def marker(index: int) -> str:
    return f"\ue000{index}\ue001"


_SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9:_.-]*")
_UNSAFE_COMMENT = re.compile(r"^-?>")


def check_round_trip(tree: Any) -> None:
    """MarkupError for a tree that html5lib would write in a form browsers may read otherwise: a tag or
    attribute name beyond letters, digits and `:_.-` (a NUL, a quote or a `<` read into it), or a
    comment starting with `>` or `->` (written back, `<!-->` closes at once)."""
    for kind, node, _ in walk(tree):
        if kind == "start":
            names = [node.tagName, *(node.attributes.item(i).name for i in range(node.attributes.length))]
            bad = next((name for name in names if not _SAFE_NAME.fullmatch(name)), None)
            if bad is not None:
                raise MarkupError(f"this HTML has a tag or attribute named {bad[:40]!r}, which browsers read in "
                                  f"different ways; send it well-formed")
        elif kind == "comment" and _UNSAFE_COMMENT.search(node.data):
            raise MarkupError("this HTML has a comment that browsers read in different ways (one starting "
                              "with `>` or `->`); send it well-formed")


def render_marked(tree: Any, replacements: Sequence[str]) -> str:
    """The marked tree with each marker (and the whitespace around it) replaced by its run's
    replacement, serialised by html5lib (text escaped); the tree itself is left as it was."""
    changed = []
    for kind, node, _ in walk(tree):
        if kind == "text" and "\ue000" in node.data:
            changed.append((node, node.data))
            node.data = AROUND_MARKER.sub(lambda m: replacements[int(m.group(1))], node.data)
    try:
        return str(_SERIALIZER.render(html5lib.getTreeWalker("dom")(tree)))
    finally:
        for node, data in changed:
            node.data = data
