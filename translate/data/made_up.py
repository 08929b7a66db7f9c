"""Made-up English words: words a translation spells that English has not.

The models build English words from subword pieces, and a small model glues pieces into words that do not
exist: "Is itn't dark?", "I like hisers.", "Beappy your birthday!", "School begined at 8:00." A word is made
up where it is in none of these:

- the English dictionary of the package pyspellchecker (`resources/en.json.gz`: about 160,000 words with
  their inflections, contractions and many names, MIT), which spells English as Americans do, with the
  British spellings of the package breame (about 1,700: colour, favourite, centre, realise, travelled;
  Apache-2.0) and the words of everyday life that both lack (`LATER_WORDS`: app, selfie, Wi-Fi, mooncakes,
  cheque, maths); old forms the dictionary lacks stay out ("Pride cometh before a fall": a translation
  today says "comes");
- its source text (a Latin word a Chinese source says: WeChat, iPhone);
- the names the project writes: the names lexicon's and the given names' English (Kaohsiung, Xizhimen);
- a capitalised word that reads as pinyin syllables (Chengqiang, Xihu: a name the model spelled);
- a word in capitals (TV, USD) or their plural (CDs), or a unit's symbol (km, kg);
- a word with a letter outside ASCII that the dictionary has without its accents (naïve) or that is
  capitalised (André, Björk: a name spelled in its own alphabet).

A word is a run of Latin letters, accented ones included (café is one word, not "caf"). A word with an
apostrophe, straight or typographic (doesn't, doesn’t), counts as a word where the dictionary has it (isn't,
Tom's) or its part before the apostrophe is one with 's, 'd, 'll, 're, 've or 'm ("the teacher's"); "itn't"
is made up. A word with hyphens (Wi-Fi, well-known) counts where the dictionary has it whole or has each
part.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import unicodedata
from importlib import resources

from translate.config.paths import given_names_file, names_file

_LETTER = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"  # Latin letters, with Latin-1's and Latin Extended's
WORD = re.compile(rf"[{_LETTER}]+(?:['\u2019-][{_LETTER}]+)*")
# words of everyday life that neither the dictionary nor breame has (checked against both), lower case
LATER_WORDS = frozenset([
    "app", "apps", "tech", "wi-fi", "wifi", "smartphone", "smartphones", "smartwatch", "smartwatches", "selfie",
    "selfies", "screenshot", "screenshots", "emoji", "emojis", "hashtag", "hashtags", "meme", "memes", "gif", "gifs",
    "inbox", "logins", "logout", "usernames", "webpages", "podcasts", "podcaster", "vlog", "vlogs", "vlogger",
    "influencer", "influencers", "livestream", "livestreams", "livestreamed", "livestreaming", "subreddit",
    "timelines", "texted", "texting", "unfollow", "unfollowed", "retweet", "retweeted", "chatbot", "chatbots",
    "ebook", "ebooks", "esports", "ridesharing", "bestie", "besties", "mooncake", "mooncakes", "boba", "cheque",
    "cheques", "maths", "kerb", "kerbs", "dreamt",
])
_SUFFIXES = ("s", "d", "ll", "re", "ve", "m")
_UNITS = frozenset(["km", "kg", "cm", "mm", "ml", "mg", "kmh", "mph", "kw", "kwh", "hz", "ghz", "mb", "gb", "tb"])


@functools.cache
def dictionary() -> frozenset[str]:
    """pyspellchecker's English words, breame's British spellings and `LATER_WORDS`, lower case."""
    from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

    with resources.files("spellchecker").joinpath("resources/en.json.gz").open("rb") as raw, gzip.open(raw) as data:
        words = set(json.load(data))
    return frozenset(words | {w.lower() for w in BRITISH_ENGLISH_SPELLINGS} | LATER_WORDS)


@functools.cache
def _name_words() -> frozenset[str]:
    """The words of the names lexicon's and the given names' English, lower case."""
    from translate.data.lexicon import name_rows

    words: set[str] = set()
    for path in (names_file(), given_names_file()):
        for english, _, _ in name_rows(path.read_text(encoding="utf-8")):
            words.update(part.lower() for w in WORD.findall(english) for part in {w, *w.split("-")})  # Jean-Luc: Luc too
    return frozenset(words)


def _pinyin(word: str) -> bool:
    """Whether a word splits into toneless pinyin syllables (xi'an, xizhimen), at most four a part."""
    from translate.data.pinyin import split_word

    return all(split_word(part, most=4) is not None for part in word.split("'"))


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _known(word: str) -> bool:
    word = word.replace("\u2019", "'")
    lower = word.lower()
    words = dictionary()
    if (lower in words or lower in _UNITS or lower in _name_words() or (word.isupper() and len(word) > 1)
            or (len(word) > 2 and word.endswith("s") and word[:-1].isupper())):  # CDs, UFOs
        return True
    if "-" in word:
        return all(part and _known(part) for part in word.split("-"))
    base, _, suffix = word.rpartition("'")
    if base and suffix.lower() in _SUFFIXES and _known(base):
        return True
    if not word.isascii():
        return _unaccented(lower) in words or word[0].isupper()
    return word[0].isupper() and _pinyin(word)


def made_up_words(translation: str, source: str = "") -> list[str]:
    """The words of an English `translation` that English has not (see the module), left to right; a word
    its `source` says is none."""
    said = {w.lower().replace("\u2019", "'") for w in WORD.findall(source)}
    return [w for w in WORD.findall(translation) if w.lower().replace("\u2019", "'") not in said and not _known(w)]
