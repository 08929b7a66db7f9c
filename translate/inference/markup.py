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
back on) and the classes `notranslate`, `mention`, `hashtag`, `invisible` and `ellipsis` (Mastodon marks
@mentions and #hashtags so, and splits a link's URL into such spans). A translation is written as escaped text, so it cannot open a tag, a comment or an
entity.

Text that reads as one (runs separated only by inline elements: `a`, `b`, `em`, `span`, ...; and by
untranslated inline elements such as a mention or `code`) is one block: its runs are joined and the
block is translated whole, sentence by sentence, so `I like <b>green</b> tea` is one sentence to the
model. The translation is cut into one part per run where the model's attention aligns the runs' text
(`inference.projection`), and each part goes back in its run's place, so every tag stays where the
document has it and holds the words that translate its content. A block break (`p`, `li`, `br`, a
table cell, ...) ends a block. Whitespace between a block's runs comes from the translation; the
whitespace before and after a block is kept. A tag whose words the alignment cannot find still keeps
the whole translation in order around it: nothing of the translation is lost or repeated.

What is guaranteed, whatever the translations are (property-tested with generated documents): the
reply parsed as a browser parses it has the same elements with the same attributes, the same
comments and the same content in script, style and every other untranslated place as the document
parsed so; only the text of the runs differs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from translate.inference.html_tree import (
    MARKER,
    NO_TRANSLATE_CLASSES,
    NOT_PROSE,
    MarkupError,
    check_round_trip,
    marker,
    parse_like_a_browser,
    render_marked,
    skeleton,
    walk,
)
from translate.inference.passthrough import protect
from translate.inference.projection import proportional

# elements that sit inside a line of text: text on both sides of them reads as one (`br` breaks a line)
INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img",
                    "ins", "kbd", "label", "mark", "nobr", "q", "rp", "rt", "ruby", "s", "samp", "small", "span",
                    "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})


@dataclass(frozen=True)
class Run:
    """One stretch of text in a block: where it lies in the document (-1 when read from html5lib's
    tree) and its text without the whitespace around it (entities decoded)."""

    start: int
    end: int
    leading: str
    text: str
    trailing: str


@dataclass(frozen=True)
class Block:
    """Runs that read as one text (`runs[first:first + count]`): `text` is what is translated,
    `boundaries` where each run after the first begins in it, `required` which runs hold a letter."""

    first: int
    count: int
    text: str
    boundaries: tuple[int, ...]
    required: tuple[bool, ...]


@dataclass(frozen=True)
class Markup:
    """A document's text to translate: `runs` (positions in `document` when `verbatim`, the
    byte-preserving reading, else only texts) grouped in `blocks`. `marked` is html5lib's tree of the
    document with each run replaced by a marker, `expected` the skeleton that every reply must parse to."""

    document: str
    runs: tuple[Run, ...]
    blocks: tuple[Block, ...] = ()
    verbatim: bool = True
    marked: Any = field(default=None, compare=False, repr=False)
    expected: list[tuple[Any, ...]] = field(default_factory=list, compare=False, repr=False)

    @property
    def texts(self) -> list[str]:
        """The texts to translate, one per block, in document order."""
        return [block.text for block in self.blocks]

    def render(self, translations: Sequence[str], cuts: Sequence[Sequence[int] | None] | None = None) -> str:
        """The document with each block's translation in place of its runs, cut into one part per run at
        `cuts` (per block, offsets in its translation: `inference.projection.cuts`; None: at the
        fractions where the runs begin in the block's text). Byte for byte elsewhere when `verbatim` and
        html5lib reads the result with the document's skeleton, else html5lib's tree serialised;
        MarkupError if even that would not parse back to the document's skeleton."""
        if len(translations) != len(self.blocks):
            raise ValueError(f"{len(translations)} translations for {len(self.blocks)} blocks of text")
        replacements = self._replacements(translations, cuts or [None] * len(self.blocks))
        if self.verbatim:
            out = self._render_positions(replacements)
            if self.marked is None or skeleton(parse_like_a_browser(out)) == self.expected:
                return out
        out = render_marked(self.marked, replacements)
        if skeleton(parse_like_a_browser(out)) != self.expected:
            raise MarkupError("this HTML cannot be written back with its translation without changing its markup "
                              "(html5lib reads it differently once serialised); send it well-formed")
        return out

    def _replacements(self, translations: Sequence[str], cuts: Sequence[Sequence[int] | None]) -> list[str]:
        """Per run, what replaces it: its part of its block's translation, with the whitespace before
        the block's first run and after its last."""
        out: list[str] = []
        for block, translation, cut in zip(self.blocks, translations, cuts, strict=True):
            offsets = list(cut) if cut is not None else proportional(block.text, block.boundaries, translation)
            if len(offsets) != len(block.boundaries):
                raise ValueError(f"{len(offsets)} cuts for a block of {block.count} runs")
            runs = self.runs[block.first:block.first + block.count]
            parts = _spaced_parts(translation, offsets, [self._closes_after(run) for run in runs])
            parts[0] = runs[0].leading + parts[0]
            parts[-1] += runs[-1].trailing
            out += parts
        return out

    def _closes_after(self, run: Run) -> bool:
        """Whether the markup right after a run starts with an end tag (a space at the end of its part
        then goes after that tag, outside the element)."""
        return run.end >= 0 and self.document.startswith("</", run.end)

    def _render_positions(self, replacements: Sequence[str]) -> str:
        out, at = [], 0
        for run, replacement in zip(self.runs, replacements):
            out += [self.document[at:run.start], html.escape(replacement, quote=False)]
            at = run.end
        out.append(self.document[at:])
        return "".join(out)


def _spaced_parts(translation: str, offsets: Sequence[int], closes_after: Sequence[bool]) -> list[str]:
    """`translation` cut at `offsets`; a part's trailing spaces move to the next part where its run is
    followed by an end tag, and a part's leading spaces move to the part before where its run follows
    a start tag, so an element does not hold the space around its words."""
    bounds = [0, *(min(max(0, o), len(translation)) for o in offsets), len(translation)]
    parts = [translation[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
    for i in range(len(parts) - 1):
        if closes_after[i]:
            kept = parts[i].rstrip(" ")
            parts[i + 1], parts[i] = parts[i][len(kept):] + parts[i + 1], kept
        else:
            kept = parts[i + 1].lstrip(" ")
            parts[i], parts[i + 1] = parts[i] + parts[i + 1][:len(parts[i + 1]) - len(kept)], kept
    return parts


_NO_SPACE_BEFORE = re.compile(r"[,.!?;:，。！？；：、)）\]}»”’]")


def _block(runs: Sequence[Run], opens: Sequence[bool], first: int) -> Block:
    """A block of `runs` (starting at run `first`): their texts joined with one space where the
    document had whitespace between them (none before punctuation). A run with a letter that right
    follows an inline start tag (`opens`: the content of a link, an emphasis) is required to get words."""
    text, boundaries, space = "", [], False
    for index, run in enumerate(runs):
        space = space or bool(run.leading)
        if space and text and run.text and not _NO_SPACE_BEFORE.match(run.text):
            text += " "
        if run.text:
            space = False
        if index:
            boundaries.append(len(text))
        text += run.text
        space = space or bool(run.trailing)
    required = tuple(opened and _has_letter(run.text) for run, opened in zip(runs, opens))
    return Block(first, len(runs), text, tuple(boundaries), required)


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _grouped(items: Sequence[tuple[str, Run | None]]) -> tuple[list[Run], list[Block]]:
    """Items in document order ("text" with its run, "open" for an inline start tag, "inline", "break")
    as blocks: the runs between two breaks, without runs of nothing but spaces, emoji, hashtags or
    URLs at either end (`inference.passthrough`: they stay as they are), kept when one holds a letter."""
    runs: list[Run] = []
    blocks: list[Block] = []
    current: list[tuple[Run, bool]] = []
    opened = False
    for kind, run in [*items, ("break", None)]:
        if kind == "text" and run is not None:
            current.append((run, opened))
        elif kind == "break":
            while current and not protect(current[-1][0].text).text:
                current.pop()
            while current and not protect(current[0][0].text).text:
                current.pop(0)
            if any(_has_letter(r.text) for r, _ in current):
                blocks.append(_block([r for r, _ in current], [o for _, o in current], len(runs)))
                runs += [r for r, _ in current]
            current = []
        opened = kind == "open"
    return runs, blocks


class _Reader(HTMLParser):
    """Records where each token starts and what it is to a block: "text" (prose to translate),
    "inline" (an inline tag, a comment, anything inside an untranslated inline element) or "break";
    a token ends where the next one starts (the parser reports each token's start position)."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=False)
        # where each line starts: the parser counts lines by "\n" alone
        self.lines = [0, *(i + 1 for i, c in enumerate(document) if c == "\n")]
        self.tokens: list[tuple[int, str]] = []
        self.stack: list[tuple[str, bool, bool]] = []  # (tag, skipped inside, inside an untranslated inline element)

    def _position(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def _in_inline_skip(self) -> bool:
        return bool(self.stack) and self.stack[-1][2]

    def _token(self, kind: str) -> None:
        if kind == "text" and self._skipping():
            kind = "inline" if self._in_inline_skip() else "break"
        self.tokens.append((self._position(), kind))

    def _tag(self, tag: str, kind: str = "inline") -> None:
        self._token(kind if tag in INLINE or self._in_inline_skip() else "break")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, "inline" if tag in VOID else "open")
        if tag in VOID:
            return
        values = {name: (value or "") for name, value in attrs}
        mark = values.get("translate", "").strip().lower()
        classes = set(values.get("class", "").split())
        skip = self._skipping() if mark not in ("no", "yes") else mark == "no"
        skip = skip or tag in NOT_PROSE or bool(classes & NO_TRANSLATE_CLASSES)
        inline_skip = skip and (self._in_inline_skip() or (not self._skipping() and tag in INLINE))
        self.stack.append((tag, skip, inline_skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag)

    def handle_endtag(self, tag: str) -> None:
        self._tag(tag)
        for depth in range(len(self.stack) - 1, -1, -1):  # close what is open, as browsers do
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                break

    def handle_data(self, data: str) -> None:
        self._token("text")

    def handle_entityref(self, name: str) -> None:
        self._token("text")

    def handle_charref(self, name: str) -> None:
        self._token("text")

    def handle_comment(self, data: str) -> None:
        self._token("inline")

    def handle_decl(self, decl: str) -> None:
        self._token("break")

    def handle_pi(self, data: str) -> None:
        self._token("break")

    def unknown_decl(self, data: str) -> None:
        self._token("break")

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """`<![...` that the standard parser does not know (it raises): a bogus comment up to the next
        `>`, as browsers read it."""
        try:
            return int(super().parse_marked_section(i, report))
        except AssertionError:
            return int(self.parse_bogus_comment(i, report))


# Elements html5lib 1.1 reads by an older HTML standard than browsers do today. A <select>'s content:
# browsers now keep elements inside it, html5lib drops them or closes the select, so what it takes
# for text to translate can be a tag to a browser; a document holding one is refused on every path.
# A <template> inside it (inert to a browser, ignored by html5lib: its content became live markup
# when written back), <noscript> (raw text to a browser that runs scripts, markup to html5lib) and
# foreign content (<svg>, <math>: html5lib's tree does not always serialise to what a browser reads
# back) matter where a document is written back from html5lib's tree, when its two readings disagree.
_OLDER_READING = re.compile(r"<(select|selectedcontent)(?=[\s/>])", re.IGNORECASE)
_OLDER_TREE = re.compile(r"<(select|template|noscript|selectedcontent|svg|math)(?=[\s/>])", re.IGNORECASE)


def _refuse_older(found: re.Match[str] | None) -> None:
    if found is not None:
        raise MarkupError(f"this HTML's <{found.group(1).lower()}> is read one way by today's browsers and another by "
                          "the HTML parser the translator checks documents with (html5lib, which follows an older HTML "
                          "standard there); it is refused rather than rewritten: send it without it")


def read_html(document: str) -> Markup:
    """The document's blocks of text to translate (see the module's docstring for which), read by
    position where html5lib agrees with that reading, else from html5lib's tree; MarkupError for a
    document whose tree html5lib could not write back as it read it, or that holds the private-use
    characters runs are marked with (a forged marker would name another run)."""
    forged = next((c for c in ("\ue000", "\ue001") if c in document), None)
    if forged is not None:
        raise MarkupError(f"this HTML holds the private-use character U+{ord(forged):04X}, which the translator "
                          "marks runs of text with; remove it")
    _refuse_older(_OLDER_READING.search(document))
    positional = _read_positions(document)
    expected = skeleton(parse_like_a_browser(document))
    marked = _marked_tree(positional, expected)
    if marked is not None:
        return Markup(document, positional.runs, positional.blocks, True, marked, expected)
    _refuse_older(_OLDER_TREE.search(document))
    markup = _read_tree(document, expected)
    check_round_trip(markup.marked)
    markup.render(markup.texts)  # MarkupError now, before any translation, if it cannot be
    return markup


def _read_positions(document: str) -> Markup:
    reader = _Reader(document)
    reader.feed(document)
    reader.close()
    bounds = [*(start for start, _ in reader.tokens), len(document)]
    items: list[tuple[str, Run | None]] = []
    index = 0
    while index < len(reader.tokens):
        start, kind = reader.tokens[index]
        if kind != "text":
            items.append((kind, None))
            index += 1
            continue
        end_index = index
        while end_index < len(reader.tokens) and reader.tokens[end_index][1] == "text":
            end_index += 1
        end = bounds[end_index]
        items.append(("text", _run(start, end, html.unescape(document[start:end]))))
        index = end_index
    runs, blocks = _grouped(items)
    return Markup(document, tuple(runs), tuple(blocks))


def _run(start: int, end: int, decoded: str) -> Run:
    stripped = decoded.strip()
    lead = decoded[:len(decoded) - len(decoded.lstrip())]
    return Run(start, end, lead, stripped, decoded[len(lead) + len(stripped):])


def _marked_tree(markup: Markup, expected: list[tuple[Any, ...]]) -> Any:
    """html5lib's tree of `markup`'s document with each run's place holding a marker, when html5lib
    reads it as the positions do: the same skeleton as the document, every marker once, in order, in
    translatable text, and no translatable text with a letter left without one; else None."""
    marked = [run.leading + marker(i) + run.trailing for i, run in enumerate(markup.runs)]
    tree = parse_like_a_browser(markup._render_positions(marked))
    if skeleton(tree) != expected:
        return None
    found: list[int] = []
    for kind, node, translatable in walk(tree):
        if kind != "text":
            continue
        markers = [int(m) for m in MARKER.findall(node.data)]
        if not translatable and markers:
            return None
        if translatable and not markers and any(c.isalpha() for c in node.data):
            return None
        found += markers
    return tree if found == list(range(len(markup.runs))) else None


def _read_tree(document: str, expected: list[tuple[Any, ...]]) -> Markup:
    """The runs as html5lib's text nodes in translatable places, grouped in blocks as the positional
    reading groups them; each run's node text then holds its marker in place of its text."""
    tree = parse_like_a_browser(document)
    items: list[tuple[str, Run | None]] = []
    nodes: dict[int, Any] = {}
    stack: list[tuple[bool, bool]] = []  # per open element: (skipped inside, inside an untranslated inline element)
    for kind, node, flag in walk(tree):
        inline_skip = bool(stack) and stack[-1][1]
        if kind == "start":
            name = node.localName or node.tagName
            items.append(("open" if name in INLINE or inline_skip else "break", None))
            skipping = bool(stack) and stack[-1][0]
            stack.append((flag, flag and (inline_skip or (not skipping and name in INLINE))))
        elif kind == "end":
            stack.pop()
            name = node.localName or node.tagName
            items.append(("inline" if name in INLINE or (bool(stack) and stack[-1][1]) else "break", None))
        elif kind == "text" and flag:
            run = _run(-1, -1, node.data)
            nodes[id(run)] = node
            items.append(("text", run))
        else:
            items.append(("inline" if kind == "comment" or (kind == "text" and inline_skip) else "break", None))
    runs, blocks = _grouped(items)
    for index, run in enumerate(runs):
        nodes[id(run)].data = run.leading + marker(index) + run.trailing
    return Markup(document, tuple(runs), tuple(blocks), False, tree, expected)


