"""Negation: whether a text says "not" (not, n't, never, no…; 不, 没, 别…). A translation of a source
that negates and says no "not" itself has mostly turned the meaning round ("Tom doesn't really love
Mary." 汤姆真爱玛丽。), so the adequacy measure counts such translations and the search can rank the
beam's translations that keep the negation first (`decode.keep_negation`).

- `says_no(text, lang)`: any negation word: English not, no, never, nothing, nobody, none, neither,
  nor, cannot, without, nowhere and n't; Chinese 不 没 別 别 无 非 未 否 勿 莫 甭 anywhere. Loose on
  Chinese (非常 "very" and 无聊 "boring" count): the adequacy measure's test.
- `negates(text, lang)`: English as `says_no`; Chinese by rjieba's words: a word that holds one of
  those characters, except the common words that hold one without negating (`NOT_NEGATING`: 非常
  "very", 别人 "others", 不错 "good", 对不起 "sorry"), words that start with one of those and hold no other
  (非常感谢 "thanks a lot", 无线网 "Wi-Fi", 特别强调 "stress in particular"; 是非不分 still negates) and a
  question said as A-not-A (你想不想去？ "Do you want to go?").
"""

from __future__ import annotations

import re

from translate.data.segment import tagged_words

_SAYS_NO = {"en": re.compile(r"\b(?:not|no|never|nothing|nobody|none|neither|nor|cannot|without|nowhere)\b|n't\b",
                             re.IGNORECASE),
            "zh": re.compile(r"[不没別别无非未否勿莫甭]")}
# words that hold a negation character and do not negate (their English says no "not")
NOT_NEGATING = frozenset([
    "非常", "非洲", "是非", "莫斯科", "别人", "别的", "特别", "区别", "分别", "告别", "级别", "类别", "性别", "差别", "识别", "离别", "辨别",
    "道别", "派别", "无聊", "无线", "无论", "无数", "无比", "无限", "虚无", "不错", "对不起", "不好意思", "不客气", "不久", "不断",
    "不同", "不过", "不但", "不仅", "未来", "差不多", "不得不", "了不起", "不得了", "不管", "不然", "要不然",
])


def _without_leading_words(word: str) -> str:
    """A word without the words of `NOT_NEGATING` it starts with (非常感谢 -> 感谢, 无线网 -> 网, 是非不分 -> 不分)."""
    while leading := max((w for w in NOT_NEGATING if word.startswith(w)), key=len, default=""):
        word = word[len(leading):]
    return word


def says_no(text: str, lang: str) -> bool:
    """Whether `text` holds a negation word (`lang` "en" or "zh"; loose on Chinese, see the module)."""
    return bool(_SAYS_NO[lang].search(text))


def negates(text: str, lang: str) -> bool:
    """Whether `text` negates: for Chinese a word of rjieba's segmentation that says "not" (see the module)."""
    if lang != "zh" or not says_no(text, "zh"):
        return says_no(text, lang)
    words = [word for word, _ in tagged_words(text)]
    for i, word in enumerate(words):
        if not _SAYS_NO["zh"].search(word) or not _SAYS_NO["zh"].search(_without_leading_words(word)):
            continue
        if i and len(word) > 1 and word[0] in "不没" and words[i - 1].endswith(word[1:]):
            continue  # a question said as A-not-A (想 | 不想)
        if len(word) >= 3 and word[1] in "不没" and word[0] == word[2]:
            continue  # ... or as one word (有没有, 是不是)
        return True
    return False
