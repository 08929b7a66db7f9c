"""Negation: whether a text says "not" (not, n't, never, no…; 不, 没, 别…). A translation of a source
that negates and says no "not" itself has mostly turned the meaning round ("Tom doesn't really love
Mary." 汤姆真爱玛丽。), so the adequacy measure counts such translations and the search can rank the
beam's translations that keep the negation first (`decode.keep_negation`).

- `says_no(text, lang)`: any negation word: English not, no, never, nothing, nobody, none, neither,
  nor, cannot, without, nowhere and n't; Chinese 不 没 別 别 无 非 未 否 勿 莫 甭 anywhere. Loose on
  Chinese (非常 "very" and 无聊 "boring" count): a first look before `negates` segments the text.
- `negates(text, lang)`: English as `says_no`, but for "no matter" ("whatever") and a question's tag
  ("It's hot, isn't it?" asks, it does not deny); Chinese, but for the tag 不是吗？, by rjieba's words: a word that holds one of
  those characters, except the common words that hold one without negating (`NOT_NEGATING`: 非常
  "very", 别人 "others", 不错 "good", 对不起 "sorry"), words that start with one of those and hold no other
  (非常感谢 "thanks a lot", 无线网 "Wi-Fi", 特别强调 "stress in particular"; 是非不分 still negates) and a
  question said as A-not-A (你想不想去？ "Do you want to go?").
- `adds_negation(source, translation, src_lang, tgt_lang)`: the translation negates where its source neither
  negates nor says "not" in a word of its own (`SAYS_NOT_IN_A_WORD`: "dislike" 不喜欢, "unable" 不能, "careless"
  不小心, "Stop!" 别…; 单身 "not married", 禁止 "No smoking"), which the other language says with a negation
  word: the meaning turned round ("The internet is very slow today." 我的网真不是很慢。).
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


# English words that say "not" themselves, which Chinese says with 不, 没 or 别: un- words (but under, until,
# uni-, uncle), -less words (careless 不小心, useless 没用, unless), words of refusal, lack, rarity and stopping,
# less and fewer (不到), and dis-, im-, in-, il-, ir- words by name (discuss, important, income and inside negate
# nothing)
_EN_SAYS_NOT = re.compile(
    r"\bun(?!der|til|i|cle)[a-z]{3,}|\b[a-z]{2,}less\b|\b(?:"
    r"dislike[sd]?|disagree[sd]?|disappear(?:s|ed)?|dishonest|disobey(?:s|ed)?|disconnected|disabled|impossible|"
    r"impolite|impatient|imperfect|incorrect|inconvenient|incapable|incomplete|invisible|illegal|irregular|"
    r"irresponsible|hardly|barely|scarcely|seldom|rarely|refus(?:e|es|ed)|den(?:y|ies|ied)|fail(?:s|ed)?|"
    r"lack(?:s|ed|ing)?|missing|absent|instead|rather|stop(?:s|ped)?|quit|avoid(?:s|ed)?|forg[eo]t(?:s|ten)?|"
    r"ignor(?:e|es|ed)|prevent(?:s|ed)?|forbidden|prohibited|banned|innocent|less|fewer)\b",
    re.IGNORECASE)
# Chinese words that English says with "not" (单身 "not married", 禁止 "No smoking", 免费 "for nothing", 坏了
# "doesn't work", 忘 "forgot"/"don't forget", 除非 "unless")
_ZH_SAYS_NOT = re.compile(r"单身|禁止|拒绝|除非|免费|坏|忘|缺|难以|很少|停")
SAYS_NOT_IN_A_WORD = {"en": _EN_SAYS_NOT, "zh": _ZH_SAYS_NOT}
# what English says with "no" or "n't" and does not deny: "no matter", and a question's tag (", isn't it?")
_EN_NOT_DENYING = re.compile(r"\bno matter\b|,\s*\w+n't\s+(?:I|you|he|she|it|we|they|there)\s*\?",
                             re.IGNORECASE)
_ZH_TAG = re.compile(r"[，,]\s*不是[吗么嘛][？?]")  # 那真奇怪，不是么？ "That's weird, isn't it?"


def _without_leading_words(word: str) -> str:
    """A word without the words of `NOT_NEGATING` it starts with (非常感谢 -> 感谢, 无线网 -> 网, 是非不分 -> 不分)."""
    while leading := max((w for w in NOT_NEGATING if word.startswith(w)), key=len, default=""):
        word = word[len(leading):]
    return word


def says_no(text: str, lang: str) -> bool:
    """Whether `text` holds a negation word (`lang` "en" or "zh"; loose on Chinese, see the module)."""
    return bool(_SAYS_NO[lang].search(text))


def negates(text: str, lang: str) -> bool:
    """Whether `text` negates: for English a negation word but "no matter" and a question's tag, for Chinese a
    word of rjieba's segmentation that says "not" but the tag 不是吗？ (see the module)."""
    if lang == "en":
        return says_no(_EN_NOT_DENYING.sub(" ", text), "en")
    text = _ZH_TAG.sub("？", text)
    if not says_no(text, "zh"):
        return False
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


def affirms(text: str, lang: str) -> bool:
    """Whether `text` says no "not" at all: it neither negates nor says "not" in a word of its own
    (`SAYS_NOT_IN_A_WORD`: "dislike", "careless", 单身)."""
    return not negates(text, lang) and not SAYS_NOT_IN_A_WORD[lang].search(text)


def adds_negation(source: str, translation: str, src_lang: str, tgt_lang: str) -> bool:
    """Whether `translation` negates where `source` says no "not" at all (`affirms`): a negation the source
    does not say."""
    return affirms(source, src_lang) and negates(translation, tgt_lang)
