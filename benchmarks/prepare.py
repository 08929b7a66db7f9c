"""Scale benchmark of data preparation: a synthetic corpus of N pairs through `translate prepare`.

    python scripts/benchmark.py prepare --pairs 1000000            # makes runs/synth-1000000/ if missing
    python scripts/bench_prepare.py --pairs 5000000 --skip-first-step

Prints a table and writes JSON (default benchmarks/results/<date>-prepare-<N>.json): wall time, pairs/s and
peak RSS of a first `translate prepare` with an empty cache (its phases from the report), of a
second one that reuses the cache, the cache's size on disk, and the first training step's latency
(a fresh process with the cache warm: prepared data, batcher, model, one update). Each measurement
is its own process (peak RSS from wait4). Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import REPO
from benchmarks.synthetic import main as synthetic_main


def run_measured(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Wall seconds, peak RSS (MiB) and stdout of one child process."""
    began = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - began
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} failed with exit code {child.returncode}")
    return {"wall_s": round(wall, 1), "peak_rss_mib": round(usage.ru_maxrss / 1024), "stdout": out}


def phases(report: str) -> dict[str, float]:
    """{'read and clean': 12.3, ...} from the report line 'prepared in ... (read and clean 12.3 s, ...)'."""
    match = re.search(r"prepared in [\d.]+ s \((.*)\)", report)
    return {name.strip(): float(sec) for name, sec in re.findall(r"([a-z ]+?) ([\d.]+) s", match.group(1))} if match else {}


def first_step(data_dir: str, cache: str) -> None:
    """In a fresh process: time to the first update with the cache warm (printed as JSON)."""
    began = time.perf_counter()
    import torch

    from translate.config.loading import apply_overrides
    from translate.config.schema import RunConfig
    from translate.data.batching import BatchStream
    from translate.data.corpus import prepare_data
    from translate.model import build_model
    from translate.training.loss import compute_loss

    imported = time.perf_counter()
    cfg = apply_overrides(RunConfig(), {"data.data_dir": data_dir, "data.cache_dir": cache})
    data = prepare_data(cfg.data, cfg.tokenizer)
    prepared = time.perf_counter()
    stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, cfg.train.seed)
    batches = stream.epoch_batches(0)
    batched = time.perf_counter()
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    out = compute_loss(model, stream.batch(batches[0]), cfg.train.label_smoothing)
    out.loss.backward()
    optimizer.step()
    done = time.perf_counter()
    print(json.dumps({"imports_s": round(imported - began, 2), "prepare_cached_s": round(prepared - imported, 2),
                      "batcher_s": round(batched - prepared, 2), "model_and_first_update_s": round(done - batched, 2),
                      "total_s": round(done - began, 2), "batches_per_epoch": len(batches)}))


def write_synthetic(pairs: int, out: Path) -> None:
    synthetic_main(["--pairs", str(pairs), "--out", str(out)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--data-dir", type=Path, help="corpus folder (default runs/synth-<pairs>, made if missing)")
    parser.add_argument("--work", type=Path, default=REPO / "runs" / "bench-prepare", help="scratch folder (its cache is emptied)")
    parser.add_argument("--skip-first-step", action="store_true")
    parser.add_argument("--json", type=Path, help="output JSON (default benchmarks/results/<date>-prepare-<pairs>.json)")
    parser.add_argument("--first-step", nargs=2, metavar=("DATA_DIR", "CACHE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_step:
        first_step(*args.first_step)
        return 0
    data_dir = args.data_dir or REPO / "runs" / f"synth-{args.pairs}"
    if not (data_dir / "train.tsv").is_file():
        write_synthetic(args.pairs, data_dir)
    cache = args.work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    env = {**os.environ, "TRANSLATE_CACHE": str(cache)}
    prepare = [sys.executable, "-m", "translate", "prepare", "--data-dir", str(data_dir)]
    results: dict[str, Any] = {"pairs": args.pairs, "data_dir": str(data_dir), "cpus": os.cpu_count()}
    for name in ("first", "second"):
        measured = run_measured(prepare, env)
        report = measured.pop("stdout")
        results[f"prepare_{name}"] = {**measured, "pairs_per_s": round(args.pairs / measured["wall_s"]),
                                      "phases_s": phases(report)}
        print(f"prepare ({name}, cache {'empty' if name == 'first' else 'warm'}): {measured['wall_s']} s, "
              f"{args.pairs / measured['wall_s']:,.0f} pairs/s, peak RSS {measured['peak_rss_mib']} MiB")
        print("  " + report.strip().replace("\n", "\n  "))
    results["cache_mib"] = round(sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) / 2**20)
    print(f"cache on disk: {results['cache_mib']} MiB")
    if not args.skip_first_step:
        measured = run_measured([sys.executable, __file__, "--first-step", str(data_dir), str(cache)], env)
        results["first_step"] = {**json.loads(measured.pop("stdout")), **measured}
        print(f"first update (fresh process, cache warm): {results['first_step']}")
    out = args.json or REPO / "benchmarks" / "results" / f"{time.strftime('%Y-%m-%d')}-prepare-{args.pairs}.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
