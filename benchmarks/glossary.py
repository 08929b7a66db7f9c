"""Benchmark: glossaries on the sentences that hold a glossary term, in both directions.

For each model, the dev sentences of the data folder whose source holds a term of the glossary are
translated without and with the glossary (beam 5): BLEU, chrF, the share of terms whose counterpart
the translation holds, seconds and sentences/s; printed and written as JSON.

    python scripts/benchmark.py glossary --models en-zh,zh-en --data-dir data/everyday \
        --glossary data/everyday/glossary.tsv --min-beams 5,12,16 --output benchmarks/results/glossary.json
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Any

import datasets
import torch

from translate.config.loading import apply_overrides
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.data.normalize import normalize_source
from translate.evaluation.metrics import score
from translate.inference.build import load_translator
from translate.inference.glossary import Glossary, GlossaryTranslator, term_use
from translate.inference.text_translator import TextTranslator


def measure(translator: TextTranslator, sources: list[str], refs: list[str], glossary: Glossary) -> dict[str, Any]:
    translator.translate(sources[:4])  # warm-up
    began = time.perf_counter()
    hyps = translator.translate(sources)
    seconds = time.perf_counter() - began
    report = score(hyps, refs, translator.tgt_lang)
    used, total = term_use(glossary, sources, hyps, translator.src_lang, translator.tgt_lang)
    return {"bleu": round(report.bleu, 2), "chrf": round(report.chrf, 2), "terms_used": used, "terms": total,
            "term_use_percent": round(100 * used / max(total, 1), 1), "seconds": round(seconds, 2),
            "sentences_per_second": round(len(sources) / max(seconds, 1e-9), 1), "bleu_signature": report.bleu_signature}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="en-zh,zh-en", help="comma-separated checkpoints or released names")
    parser.add_argument("--data-dir", default="data/everyday")
    parser.add_argument("--glossary", type=Path, default=Path("data/everyday/glossary.tsv"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-beams", default="", help="also measure these smallest constrained beams, e.g. 5,12,16")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    datasets.disable_progress_bars()
    torch.set_num_threads(args.threads)
    glossary = Glossary.read(args.glossary)
    figures: dict[str, Any] = {"threads": args.threads, "torch": torch.__version__, "data_dir": args.data_dir,
                               "glossary": str(args.glossary), "glossary_terms": len(glossary), "models": {}}
    for name in args.models.split(","):
        translator = load_translator(name)
        data = apply_overrides(DataConfig(), {"data_dir": args.data_dir, "direction":
                                              f"{translator.src_lang}-{translator.tgt_lang}"})
        sources, refs = load_eval_split(data, "dev")
        held = [i for i, s in enumerate(sources) if glossary.matches(normalize_source(s, translator.src_lang),
                                                                      translator.src_lang)]
        sources, refs = [sources[i] for i in held], [refs[i] for i in held]
        figures["models"][name] = {"sentences": len(sources),
                                   "without": measure(translator, sources, refs, glossary),
                                   "with": measure(GlossaryTranslator(translator, glossary), sources, refs, glossary)}
        default = GlossaryTranslator.MIN_BEAM
        for beam in (int(b) for b in args.min_beams.split(",") if b):
            GlossaryTranslator.MIN_BEAM = beam
            figures["models"][name][f"with_min_beam_{beam}"] = measure(GlossaryTranslator(translator, glossary), sources,
                                                                        refs, glossary)
        GlossaryTranslator.MIN_BEAM = default
        print(name, json.dumps(figures["models"][name], ensure_ascii=False), flush=True)
    if args.output is not None:
        args.output.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"written: {args.output}")
