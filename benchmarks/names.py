"""Benchmark: names kept on the names set (`data/names/`), both directions, for each way of translating
names given (`--variants`); prints names kept by kind, names doubled, Tatoeba BLEU where asked, and writes
JSON with every translation that lost a name.

    python scripts/benchmark.py names --split dev --output benchmarks/results/2026-12-06-names-dev.json
    python scripts/benchmark.py names --split test --variants lexicon-off,lexicon-on,names \
        --output benchmarks/results/2026-12-06-names-test.json

Variants (each on the released model of each direction, its own decoding settings otherwise):
`lexicon-off` (no names lexicon), `lexicon-on` (the lexicon's names forced by a constrained search),
`released` (the model's own settings), `standins` (`decode.names=standins`: each name the lexicon or the
pinyin rules find is read as a name the model knows, and its own form written back).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from translate.config.paths import default_data_dir
from translate.evaluation.names import measure, read_names_set

VARIANTS: dict[str, dict[str, Any]] = {
    "lexicon-off": {"lexicon": False},
    "lexicon-on": {"lexicon": True},
    "released": {},
    "standins": {"lexicon": True, "names": "standins"},
}


def translate_with(direction: str, variant: str, sources: list[str]) -> list[str]:
    import translate
    from translate.inference.build import load_translator
    from translate.inference.wrapping import with_glossaries

    settings = VARIANTS[variant]
    if "names" not in settings:
        return translate.load(direction, **settings).translate(sources)
    from translate.config.loading import apply_overrides

    inner = load_translator(direction, engine="onnx", lines=len(sources))
    inner.decode = apply_overrides(inner.decode, settings)
    return with_glossaries(inner).translate_paragraphs(sources)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--folder", type=Path, default=default_data_dir().parent / "names")
    parser.add_argument("--directions", default="en-zh,zh-en")
    parser.add_argument("--variants", default="lexicon-off,lexicon-on")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here (Markdown)")
    parser.add_argument("--speed", action="store_true",
                        help="instead: time each variant on Tatoeba test and the everyday dev set (best of 3)")
    args = parser.parse_args()
    if args.speed:
        speed(args)
        return
    names_set = read_names_set(args.folder / f"{args.split}.tsv")
    figures: dict[str, Any] = {"set": str(args.folder / f"{args.split}.tsv"), "results": {}}
    for direction in args.directions.split(","):
        src, tgt = direction.split("-")
        for variant in args.variants.split(","):
            began = time.perf_counter()
            translations = translate_with(direction, variant, names_set.sources(src))
            seconds = time.perf_counter() - began
            result = measure(names_set, translations, tgt)
            result["seconds"] = round(seconds, 2)
            result["translations"] = translations
            figures["results"][f"{direction} {variant}"] = result
            kinds = "  ".join(f"{k} {v['kept']}/{v['names']}" for k, v in result["by_kind"].items())
            print(f"{direction} {variant:<12} kept {result['kept']}/{result['names']} ({result['kept_percent']} %)  "
                  f"all kept {result['sentences_all_kept']}/{result['sentences']}  doubled {result['doubled']}  "
                  f"[{kinds}]  {seconds:.1f} s")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(table(figures), encoding="utf-8")


def speed(args: argparse.Namespace) -> None:
    """Sentences per second of each variant, on the sources of Tatoeba test and of the everyday dev set
    (ONNX Runtime, every core, beam 5; the best of three passes after a warm-up)."""
    from translate.config.loading import apply_overrides
    from translate.inference.build import load_translator
    from translate.inference.wrapping import with_glossaries

    sets = {"tatoeba test": default_data_dir() / "test.tsv", "everyday dev": default_data_dir().parent / "everyday" / "dev.tsv"}
    figures: dict[str, Any] = {"variants": {v: VARIANTS[v] for v in args.variants.split(",")}, "speed": {}}
    for direction in args.directions.split(","):
        column = 0 if direction.startswith("en") else 1
        base = load_translator(direction, engine="onnx", lines=10_000)
        released = base.decode
        for name, path in sets.items():
            lines = [line.split("\t")[column] for line in path.read_text(encoding="utf-8").splitlines()]
            for variant in args.variants.split(","):
                base.decode = apply_overrides(released, VARIANTS[variant])
                translator = with_glossaries(base)
                translator.translate(lines[:20])
                times = []
                for _ in range(3):
                    began = time.perf_counter()
                    translator.translate(lines)
                    times.append(time.perf_counter() - began)
                rate = len(lines) / min(times)
                figures["speed"][f"{direction} {name} {variant}"] = {"sentences": len(lines), "sentences_per_second": round(rate, 1)}
                print(f"{direction} {name:<13} {variant:<12} {rate:7.1f} sentences/s")
    if args.output:
        args.output.write_text(json.dumps(figures, indent=1), encoding="utf-8")


KIND_NAMES = {"person-cn": "Chinese people", "person-west": "Western people", "place-cn": "Chinese places",
              "place-abroad": "places abroad"}


def table(figures: dict[str, Any]) -> str:
    """The figures as a Markdown table: per direction and variant, names kept in all and by kind."""
    results = figures["results"]
    kinds = sorted({kind for result in results.values() for kind in result["by_kind"]})
    head = ["direction, variant", "names kept", "sentences with every name", "names doubled",
            *(KIND_NAMES.get(k, k) for k in kinds)]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, r in results.items():
        cells = [label, f"{r['kept']} of {r['names']} ({r['kept_percent']} %)",
                 f"{r['sentences_all_kept']} of {r['sentences']}", str(r["doubled"]),
                 *(f"{r['by_kind'][k]['kept']} of {r['by_kind'][k]['names']}" if k in r["by_kind"] else "—"
                   for k in kinds)]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"
