"""Benchmark: where the names lexicon finds names in Chinese sources, with and without word boundaries.

For each data folder's split, every match of the shipped names lexicon (CC-CEDICT's names) in the
normalised Chinese sources, matched on characters (`whole_words=False`) and on the word boundaries of a
segmentation (`whole_words=True`, the default). A match is a false insertion when the reference lacks
the name's English (case-insensitive, whole words): the lexicon would force a word the translator
should not write. Prints the counts and the matches that changed; writes JSON.

    python scripts/benchmark.py lexicon --sets data/everyday:dev,data/tatoeba-cmn-eng:test --model zh-en \
        --output benchmarks/results/2026-12-05-lexicon-boundaries.json

With --model, the sets are also translated (beam 5, ONNX Runtime) with the lexicon matched on characters,
on words, and on words with the re-decode kept off the model's renderings of the names (BLEU, chrF, the
sentences whose outputs differ).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.data.normalize import normalize_source
from translate.inference.build import load_translator
from translate.inference.glossary import Glossary, contains, names_lexicon


def key(match: dict[str, Any]) -> tuple[int, str]:
    return match["line"], match["zh"]


def matches(glossary: Glossary, sources: list[str], refs: list[str]) -> list[dict[str, Any]]:
    found = []
    for line, (source, ref) in enumerate(zip(sources, refs), start=1):
        sentence = normalize_source(source, "zh")
        for m in glossary.matches(sentence, "zh"):
            found.append({"line": line, "zh": m.term.zh, "en": m.term.en, "source": sentence,
                          "in_reference": contains(ref, m.term.en, "en")})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="data/everyday:dev,data/tatoeba-cmn-eng:test",
                        help="comma-separated FOLDER:SPLIT")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--model", default="", help="also translate with this zh-en model (written to OUTPUT's -translations.json)")
    args = parser.parse_args()
    words = names_lexicon()
    characters = Glossary(words.terms, cased=True, normalized=True, whole_words=False)
    figures: dict[str, Any] = {"lexicon_terms": len(words), "sets": {}}
    for item in args.sets.split(","):
        folder, split = item.rsplit(":", 1)
        sources, refs = load_eval_split(DataConfig(data_dir=folder, direction="zh-en"), split)
        row: dict[str, Any] = {"sentences": len(sources)}
        for name, glossary in (("characters", characters), ("words", words)):
            found = matches(glossary, sources, refs)
            row[name] = {"matches": len(found), "false_insertions": sum(not m["in_reference"] for m in found),
                         "sentences_with_false_insertions": len({m["line"] for m in found if not m["in_reference"]})}
            row[f"{name}_matches"] = found
        word_keys = {key(m) for m in row["words_matches"]}
        char_keys = {key(m) for m in row["characters_matches"]}
        row["dropped"] = [m for m in row["characters_matches"] if key(m) not in word_keys]
        row["added"] = [m for m in row["words_matches"] if key(m) not in char_keys]
        del row["characters_matches"], row["words_matches"]
        figures["sets"][item] = row
        print(f"{item}: {len(sources)} sentences")
        for name in ("characters", "words"):
            r = row[name]
            print(f"  {name:<10} {r['matches']:>4} matches, {r['false_insertions']:>4} not in the reference "
                  f"({r['sentences_with_false_insertions']} sentences)")
        for m in row["dropped"]:
            print(f"  dropped: {m['zh']} = {m['en']} ({'in' if m['in_reference'] else 'not in'} the reference) "
                  f"in {m['source']}")
        for m in row["added"]:
            print(f"  added: {m['zh']} = {m['en']} in {m['source']}")
    if args.output:
        args.output.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.output}")
    if args.model:
        out = args.output.with_name(args.output.stem + "-translations.json") if args.output else None
        translations(args.model, args.sets.split(","), out)


def translations(model: str, sets: list[str], output: Path | None) -> None:
    """BLEU/chrF of `model` with the names lexicon matched on characters, on words, and on words with the
    re-decode kept off the model's own renderings of the names; the sentences whose outputs differ."""
    from translate.evaluation.metrics import score
    from translate.inference.glossary import GlossaryTranslator

    inner = load_translator(model, engine="onnx", threads=0)
    words = names_lexicon()
    characters = Glossary(words.terms, cased=True, normalized=True, whole_words=False)
    variants = {"characters": GlossaryTranslator(inner, characters, avoid_renderings=False),
                "words": GlossaryTranslator(inner, words, avoid_renderings=False),
                "words, renderings avoided": GlossaryTranslator(inner, words)}
    figures: dict[str, Any] = {"model": model, "sets": {}}
    for item in sets:
        folder, split = item.rsplit(":", 1)
        sources, refs = load_eval_split(DataConfig(data_dir=folder, direction="zh-en"), split)
        hyps = {name: translator.translate(sources) for name, translator in variants.items()}
        row: dict[str, Any] = {}
        for name, out in hyps.items():
            report = score(out, refs, "en")
            row[name] = {"bleu": round(report.bleu, 2), "chrf": round(report.chrf, 2)}
            print(f"{item} {name:<26} BLEU {report.bleu:.2f} chrF {report.chrf:.2f}")
        names = list(hyps)
        row["changed"] = [{"source": s, "reference": r, **{n: hyps[n][i] for n in names}}
                          for i, (s, r) in enumerate(zip(sources, refs)) if len({hyps[n][i] for n in names}) > 1]
        print(f"  {len(row['changed'])} sentences differ")
        figures["sets"][item] = row
    if output:
        output.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {output}")
