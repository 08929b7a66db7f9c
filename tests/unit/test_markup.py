"""HTML in, HTML out: which text is translated and in which blocks, how a block's translation is cut
among its runs, and that everything else comes back byte for byte."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translate.inference.html_tree import MarkupError, parse_like_a_browser, skeleton
from translate.inference.markup import read_html

MASTODON_POST = (
    '<p>Hello <span class="h-card" translate="no"><a href="https://m.social/@bob" class="u-url mention">'
    '@<span>bob</span></a></span>, where is the station? 😀<br>I like tea &amp; milk&nbsp;today.</p>'
    '<p><a href="https://m.social/tags/tea" class="mention hashtag" rel="tag">#<span>tea</span></a> '
    '<a href="https://example.org/a?b=1&amp;c=2" rel="nofollow noopener" translate="no" target="_blank">'
    '<span class="invisible">https://</span><span>example.org/a</span></a></p>')


class Tags(HTMLParser):
    """Every tag with its attributes, in order (what must survive a translation)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[Any, ...]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(("start", tag, tuple(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(("end", tag))


def tags(document: str) -> list[tuple[Any, ...]]:
    parser = Tags()
    parser.feed(document)
    parser.close()
    return parser.tags


def test_a_mastodon_post_offers_its_prose_and_keeps_mentions_hashtags_and_links() -> None:
    markup = read_html(MASTODON_POST)
    # the mention sits inside the first sentence, which is one block; <br> breaks the line
    assert markup.texts == ["Hello, where is the station? 😀", "I like tea & milk\xa0today."]
    assert [run.text for run in markup.runs] == ["Hello", ", where is the station? 😀", "I like tea & milk\xa0today."]
    out = markup.render(["你好，车站在哪里？😀", "我今天喜欢茶 & 牛奶。"], [[2], None])
    assert tags(out) == tags(MASTODON_POST)
    assert out.startswith('<p>你好<span class="h-card" translate="no">')
    assert "</span>，车站在哪里？😀<br>" in out
    assert "@<span>bob</span>" in out and "#<span>tea</span>" in out and "example.org/a?b=1&amp;c=2" in out
    assert "我今天喜欢茶 &amp; 牛奶。</p>" in out  # a translation is escaped


def test_everything_but_the_runs_comes_back_byte_for_byte() -> None:
    document = ("<!DOCTYPE html>\r\n<P CLASS=x>Caf&eacute; &#233;t&#xE9;<!-- note --> <b>bold</B></P>\n"
                "<script>if (a < b) { x = '<p>'; }</script><style>p { color: red }</style><?pi x?>end &amp")
    markup = read_html(document)
    assert markup.texts == ["Café été bold", "end &"]  # a comment and an inline tag do not break a block
    assert markup.render(["A B", "C & D"], [[1, 2], None]) == (
        "<!DOCTYPE html>\r\n<P CLASS=x>A <!-- note --><b>B</B></P>\n"
        "<script>if (a < b) { x = '<p>'; }</script><style>p { color: red }</style><?pi x?>C &amp; D")
    nothing = '<pre>x &lt; y</pre><code translate="yes">f(&quot;a&quot;)</code><p translate="no">Keep &amp; go</p>'
    assert read_html(nothing).texts == [] and read_html(nothing).render([]) == nothing


@pytest.mark.parametrize("document,blocks,runs", [
    ("<p>I like <b>green</b> tea.</p>", ["I like green tea."], ["I like", "green", "tea."]),
    ("<p>我们明天去<a href=x>公园</a>吧。</p>", ["我们明天去公园吧。"], ["我们明天去", "公园", "吧。"]),
    ("<p>Happy new year!<br>See you.</p>", ["Happy new year!", "See you."], ["Happy new year!", "See you."]),
    ("<li>Tea, <em>please</em>.</li><li>Milk</li>", ["Tea, please.", "Milk"], ["Tea,", "please", ".", "Milk"]),
    ("<p><span>Where is</span> <span>the library?</span></p>", ["Where is the library?"],
     ["Where is", "", "the library?"]),  # the space between the spans is a run: the translation's spacing goes there
    ("<p>Go 🎉 <a href=x>fun</a> 🎉 #go</p>", ["Go 🎉 fun"], ["Go 🎉", "fun"]),  # emoji, hashtags at an end stay put
    ("<p>Use <code>pip</code> now</p>", ["Use now"], ["Use", "now"]),  # untranslated inline content is kept between
    ("<td>One</td><td>two</td>", ["One", "two"], ["One", "two"]),
])
def test_text_that_reads_as_one_is_one_block(document: str, blocks: list[str], runs: list[str]) -> None:
    markup = read_html(document)
    assert markup.texts == blocks
    assert [run.text for run in markup.runs] == runs


def test_a_block_translation_is_cut_among_its_runs_with_spaces_outside_the_tags() -> None:
    markup = read_html("<p><i>I</i> like <u>green</u> tea.</p>")
    assert markup.blocks[0].boundaries == (2, 7, 13) and markup.blocks[0].required == (True, False, True, False)
    assert markup.render(["我喜欢绿茶。"], [[1, 3, 4]]) == "<p><i>我</i>喜欢<u>绿</u>茶。</p>"
    english = read_html("<p>我喜欢<b>绿</b>茶。</p>")
    # cut at word starts: the space before "tea" moves out of <b>, the space before "green" stays outside it
    assert english.render(["I like green tea."], [[7, 13]]) == "<p>I like <b>green</b> tea.</p>"
    # without an alignment: cut at the fractions where the runs begin; an unchanged text at its own boundaries
    assert english.render(["我喜欢绿茶。"]) == "<p>我喜欢<b>绿</b>茶。</p>"
    with pytest.raises(ValueError, match="1 cuts for a block of 3 runs"):
        english.render(["x"], [[0]])


@pytest.mark.parametrize("document,expected", [
    ("<code>print('hi')</code> and <pre>more code</pre>", ["and"]),
    ("<kbd>Ctrl</kbd> <samp>out</samp> <textarea>typed</textarea> plain", ["plain"]),
    ('<div translate="no">keep <span>this</span> <span translate="yes">but this</span></div>', ["but this"]),
    ('<span class="notranslate">Brand</span> rocks', ["rocks"]),
    ("<p>one<p>two</div>three", ["one", "two", "three"]),  # unclosed and stray tags
    ("<p>  \n </p><p>42 %</p><p>@</p>", []),  # nothing with a letter
    ("<svg><text>label</text></svg>after", ["after"]),
    ("<![foo[ x ]]> hi <![if !mso]>there<![endif]>", ["hi", "there"]),  # sections read as browsers read them
])
def test_which_runs_are_translated(document: str, expected: list[str]) -> None:
    assert read_html(document).texts == expected


def test_whitespace_around_a_block_is_kept_and_the_count_of_translations_is_checked() -> None:
    markup = read_html("<li>\n   Tea  \n</li>")
    assert markup.render(["茶"]) == "<li>\n   茶  \n</li>"
    assert read_html("<p>\n  Hello <a href=x>world</a>\n</p>").render(["Hi there"], [[3]]) == "<p>\n  Hi <a href=x>there</a>\n</p>"
    with pytest.raises(ValueError, match="1 translations for 2 blocks of text"):
        read_html("<p>a</p><p>b</p>").render(["x"])


PIECES = ["<![", "<!--", "-->", "<!", "&#x", "&amp", ";", "CDATA[", "if", "]]>", "<script>", "</script", "<p>", "</p>",
          "<a href='x'>", "</a>", '<span translate="no">', "</span>", "<br/>", "<", ">", "/", "&", "#", "=", "\"", "'",
          " ", "\n", "\r\n", "tea", "茶", "😀"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_any_markup_is_read_without_error_and_its_runs_are_its_own_text(pieces: list[str]) -> None:
    document = "".join(pieces)
    try:
        markup = read_html(document)
    except MarkupError:  # refused whole: see the tests below
        return
    if markup.verbatim:
        at = 0
        for run in markup.runs:
            assert at <= run.start < run.end <= len(document)
            assert html.unescape(document[run.start:run.end]) == run.leading + run.text + run.trailing
            at = run.end
    out = markup.render(["X"] * len(markup.blocks))
    assert out.count("X") >= len(markup.blocks)


# What a browser reads: generated documents, any translations -----------------------------------

HOSTILE = PIECES + ["<!--<b>", "-- >", "--!>", "<a\0", "</ script>", "<script>", "<style>", "</style>", "<img src=x>",
                    "<title>", "</title>", "<textarea>", "</textarea>", "<table>", "<td>", "<svg>", "</svg>",
                    "<math>", "<![CDATA[", "<?x", "<!DOCTYPE html>", "<html>", "<body>", "<plaintext>", "<noscript>",
                    "<iframe>", "</iframe>", "<xmp>", " onerror=", "\0", "<b ", "\t", "<P>", "</SCRIPT >"]
TRANSLATIONS = st.lists(st.sampled_from(["<", ">", "&", "\"", "'", "-", "!", "/", "a", "茶", " ", "\n", "=", ";", "#",
                                         "b", "script", "--", "</script>", "<!--", "-->", "&amp;"]),
                        max_size=8).map("".join)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE), max_size=30), st.data())
def test_a_reply_holds_only_the_markup_its_document_held_as_a_browser_reads_both(pieces: list[str],
                                                                                 data: st.DataObject) -> None:
    """The reply parsed by html5lib has the same elements, attributes, comments, doctype and
    untranslated text (script, style, code...) as the document parsed so: only prose changes."""
    document = "".join(pieces)
    try:
        markup = read_html(document)
        translations = data.draw(st.lists(TRANSLATIONS, min_size=len(markup.blocks), max_size=len(markup.blocks)))
        cuts = [sorted(data.draw(st.lists(st.integers(0, len(t)), min_size=b.count - 1, max_size=b.count - 1)))
                for t, b in zip(translations, markup.blocks)]  # any cut of each block's translation among its runs
        reply = markup.render(translations, cuts)
    except MarkupError:
        return  # refused as a whole: no reply, so nothing gained
    assert skeleton(parse_like_a_browser(reply)) == skeleton(parse_like_a_browser(document))


def test_refusals_are_rare_among_generated_documents_without_nul() -> None:
    """Of 1,000 documents of PIECES (broken markup of every kind but NUL, which is refused inside a
    tag name by design), at most 2 % are refused."""
    import random

    rng = random.Random(1)
    refused = 0
    for _ in range(1_000):
        try:
            read_html("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))))
        except MarkupError:
            refused += 1
    assert refused <= 20, refused


@pytest.mark.parametrize("document,hidden", [
    ("<p>Good morning</p><!--<b>hidden note</b><img src=x onerror=alert(1)>", "<img"),
    ("<script>var a = 1;</ script>Good morning</script><p>Hello there</p>", "Good morning"),
    ("<p>Hello -- > there</p><!-- a -- > b --><b>Bold words</b>", None),
    ("<a\0 href=x>Hello</a><b>Good day</b>", None),
])
def test_what_the_standard_parser_misreads_is_read_as_a_browser_reads_it(document: str, hidden: str | None) -> None:
    if "\0" in document:  # a NUL inside a tag name: browsers disagree on the name, so it is refused whole
        with pytest.raises(MarkupError, match="tag or attribute named"):
            read_html(document)
        return
    markup = read_html(document)
    reply = markup.render(["停了！"] * len(markup.blocks))
    assert skeleton(parse_like_a_browser(reply)) == skeleton(parse_like_a_browser(document))
    if hidden is not None:
        assert all(hidden not in text for text in markup.texts)  # a comment's or a script's content is no prose


def test_a_document_the_two_parsers_agree_on_keeps_its_bytes() -> None:
    markup = read_html(MASTODON_POST)
    assert markup.verbatim
    assert not read_html("<p>Hi</p><!--<b>x</b><img src=x>").verbatim


def test_a_link_whose_url_mastodon_split_into_spans_comes_back_byte_for_byte() -> None:
    """Older Mastodon, Pleroma and plain HTML render a link as the URL cut into invisible and ellipsis
    spans: those spans are the URL, not prose; only the words around the link are translated."""
    link = ('<a href="https://example.com/page/long" rel="nofollow noopener"><span class="invisible">https://</span>'
            '<span class="ellipsis">example.com/pa</span><span class="invisible">ge/long</span></a>')
    markup = read_html(f"<p>Check out {link} for the details.</p>")
    assert markup.texts == ["Check out for the details."]
    for translation in ("请查看详情。", "X", ""):
        assert link in markup.render([translation])


def test_a_whole_document_is_told_in_one_pass_however_many_comments_open_it() -> None:
    from translate.inference.html_tree import is_whole_document

    assert is_whole_document("<!DOCTYPE html><p>a") and is_whole_document(" <!-- a -->\n<html>")
    assert not is_whole_document("<!-- a --> b --> <html>")  # the comment ends at its first -->, as in a browser
    assert not is_whole_document("<p>a") and not is_whole_document("<!-- open")
    assert is_whole_document("<!---->" * 50_000 + "<body>") and not is_whole_document("<!---->" * 50_000)
