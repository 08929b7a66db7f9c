"""Names kept: whether a translation holds the names of its source, in a form that is right.

A names set (`data/names/`) writes each pair's names in a third column, every right form of a name
(`Zhang Wei|Wei Zhang=张伟; Seoul=首尔|汉城`), and their kinds in a fourth (`person-cn; place-abroad`).
A name is **kept** when the translation holds one of its forms in the target language (English: as
whole words, ignoring case and the apostrophe's shape; Chinese: as characters); it is **doubled** when
the translation says it twice where the source says it once, or repeats its first word or character
before it ("Hong Hong Kong", 北北京). A translation **loses a name** (a defect of the release rule,
`release.rule`) when one of its source's names is not kept.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.errors import DataError

LANGS = ("en", "zh")


@dataclass(frozen=True)
class Name:
    """A name's right forms in each language and its kind (person-cn, person-west, place-cn, place-abroad)."""

    en: tuple[str, ...]
    zh: tuple[str, ...]
    kind: str = ""

    def forms(self, lang: str) -> tuple[str, ...]:
        return self.en if lang == "en" else self.zh


@dataclass(frozen=True)
class NamesSet:
    """A names set's pairs: English and Chinese sentences and each pair's names."""

    en: list[str]
    zh: list[str]
    names: list[list[Name]]

    def sources(self, lang: str) -> list[str]:
        return self.en if lang == "en" else self.zh


def parse_names(column: str, kinds: str = "", where: str = "names") -> list[Name]:
    """`English|English2=中文|中文2; ...` (and `kind; kind`) -> the names; errors name `where`."""
    entries = [e.strip() for e in column.split(";") if e.strip()]
    kind_list = [k.strip() for k in kinds.split(";")] if kinds.strip() else [""] * len(entries)
    if len(kind_list) != len(entries):
        raise DataError(f"{where}: {len(entries)} names but {len(kind_list)} kinds")
    names = []
    for entry, kind in zip(entries, kind_list):
        en, sep, zh = entry.partition("=")
        forms_en, forms_zh = tuple(f.strip() for f in en.split("|") if f.strip()), tuple(
            f.strip() for f in zh.split("|") if f.strip())
        if not sep or not forms_en or not forms_zh:
            raise DataError(f"{where}: expected English=中文 (forms separated by |), found {entry!r}")
        names.append(Name(forms_en, forms_zh, kind))
    return names


def read_names_set(path: Path) -> NamesSet:
    """A names set's file: `en<TAB>zh<TAB>names[<TAB>kinds]` lines (UTF-8)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DataError(f"cannot read the names set {path}: {exc.strerror}") from None
    en, zh, names = [], [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) < 3:
            raise DataError(f"{path}:{number}: expected en<TAB>zh<TAB>names, found {len(columns)} columns")
        en.append(columns[0])
        zh.append(columns[1])
        names.append(parse_names(columns[2], columns[3] if len(columns) > 3 else "", f"{path}:{number}"))
    return NamesSet(en, zh, names)


def _plain(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'")


def _count(text: str, form: str, lang: str) -> int:
    if lang == "zh":
        return text.count(form)
    # a whole word: not inside a longer one, nor before an apostrophe that goes on with a word (Xi in Xi'an);
    # a possessive goes with its name (Wang Fang's sister, James' car)
    return len(re.findall(rf"(?<![\w']){re.escape(_plain(form))}(?!\w)(?!'(?:[^\Ws]|s\w))", _plain(text), re.IGNORECASE))


def kept(name: Name, translation: str, lang: str) -> bool:
    """Whether `translation` (in `lang`) holds one of the name's forms."""
    return any(_count(translation, form, lang) for form in name.forms(lang))


def doubled(name: Name, translation: str, lang: str, source: str, src_lang: str) -> bool:
    """Whether `translation` says the name more often than `source` does, or repeats its first word
    (English) or character (Chinese) right before it."""
    said = max(_count(translation, form, lang) for form in name.forms(lang))
    in_source = max(max(_count(source, form, src_lang) for form in name.forms(src_lang)), 1)
    if said > in_source:
        return True
    for form in name.forms(lang):
        head = form.split()[0] + " " if lang == "en" else form[0]
        if (lang == "zh" or " " in form) and _count(translation, head + form, lang):
            return True
    return False


def loses_a_name(names: list[Name], translation: str, lang: str) -> bool:
    return not all(kept(name, translation, lang) for name in names)


def measure(names_set: NamesSet, translations: list[str], tgt_lang: str) -> dict[str, Any]:
    """Names kept (all and by kind), sentences that keep all their names, names doubled, and per sentence
    the names not kept."""
    src_lang = "zh" if tgt_lang == "en" else "en"
    if len(translations) != len(names_set.names):
        raise DataError(f"{len(translations)} translations for {len(names_set.names)} pairs of the names set")
    by_kind: Counter[str] = Counter()
    kept_by_kind: Counter[str] = Counter()
    lost, twice, whole = [], 0, 0
    for number, (names, translation, source) in enumerate(zip(names_set.names, translations,
                                                              names_set.sources(src_lang)), 1):
        missing = [name for name in names if not kept(name, translation, tgt_lang)]
        for name in names:
            by_kind[name.kind] += 1
            kept_by_kind[name.kind] += name not in missing
            twice += kept(name, translation, tgt_lang) and doubled(name, translation, tgt_lang, source, src_lang)
        whole += not missing
        if missing:
            lost.append({"line": number, "source": source, "translation": translation,
                         "missing": [name.forms(tgt_lang)[0] for name in missing]})
    total = sum(by_kind.values())
    return {"names": total, "kept": sum(kept_by_kind.values()),
            "kept_percent": round(100 * sum(kept_by_kind.values()) / max(total, 1), 1),
            "sentences": len(translations), "sentences_all_kept": whole, "doubled": twice,
            "by_kind": {kind: {"names": by_kind[kind], "kept": kept_by_kind[kind]} for kind in sorted(by_kind)},
            "lost": lost}
