"""Tune the beam-search length penalty (GNMT alpha) of a checkpoint on dev, never on test.

    python scripts/tune_length_penalty.py runs/zh-en-stage2 --alphas 0.6 1.0 1.4 1.8 2.2

Prints dev BLEU, chrF and the length ratio (hypothesis / reference length) per alpha and writes
JSON next to the run (or --json). Pass the winner to `scripts/release_checkpoint.py
--length-penalty`, which stores it in the released model's decode settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from translate.config.loading import apply_overrides
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.evaluation.evaluate import translate_and_score
from translate.inference.translator import Translator


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", help="run folder (its best/), checkpoint folder or released model name")
    parser.add_argument("--alphas", type=float, nargs="+", default=[0.6, 1.0, 1.4, 1.8, 2.2])
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, help="output JSON (default <checkpoint>/length_penalty.dev.json)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    translator = Translator.from_checkpoint(args.checkpoint)
    sources, refs = load_eval_split(apply_overrides(DataConfig(), {"direction": f"{translator.src_lang}-{translator.tgt_lang}"}),
                                    "dev")
    rows = []
    for alpha in args.alphas:
        decode = apply_overrides(translator.decode, {"beam_size": args.beam, "n_best": 1, "length_penalty": alpha})
        report = translate_and_score(translator, sources, refs, translator.tgt_lang, decode).report.to_dict()
        rows.append({"length_penalty": alpha, "bleu": round(report["bleu"], 2), "chrf": round(report["chrf"], 2),
                     "length_ratio": round(report["length_ratio"], 3)})
        print(f"alpha {alpha:4.2f}: dev BLEU {rows[-1]['bleu']:6.2f}  chrF {rows[-1]['chrf']:6.2f}  "
              f"length ratio {rows[-1]['length_ratio']:.3f}", flush=True)
    best = max(rows, key=lambda r: r["bleu"])
    print(f"best on dev: alpha {best['length_penalty']} ({best['bleu']} BLEU)")
    out = args.json or (Path(args.checkpoint) / "length_penalty.dev.json")
    out.write_text(json.dumps({"checkpoint": str(args.checkpoint), "beam": args.beam, "sentences": len(sources),
                               "rows": rows, "best": best}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
