"""Download the Tatoeba English-Mandarin pairs and split them like the shared corpus.

    python scripts/download_tatoeba.py --out data/downloads/tatoeba-cmn-eng
    translate train --data-dir data/downloads/tatoeba-cmn-eng

Source: https://www.manythings.org/anki/cmn-eng.zip (Tatoeba export, CC-BY 2.0 France; the third
column carries each pair's attribution). Split rule, as in the shared copy: pairs that share an
English sentence stay together; bucket = sha1(english) mod 1000: < 70 test, < 105 dev, else train.
Needs internet; nothing in the tests calls it.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import urllib.request
import zipfile
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("data/downloads/tatoeba-cmn-eng"))
    parser.add_argument("--url", default=URL)
    args = parser.parse_args()
    request = urllib.request.Request(args.url, headers={"User-Agent": "translate-nmt/0.1"})
    with urllib.request.urlopen(request, timeout=60) as response:
        archive = zipfile.ZipFile(io.BytesIO(response.read()))
    text = archive.read("cmn.txt").decode("utf-8-sig")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cmn.txt").write_text(text, encoding="utf-8")
    for split, rows in split_lines(text.splitlines()).items():
        (args.out / f"{split}.tsv").write_text("".join(rows), encoding="utf-8")
        print(f"{split}: {len(rows)} pairs -> {args.out / f'{split}.tsv'}")


if __name__ == "__main__":
    main()
