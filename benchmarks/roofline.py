"""How close training and decoding run to this CPU's arithmetic limit (a roofline).

    python scripts/profiler.py roofline --checkpoint checkpoints/en-zh --json benchmarks/results/roofline.json

Counts the floating-point operations of one training update of the default recipe per sentence
pair (forward + backward, `torch.utils.flop_counter`, matrix products only: they are nearly all of
the arithmetic), and of decoding per sentence (greedy and beam 5, on `test.tsv`); measures this
machine's fp32 (and bf16) matrix-product throughput at the model's own shapes and at a large square
shape; times a short training probe and the decoding of the test split; and prints the achieved
GFLOP/s, the share of the matrix-product peak it reaches, and the ceiling in sentence pairs or
sentences per second if every operation ran at that peak. Run it on an otherwise idle machine;
pass --peer-pairs-per-s etc. to print the ceiling as a multiple of a peer's measured speed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch
from torch.utils.flop_counter import FlopCounterMode

from translate.config.loading import apply_overrides, load_config
from translate.data.batching import BatchStream
from translate.data.corpus import load_eval_split, prepare_data
from translate.inference.build import load_translator
from translate.model import build_model
from translate.training.loss import compute_loss


def matmul_gflops(m: int, k: int, n: int, dtype: torch.dtype, seconds: float = 1.0) -> float:
    """Throughput of (m, k) @ (k, n) products, repeated for about `seconds`."""
    a, b = torch.randn(m, k).to(dtype), torch.randn(k, n).to(dtype)
    for _ in range(3):
        a @ b
    count, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        a @ b
        count += 1
    return 2 * m * k * n * count / (time.perf_counter() - began) / 1e9


def training_figures(steps: int) -> dict[str, Any]:
    """FLOPs per sentence pair of forward + backward, and pairs/s of a short training probe."""
    cfg = load_config(None)
    torch.manual_seed(1)
    data = prepare_data(cfg.data, cfg.tokenizer)
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer)).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, 1)
    batches = [stream.batch(indices) for indices in stream.epoch_batches(0)[:steps + 3]]
    counter = FlopCounterMode(display=False)
    with counter:
        for batch in batches[:5]:
            compute_loss(model, batch, 0.1).loss.backward()
    counted_pairs = sum(len(b.src_lens) for b in batches[:5])
    times, pairs = [], 0
    for i, batch in enumerate(batches):
        began = time.perf_counter()
        out = compute_loss(model, batch, 0.1)
        optimizer.zero_grad()
        out.loss.backward()
        optimizer.step()
        if i >= 3:
            times.append(time.perf_counter() - began)
            pairs += len(batch.src_lens)
    return {"flops_per_pair": counter.get_total_flops() / counted_pairs, "pairs_per_s": pairs / sum(times),
            "pairs_per_update": pairs / len(times), "ms_per_update": 1000 * statistics.median(times)}


def decoding_figures(checkpoint: Path, sentences: int) -> dict[str, Any]:
    translator = load_translator(checkpoint)
    sources = load_eval_split(load_config(None).data, "test")[0][:sentences]
    out: dict[str, Any] = {}
    for label, beam in (("greedy", 1), ("beam5", 5)):
        decode = apply_overrides(translator.decode, {"beam_size": beam, "n_best": 1})
        counter = FlopCounterMode(display=False)
        with counter:
            translator.translate(sources[:256], decode)
        translator.translate(sources[:64], decode)  # warm-up
        began = time.perf_counter()
        translator.translate(sources, decode)
        out[label] = {"flops_per_sentence": counter.get_total_flops() / min(256, len(sources)),
                      "sentences_per_s": len(sources) / (time.perf_counter() - began)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=Path("checkpoints/en-zh"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=30, help="training probe updates (after 3 warm-up)")
    parser.add_argument("--sentences", type=int, default=2000, help="test sentences decoded for the speed")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    train = training_figures(args.steps)
    rows = round(train["pairs_per_update"] * 10)  # about the target tokens of a batch
    peaks = {"fp32 large (2048^3)": matmul_gflops(2048, 2048, 2048, torch.float32),
             f"fp32 output layer ({rows}x256x4000)": matmul_gflops(rows, 256, 4000, torch.float32),
             f"fp32 GRU input ({round(train['pairs_per_update'])}x512x768)":
                 matmul_gflops(round(train["pairs_per_update"]), 512, 768, torch.float32),
             "bf16 large (2048^3)": matmul_gflops(2048, 2048, 2048, torch.bfloat16)}
    peak = max(v for k, v in peaks.items() if k.startswith("fp32"))
    decode = decoding_figures(args.checkpoint, args.sentences)
    report: dict[str, Any] = {"threads": args.threads, "matmul_gflops": peaks, "training": train, "decoding": decode}
    print("matrix-product throughput (GFLOP/s): " + ", ".join(f"{k} {v:.0f}" for k, v in peaks.items()))
    lines = [("training", train["flops_per_pair"], train["pairs_per_s"], "pairs/s")]
    lines += [(f"decode {k}", v["flops_per_sentence"], v["sentences_per_s"], "sent/s") for k, v in decode.items()]
    for label, flops, speed, unit in lines:
        achieved = flops * speed / 1e9
        report[f"{label} ceiling {unit}"] = peak * 1e9 / flops
        print(f"{label:16s} {flops / 1e6:7.1f} MFLOP each  {speed:8.1f} {unit}  {achieved:6.1f} GFLOP/s "
              f"= {achieved / peak:5.1%} of the fp32 peak  ceiling {peak * 1e9 / flops:8.1f} {unit}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
