"""Cost of one training update per attention preset, for planning a study in updates.

    python scripts/profiler.py steps --mechanisms additive,hard-marginal --steps 30

Trains each preset of `translate compare` for `--steps` updates of the default recipe (the same
first batches of the bundled en-zh split for every preset) after 3 warm-up updates, and prints the
median milliseconds per update, target tokens per second and the ratio to the first preset; JSON
to --json. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from translate.config.loading import load_config
from translate.data.batching import BatchStream
from translate.data.corpus import prepare_data
from translate.model import build_model
from translate.study.presets import PRESETS
from translate.training.loss import compute_loss


def step_cost(mechanism: str, steps: int, threads: int) -> dict[str, float]:
    cfg = load_config(None, PRESETS[mechanism])
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    data = prepare_data(cfg.data, cfg.tokenizer)
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer)).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, 1)
    batches = stream.epoch_batches(0)[:steps + 3]
    times, tokens = [], 0
    for i, indices in enumerate(batches):
        batch = stream.batch(indices)
        began = time.perf_counter()
        out = compute_loss(model, batch, 0.1)
        optimizer.zero_grad()
        out.loss.backward()
        optimizer.step()
        if i >= 3:  # warm-up excluded
            times.append(time.perf_counter() - began)
            tokens += out.tokens
    return {"ms_per_update": round(1000 * statistics.median(times), 1),
            "tgt_tokens_per_s": round(tokens / sum(times)), "updates": len(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mechanisms", default="additive,hard-marginal")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = {}
    for name in args.mechanisms.split(","):
        rows[name] = step_cost(name, args.steps, args.threads)
        first = next(iter(rows.values()))
        print(f"{name:28s} {rows[name]['ms_per_update']:8.1f} ms/update  {rows[name]['tgt_tokens_per_s']:6d} tgt tok/s  "
              f"{rows[name]['ms_per_update'] / first['ms_per_update']:.2f}x", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"threads": args.threads, "steps": args.steps, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
