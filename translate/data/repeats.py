"""Stutter: a run of text said twice in a row (他工作工作。, "Please speak Chinese Chinese.").

Tokens are words for English (lowercased) and characters for Chinese (Latin words and numbers whole).
A stutter is a run of one to `LONGEST` tokens followed at once by itself, except where the language
repeats on purpose:

- Chinese: a single character said twice is mostly a word (谢谢, 看看, 妈妈, 天天, 说说); said three
  times in a row (巴巴巴黎) it is a stutter, and twice where it is a function word that Chinese does
  not double (`FUNCTION_TAGS`: 在在深圳, 我的的眼睛, 几天后后) and rjieba cuts into two words of one
  character that its dictionary does not hold as one word (对对, 了了, 刚刚 are words); a pronoun said
  twice is one where it starts a sentence or clause (她她儿子), not after a verb: 问我我是不是 says it as
  an object and then as a subject (none of the bundled sets' 29,155 references says one at a start);
  and so is a character said twice inside a word that rjieba's HMM makes up (湖湖, 票票, 首首: 17 in the
  released en→zh model's 1,306 dev translations, 2 in the 29,155 references, a typo and 怀基基), unless
  it tags it as a person's name (婷婷); and a character said as a word of its own and again as the first of the
  next word (北 | 北京, 饭 | 饭后, 电 | 电车: 6 in the released en→zh model's 1,306 dev translations, 1 in the
  26,206 references of Tatoeba train, 卡梅尔市 | 市长) unless the pair is a word of the dictionary (人人, 好好)
  or the first is a verb or a conjunction (问 | 问题, 和 | 和平: "ask questions", "and peace"); and a numeral from 二 to 十 said twice where no other numeral is
  beside it and no longer word of rjieba holds both (七七月, 吃三三次, 我十十点: none of the 29,155 references
  says one; 三三两两, 五五分, 九九乘法 and 一九九八 are words or numbers). A run of two or more
  characters said twice (工作工作, 二十二十) is one, although Chinese reduplicates a few verbs and
  measure phrases so (休息休息, 一天一天: 2 in about 3,300 reference sentences of the bundled sets).
- English: any run said twice ("busy busy", "a teacher a teacher"); numbers alone are not words
  here ("1,000,000" holds "000 000").

What `repeated_runs` finds in a source marks the source as repeating on purpose ("very very",
非常非常): its translation may repeat too (`stutters`)."""

from __future__ import annotations

import itertools
import re

from translate.data.segment import NAME_TAG, a_dictionary_word, tagged_words

LONGEST = 4  # tokens in the longest run checked
_HAN = "\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # 〇 (a numeral) too
ZH_TOKEN = re.compile(rf"[{_HAN}]|[A-Za-z0-9]+(?:['’.][A-Za-z0-9]+)*")
EN_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
LETTER = re.compile(rf"[A-Za-z{_HAN}]")  # a letter: Latin or Han
HAN_TWICE = re.compile(rf"([{_HAN}])\1")
# rjieba's tags of function words that Chinese does not double: prepositions (在), particles (的, 着),
# conjunctions (和), adverbs (都, 也) and words of place (后); not pronouns (r), verbs, nouns, names
FUNCTION_TAGS = ("p", "u", "c", "d", "f")
_ANY_NUMERAL = "零〇一二两三四五六七八九十百千万亿0-9"
# a numeral from 二 to 十 said twice, no numeral beside it (七七月; not 一九九八, 三三两两)
_NUMERAL_TWICE = re.compile(rf"(?<![{_ANY_NUMERAL}])([二三四五六七八九十])\1(?![{_ANY_NUMERAL}])")


def tokens(text: str, lang: str) -> list[str]:
    """Words (English, lowercased) or characters with Latin words and numbers whole (Chinese)."""
    return [t.lower() for t in (ZH_TOKEN if lang == "zh" else EN_TOKEN).findall(text)]


def repeated_runs(text: str, lang: str) -> list[str]:
    """Each stutter of `text` (`lang` "en" or "zh"), as the doubled (or, for one character, tripled) run."""
    words = tokens(text, lang)
    glue = "" if lang == "zh" else " "
    found = []
    for n in range(1, LONGEST + 1):
        for i in range(len(words) - 2 * n + 1):
            run = words[i:i + n]
            if run != words[i + n:i + 2 * n] or not any(LETTER.search(w) for w in run):
                continue
            if lang == "zh" and n == 1 and len(run[0]) == 1:  # 谢谢 is a word; 巴巴巴 is not
                if i + 2 < len(words) and words[i + 2] == run[0]:
                    found.append(run[0] * 3)
                continue
            found.append(glue.join(words[i:i + 2 * n]))
    if lang == "zh":
        found += [pair for pair in doubled_characters(text) if pair[0] * 3 not in found]
        found += [text[i:i + 2] for i in _doubled_numerals(text) if text[i:i + 2] not in found]
    return found


def _doubled_numerals(text: str) -> list[int]:
    """Where `text` says a numeral twice by mistake (七七月, 吃三三次): the index of the first of each pair,
    unless a word of rjieba's of three characters or more holds both (三三两两, 五五分, 九九乘法)."""
    if not _NUMERAL_TWICE.search(text):
        return []
    spans, at = [], 0
    for word, _ in tagged_words(text):
        spans.append((at, at + len(word)))
        at += len(word)
    return [m.start() for m in _NUMERAL_TWICE.finditer(text)
            if not any(begin <= m.start() and m.end() <= end and end - begin >= 3 for begin, end in spans)]


def _doubled_at(text: str) -> tuple[set[int], set[int]]:
    """Where rjieba's segmentation of `text` says a character twice in a row by mistake: (the indices of
    one-character words said again as the next word or its first character, 北 | 北京, the first of those, and
    of one-character words said right after themselves, the second of each: a function word tagged
    `FUNCTION_TAGS`, or a pronoun that starts a sentence or clause, 她她儿子, not 问我我是不是, an object and
    then a subject; the indices of words that say a character twice inside, 湖湖, 票票: words its HMM
    made up, not a word of its dictionary nor a person's name, 婷婷). Pairs its dictionary holds as a
    word (对对, 看看) are no mistake."""
    if not HAN_TWICE.search(text):
        return set(), set()
    words = tagged_words(text)

    def starts_clause(i: int) -> bool:
        return i == 0 or not LETTER.search(words[i - 1][0])

    pairs = {i + 1 for i, ((first, tag), (second, _)) in enumerate(itertools.pairwise(words))
             if first == second and len(first) == 1 and HAN_TWICE.fullmatch(first * 2)
             and (tag.startswith(FUNCTION_TAGS) or (tag.startswith("r") and starts_clause(i)))
             and not a_dictionary_word(first * 2)}
    # a character said alone and again as the next word's first (北 | 北京): the first is the one said by mistake
    pairs |= {i for i, ((first, tag), (second, _)) in enumerate(itertools.pairwise(words))
              if len(first) == 1 and len(second) >= 2 and second.startswith(first) and HAN_TWICE.fullmatch(first * 2)
              and not tag.startswith(("v", "c", NAME_TAG)) and not a_dictionary_word(first * 2)}
    inside = {i for i, (word, tag) in enumerate(words)
              if len(word) >= 2 and HAN_TWICE.search(word) and not tag.startswith(NAME_TAG)
              and not a_dictionary_word(word)}
    return pairs, inside


def doubled_characters(text: str) -> list[str]:
    """Each character that `text` says twice in a row by mistake (在在, 的的; 她她 at a start; 湖湖), as
    the doubled pair."""
    pairs, inside = _doubled_at(text)
    if not pairs and not inside:
        return []
    words = tagged_words(text)
    found = [(i, words[i][0] * 2) for i in pairs]
    found += [(i, match.group(0)) for i in inside for match in HAN_TWICE.finditer(words[i][0])]
    return [pair for _, pair in sorted(found)]


def said_once(text: str) -> str:
    """`text` (Chinese) with each character said twice in a row by mistake (`doubled_characters`) said
    once: 王晓明在在深圳的银行工作。 -> 王晓明在深圳的银行工作。, 春天的湖湖很美丽。 -> 春天的湖很美丽。 (the
    meaning the doubled word had, which a search for another hypothesis can lose); a numeral said twice,
    once (我父母七七月飞去伦敦。 -> 我父母七月飞去伦敦。)."""
    for i in reversed(_doubled_numerals(text)):
        text = text[:i] + text[i + 1:]
    pairs, inside = _doubled_at(text)
    if not pairs and not inside:
        return text
    return "".join(HAN_TWICE.sub(r"\1", word) if i in inside else word
                   for i, (word, _) in enumerate(tagged_words(text)) if i not in pairs)


def stutters(translation: str, source: str, tgt_lang: str, src_lang: str) -> bool:
    """Whether `translation` holds a stutter that its source does not excuse (a source that repeats
    itself may be translated with a repeat)."""
    return bool(repeated_runs(translation, tgt_lang)) and not repeated_runs(source, src_lang)


def says_twice(text: str, lang: str, n: int = 2) -> bool:
    """Whether `text` holds some n tokens (`tokens`: words, or characters for Chinese) twice, anywhere
    ("in the morning and in the evening"): its translation may say an n-gram twice too."""
    words = tokens(text, lang)
    grams = [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]
    return len(set(grams)) < len(grams)
