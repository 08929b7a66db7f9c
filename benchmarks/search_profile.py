"""Where decoding's time goes: torch.profiler over greedy or beam search, split by region.

    python scripts/profiler.py search --beam 5                       # released en-zh model, 800 test sentences
    python scripts/profiler.py search --checkpoint runs/x --beam 1 --json runs/profile-greedy.json

Regions are the search's own named phases (`translate.inference.search.REGIONS`: the model step, the
candidate search, finished hypotheses, beam bookkeeping, reordering the decoding context) and the model's parts (encoder, RNN cell, attention, combine
layer, output layer, log-softmax). The op table adds the share of matrix products in self time:
the time decoding would take if everything else were free, the bound on what fusing the
element-wise work could buy. Sentences are every second one of the split, so that short and long
ones are both present (the split files are roughly sorted by length). Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import torch

from benchmarks.regions import PhaseHooks
from translate.config.loading import apply_overrides
from translate.config.schema import DataConfig, DecodeConfig
from translate.data.corpus import load_eval_split
from translate.inference.build import load_translator
from translate.inference.search import REGIONS, named_regions
from translate.inference.translator import Translator
from translate.model.seq2seq import Seq2Seq

MATRIX_PRODUCTS = ("aten::addmm", "aten::mm", "aten::bmm", "aten::_int_mm", "aten::baddbmm")


@contextmanager
def model_regions(translator: Translator) -> Iterator[list[str]]:
    """Profiler ranges around the model's parts (forward hooks, removed on exit); yields their names."""
    model = cast(Seq2Seq, translator.model)  # one model, not an ensemble
    decoder = model.decoder
    parts = {"encoder": model.encoder, "decoder.attention": decoder.attention, "decoder.combine": decoder.combine,
             "decoder.generator (output layer)": decoder.generator,
             **{f"decoder.rnn{i}": cell for i, cell in enumerate(decoder.cells)}}
    hooks = PhaseHooks(parts)
    try:
        yield list(parts)
    finally:
        hooks.remove()


def profile_search(translator: Translator, sources: list[str], decode: DecodeConfig) -> dict[str, Any]:
    """Time one unprofiled pass, then profile one: regions (ms), top ops by self time, matrix-product share."""
    translator.translate(sources[:64], decode)  # warm-up
    began = time.perf_counter()
    translator.translate(sources, decode)
    plain = time.perf_counter() - began
    with named_regions(torch.profiler.record_function), model_regions(translator) as parts, torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        began = time.perf_counter()
        translator.translate(sources, decode)
        profiled = time.perf_counter() - began
    events = prof.key_averages()
    regions = {*REGIONS, *parts}  # the search's own named regions (translate.inference.search) and the model's parts
    region_ms = {e.key: round(e.cpu_time_total / 1000, 1) for e in events if e.key in regions}
    ops = sorted(((e.key, e.self_cpu_time_total / 1000, e.count) for e in events if e.key.startswith("aten::")),
                 key=lambda op: -op[1])
    products_ms = sum(ms for key, ms, _ in ops if key in MATRIX_PRODUCTS)
    return {"beam": decode.beam_size, "sentences": len(sources),
            "sentences_per_s": round(len(sources) / plain, 1),
            "sentences_per_s_profiled": round(len(sources) / profiled, 1), "profiled_ms": round(profiled * 1000, 1),
            "regions_ms": dict(sorted(region_ms.items(), key=lambda kv: -kv[1])),
            "top_ops_self_ms": [{"op": key, "ms": round(ms, 1), "calls": n} for key, ms, n in ops[:25]],
            "matrix_products_ms": round(products_ms, 1),
            "matrix_products_share": round(products_ms / (profiled * 1000), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", default="en-zh", help="run folder, checkpoint or released model name")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=800)
    parser.add_argument("--split", default="test", choices=["dev", "test"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    translator = load_translator(args.checkpoint)
    data = apply_overrides(DataConfig(), {"direction": f"{translator.src_lang}-{translator.tgt_lang}"})
    sources = load_eval_split(data, args.split)[0][::2][:args.sentences]
    decode = apply_overrides(translator.decode, {"beam_size": args.beam, "n_best": 1})
    figures = {"checkpoint": str(args.checkpoint), "threads": args.threads,
               "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), **profile_search(translator, sources, decode)}
    whole_ms = figures["profiled_ms"]
    print(f"{len(sources)} sentences, beam {args.beam}: {figures['sentences_per_s']} sent/s "
          f"({figures['sentences_per_s_profiled']} profiled, {whole_ms:.0f} ms)")
    for key, ms in figures["regions_ms"].items():
        print(f"  {key:38s} {ms:8.1f} ms  {100 * ms / whole_ms:5.1f} %")
    print("ops by self time:")
    for op in figures["top_ops_self_ms"][:15]:
        print(f"  {op['op']:38s} {op['ms']:8.1f} ms  {op['calls']:6d} calls")
    print(f"matrix products: {figures['matrix_products_ms']:.0f} ms = "
          f"{100 * figures['matrix_products_share']:.0f} % of the profiled time")
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        print(f"written: {args.json}")


if __name__ == "__main__":
    main()
