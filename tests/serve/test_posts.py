"""Real-shaped posts and snippets through `POST /translate` with format html: Mastodon's markup (mentions,
hashtags, links with invisible spans, emoji, inline emphasis), English and Chinese, through the released
models. For each: the same
tags with the same attributes (hrefs included), every mention, hashtag, URL and emoji back verbatim, and
no block's text lost; a sentence with inline tags reads as the same sentence without them does."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from tests.unit.test_markup import tags
from translate.inference.passthrough import SPAN
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings

MENTION = '<span class="h-card" translate="no"><a href="https://m.social/@{0}" class="u-url mention">@<span>{0}</span></a></span>'
HASHTAG = '<a href="https://m.social/tags/{0}" class="mention hashtag" rel="tag">#<span>{0}</span></a>'
LINK = ('<a href="https://{0}" rel="nofollow noopener" translate="no" target="_blank"><span class="invisible">https://'
        '</span><span class="ellipsis">{0}</span></a>')

POSTS = [
    f"<p>Hello {MENTION.format('bob')}, where is the station? 😀</p>",
    f"<p>Just arrived in Beijing! {HASHTAG.format('travel')} 🎉</p>",
    f"<p>I love this place 🎉 so much!</p><p>{HASHTAG.format('food')} {HASHTAG.format('tea')}</p>",
    f"<p>Read this: {LINK.format('example.org/a/long/page')}</p>",
    f"<p>我今天很开心😊 {HASHTAG.format('旅行')}</p>",
    f"<p>{MENTION.format('anna')} 谢谢你的建议！</p>",
    "<p>The museum opens at <strong>9 am</strong> every day.</p>",
    "<p>Tea, <em>please</em>. With milk, <b>no sugar</b>.</p>",
    "<p>请给我一杯<strong>茶</strong>。</p>",
    f"<p>New blog post 👉 {LINK.format('blog.example.org/2026/12/tea')} {HASHTAG.format('writing')}</p>",
    "<ul><li>Buy milk</li><li>Call mom 📞</li><li>Water the plants 🌱</li></ul>",
    "<blockquote><p>Where there is a will, there is a way.</p></blockquote><p>— my teacher</p>",
    f"<p>{MENTION.format('carl')} {MENTION.format('dina')} see you tomorrow!</p>",
    "<p>Use <code>pip install translate</code> to get it.</p>",
    "<p>It is raining again 🌧️🌧️ in London.</p>",
    f"<p>北京的冬天很冷。{HASHTAG.format('北京')}</p>",
    "<p>我们明天去<a href=\"https://example.org/park\">公园</a>吧。</p>",
    "<p>Happy new year! 🎆🥂<br>See you in 2027.</p>",
    f"<p>Mail me at tom@example.org or ping {MENTION.format('tom')}.</p>",
    "<h2>Breaking news</h2><p>The train is late today.</p>",
    "<p>👍🏽 Good idea.</p>",
    "<p>家人👨‍👩‍👧都在这里。</p>",
    f"<p>Flags: 🇨🇳 🇫🇷 {HASHTAG.format('worldcup')}</p>",
    "<p><span>Where is</span> <span>the library?</span></p>",
    f"<p>{LINK.format('www.example.org')}</p>",
    "<p>I can't find my keys 🔑... has anyone seen them?</p>",
    "<p>这本书很有意思，推荐给大家📚</p>",
    f"<p>Thanks {MENTION.format('eve')} and {MENTION.format('finn')} for the tea 🍵</p>",
    "<p>Open <a href=\"https://example.org/a?b=1&amp;c=2\">this link</a> before Friday.</p>",
    "<p>Good morning ☀️<br>Good night 🌙</p>",
    f"<p>#notalink and {HASHTAG.format('alink')}</p>",
    "<p><i>I</i> like <u>green</u> tea.</p>",
]
BLOCKS = {"p", "li", "blockquote", "h1", "h2", "h3"}
INLINE_TAG = re.compile(r"</?(?:b|i|u|em|strong|span|a)(?:\s[^>]*)?>")
EMPHASIS = [post for post in POSTS if "mention" not in post and "invisible" not in post and INLINE_TAG.search(post)]


class Blocks(HTMLParser):
    """The text of each block element, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in BLOCKS:
            self.blocks.append("")

    def handle_data(self, data: str) -> None:
        if self.blocks:
            self.blocks[-1] += data


def blocks(document: str) -> list[str]:
    parser = Blocks()
    parser.feed(document)
    parser.close()
    return parser.blocks


def visible(document: str) -> str:
    return re.sub(r"<[^>]+>", "", document).replace("&amp;", "&")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Models.load(None), ServeSettings(burst=1000)), base_url="http://localhost") as client:
        yield client


@pytest.fixture(scope="module")
def replies(client: TestClient) -> list[str]:
    """The posts through the released models (a model that writes nothing would lose text itself)."""
    out = client.post("/translate", json={"q": POSTS[:50], "format": "html"})
    assert out.status_code == 200, out.text
    return list(out.json()["translatedText"])


def test_there_are_thirty_posts_and_snippets() -> None:
    assert len(POSTS) >= 30


@pytest.mark.parametrize("number", range(len(POSTS)))
def test_a_post_keeps_its_tags_spans_and_blocks(replies: list[str], number: int) -> None:
    post, reply = POSTS[number], replies[number]
    assert Counter(tags(reply)) == Counter(tags(post))  # the same tags, attributes and hrefs
    assert [t for t in tags(reply) if t[0] == "start"] == [t for t in tags(post) if t[0] == "start"]  # in order
    for span in SPAN.findall(visible(post)):
        assert span in visible(reply), (span, reply)  # mentions, hashtags, URLs, emoji: verbatim
    for before, after in zip(blocks(post), blocks(reply), strict=True):
        assert after.strip() or not before.strip(), (post, reply)  # no block's text lost


def test_there_are_sentences_split_by_inline_tags() -> None:
    assert len(EMPHASIS) >= 5


def test_a_sentence_split_by_inline_tags_reads_as_the_sentence_without_them(client: TestClient) -> None:
    """The text inside links and emphasis is translated with its sentence, not on its own: the reply's
    visible text is the translation of the post with those tags taken out."""
    out = client.post("/translate", json={"q": [*EMPHASIS, *(INLINE_TAG.sub("", post) for post in EMPHASIS)],
                                          "format": "html"})
    assert out.status_code == 200, out.text
    tagged, bare = out.json()["translatedText"][:len(EMPHASIS)], out.json()["translatedText"][len(EMPHASIS):]
    for post, reply, plain in zip(EMPHASIS, tagged, bare):
        assert " ".join(visible(reply).split()) == " ".join(visible(plain).split()), (post, reply, plain)
        assert Counter(tags(reply)) == Counter(tags(post))


@pytest.mark.parametrize("post,inside", [
    ("<p><i>I</i> like <u>green</u> tea.</p>", "<u>绿</u>"),
    ("<p>我们明天去<a href=\"https://example.org/park\">公园</a>吧。</p>", ">the park</a>"),
])
def test_an_inline_tag_holds_the_words_that_translate_its_content(client: TestClient, post: str, inside: str) -> None:
    out = client.post("/translate", json={"q": post, "format": "html"})
    assert out.status_code == 200, out.text
    assert inside in out.json()["translatedText"], out.json()["translatedText"]
    assert out.json()["translations"][0]["attention"] is None  # computed to place the tags, not sent unasked
