"""Chinese words: which word of a segmentation each character of a sentence belongs to, so a lexicon term
matches only where it does not cut a word in two (上都, a place, is not matched in 早上都, "in the
morning ... all": 早上 | 都 would be cut).

The segmenter is rjieba: the Rust port of jieba (jieba-rs, MIT, maintained) with jieba's dictionary of
about 350,000 words and its HMM for words outside it, as a compiled wheel without downloads or a
model to train; it segments a sentence in microseconds. pkuseg segments news text more accurately,
but it needs its model files and is slower by orders of magnitude; a maximal match over CC-CEDICT
would miss the words it lacks, which the HMM covers (docs/glossaries.md).
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=4096)
def word_of(sentence: str) -> tuple[int, ...]:
    """For each character of `sentence`, the index of its word in rjieba's segmentation."""
    import rjieba

    out: list[int] = []
    for index, word in enumerate(rjieba.cut(sentence, True)):
        out += [index] * len(word)
    return tuple(out)


def cuts_no_word(sentence: str, begin: int, end: int) -> bool:
    """Whether the span [begin, end) of `sentence` cuts no word in two: it lies inside one word (哈尔滨
    in 哈尔滨人, 周三 in 每周三), or it starts where a word starts and ends where a word ends and every word
    it covers is of two characters or more (北京|大学; not 上|都 in 长城上都是人, two words of one
    character each that only spell a name by chance), or its first word is one character that rjieba tags
    as a person's name (琳 of 了|琳|达: 琳达, Linda)."""
    words = word_of(sentence)
    if words[begin] == words[end - 1]:
        return True
    aligned = (begin == 0 or words[begin - 1] != words[begin]) and (end == len(words) or words[end] != words[end - 1])
    covered = words[begin:end]
    long_words = all(covered.count(word) >= 2 for word in set(covered))
    return aligned and (long_words or _tagged(sentence).get((begin, begin + 1), "").startswith(NAME_TAG))


# rjieba's tags of words that say where (place words, directions): 山上, 门口, 前面. Only these: its tags of
# names are not reliable enough to require one (大连 is tagged an adverb, 合肥 a noun), and a time word may
# be the lexicon's name (七月 is July, 星期六 Saturday)
WHERE_TAGS = ("s", "f")
NAME_TAG = "nr"  # rjieba's tag of a person's name, and of the characters of one (nrt: transliterated)


@functools.lru_cache(maxsize=4096)
def tagged_words(sentence: str) -> tuple[tuple[str, str], ...]:
    """rjieba's segmentation of `sentence` (its dictionary and HMM), each word with its part-of-speech tag."""
    import rjieba

    return tuple((word, tag) for word, tag in rjieba.tag(sentence, True))


def a_dictionary_word(word: str) -> bool:
    """Whether `word` is a word of rjieba's dictionary (谢谢, 常常, 对对; not 在在)."""
    import rjieba

    return bool(rjieba.has_word(word))


@functools.lru_cache(maxsize=4096)
def _tagged(sentence: str) -> dict[tuple[int, int], str]:
    spans, at = {}, 0
    for word, tag in tagged_words(sentence):
        spans[(at, at + len(word))] = tag
        at += len(word)
    return spans


def a_common_word(sentence: str, begin: int, end: int) -> bool:
    """Whether the span [begin, end) of `sentence` is one word of rjieba's tagged segmentation that it
    tags as a word saying where (`WHERE_TAGS`): 山上 ("on the mountain", s) in 山上都是雪, though CC-CEDICT
    also has a township of that name."""
    tag = _tagged(sentence).get((begin, end))
    return tag is not None and tag in WHERE_TAGS
