"""Make a large synthetic en-zh corpus from the bundled Tatoeba training split, for the scale benchmark.

    (made by `python scripts/benchmark.py prepare` when its corpus is missing)

Writes <out>/train.tsv (and copies dev.tsv/test.tsv). Every row is a training pair changed so that
it survives deduplication: half are two random pairs joined (English with a space, Chinese without),
half are one pair with a number appended on both sides ("... (417)", "...（417）"). The first copy
of the split is kept unchanged. Deterministic in --seed. Not a corpus to learn from: it only has the
shape (lengths, scripts, vocabulary) of real data, so that reading, cleaning, tokenising and
batching a million pairs can be timed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from translate.config.paths import default_data_dir


def variations(pairs: list[tuple[str, str]], total: int, seed: int) -> Iterator[tuple[str, str]]:
    """`total` rows: the original pairs first, then changed copies."""
    rng = random.Random(seed)
    yield from pairs[:total]
    for _ in range(total - min(total, len(pairs))):
        en, zh = pairs[rng.randrange(len(pairs))]
        if rng.random() < 0.5:
            en2, zh2 = pairs[rng.randrange(len(pairs))]
            yield f"{en} {en2}", f"{zh}{zh2}"
        else:
            n = rng.randrange(1, 100_000)
            yield f"{en} ({n})", f"{zh}（{n}）"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000, help="rows of train.tsv to write")
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--source", type=Path, default=None, help="folder with train/dev/test.tsv (default: the bundled corpus)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.source = args.source or default_data_dir()
    pairs = []
    for line in (args.source / "train.tsv").read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 2:
            pairs.append((fields[0], fields[1]))
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "train.tsv", "w", encoding="utf-8") as out:
        out.writelines(f"{en}\t{zh}\n" for en, zh in variations(pairs, args.pairs, args.seed))
    for split in ("dev.tsv", "test.tsv"):
        shutil.copyfile(args.source / split, args.out / split)
    size = (args.out / "train.tsv").stat().st_size
    print(f"wrote {args.pairs:,} pairs ({size / 2**20:.0f} MiB) to {args.out / 'train.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
