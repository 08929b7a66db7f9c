"""Benchmark: a time-budgeted CPU training run with the default recipe, then test decoding.

Reports parameters, updates, training target tokens/s, peak memory, test BLEU/chrF (beam 5 and
greedy) and decoding sentences/s; prints the figures and writes them as JSON.

    python scripts/benchmark.py train --minutes 20 --threads 2 --name bench-en-zh
    python scripts/benchmark.py --minutes 20 --direction zh-en --name bench-zh-en
    python scripts/benchmark.py train --decode-only runs/bench-en-zh      # re-measure decoding only
    python scripts/benchmark.py train --minutes 3 --device cuda --name gpu-bench   # on a GPU (bf16)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import resource
from pathlib import Path
from typing import Any

import datasets
import torch

from translate.config.loading import load_config, parse_set
from translate.data.corpus import load_eval_split
from translate.evaluation.evaluate import translate_and_score
from translate.inference.build import load_translator
from translate.training.train import train


def decode_figures(run: Path, split: str, device: str = "cpu") -> dict[str, Any]:
    cfg = load_config(run / "config.yaml")
    translator = load_translator(run, device=device)
    sources, refs = load_eval_split(cfg.data, split)
    figures: dict[str, Any] = {"sentences": len(sources)}
    for label, beam in (("beam5", 5), ("greedy", 1)):
        decode = dataclasses.replace(translator.decode, beam_size=beam, n_best=1)
        translator.translate(sources[:64], decode)  # warm-up
        result = translate_and_score(translator, sources, refs, cfg.data.tgt_lang, decode,
                                     run / f"{split}.{label}.hyp.txt")
        figures[label] = {**result.report.to_dict(), "seconds": round(result.seconds, 2),
                          "sentences_per_second": round(result.sentences_per_second, 1)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--name", default="bench-en-zh")
    parser.add_argument("--direction", default="en-zh", choices=["en-zh", "zh-en"])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--split", default="test", choices=["dev", "test"])
    parser.add_argument("--set", action="append", default=[], help="config overrides, as in the CLI")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where to train (bf16 autocast on CUDA) and decode")
    parser.add_argument("--decode-only", type=Path, default=None, help="skip training; measure this run")
    parser.add_argument("--output", type=Path, default=None, help="JSON path (default runs/<name>/benchmark.json)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    datasets.disable_progress_bars()
    torch.set_num_threads(args.threads)

    figures: dict[str, Any] = {"threads": args.threads, "torch": torch.__version__, "device": args.device}
    if args.device == "cuda":
        figures["gpu"] = torch.cuda.get_device_name(0)
    if args.decode_only is None:
        overrides = {"name": args.name, "data.direction": args.direction, "train.max_minutes": args.minutes,
                     "train.threads": args.threads, "device": args.device, **parse_set(args.set)}
        if args.data_dir:
            overrides["data.data_dir"] = args.data_dir
        cfg = load_config(None, overrides)
        result = train(cfg)
        run = result.run_dir
        state = result.state
        figures["training"] = {
            "parameters": result.parameters, "updates": state.step, "epochs": state.epoch,
            "minutes": round(state.seconds / 60, 2), "target_tokens": state.target_tokens,
            "target_tokens_per_second": round(state.target_tokens / max(state.seconds, 1e-9)),
            "target_tokens_per_step_second": round(state.target_tokens / max(state.step_seconds, 1e-9)),
            "sentence_pairs_per_step_second": round(state.sentence_pairs / max(state.step_seconds, 1e-9), 1),
            "best_dev_bleu": round(result.best_bleu, 2), "stop_reason": result.stop_reason,
            "validations": result.history,
        }
        figures["config"] = cfg.to_dict()
    else:
        run = args.decode_only
    figures["peak_rss_mb_training"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    figures[args.split] = decode_figures(run, args.split, args.device)
    if args.device == "cuda":
        figures["peak_gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 2**20)
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out = args.output or run / "benchmark.json"
    out.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    summary = {k: v for k, v in figures.items() if k not in ("config",)}
    if "training" in summary:
        summary["training"] = {k: v for k, v in summary["training"].items() if k != "validations"}
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
