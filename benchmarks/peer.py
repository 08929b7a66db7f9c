"""Speed benchmark: training sentence pairs/s, decoding sentences/s, latency, memory, a profile by
phase, and (with --peer-dir) OpenNMT-py 3.5.1 run right after on the same machine, with the ratios.

    python scripts/benchmark.py peer --minutes 5 --threads 2                  # ours: table + JSON
    python scripts/benchmark.py peer --minutes 5 --peer-dir ../shared/anchors/opennmt   # and the peer
    python scripts/benchmark.py peer --decode-only runs/bench-speed           # decoding and latency of a run
    python scripts/profiler.py train [--mechanisms all]                        # torch.profiler split by phase

Training is measured in steady state from the progress records (the first interval, start-up,
data preparation and validation excluded; start-up is reported separately). Decoding is measured
in generation time (model loaded) and in wall time of `translate file` (start-up and load included).
Run it when the machine is otherwise idle: two timed things at once measure neither.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import datasets
import torch

from benchmarks import REPO
from benchmarks.regions import PhaseHooks
from translate.config.loading import apply_overrides, load_config, parse_set
from translate.data.batching import BatchStream
from translate.data.corpus import load_eval_split, prepare_data
from translate.evaluation.evaluate import translate_and_score
from translate.inference.build import load_translator
from translate.inference.translator import Translator
from translate.model import build_model
from translate.study.presets import PRESETS
from translate.training.loss import compute_loss
from translate.training.train import train


def rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def steady_state(run: Path) -> dict[str, float]:
    """Sentence pairs/s and target tokens/s over the progress intervals after the first."""
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    train_records = [r for r in records if r["kind"] == "train"][1:]
    seconds = sum(r["interval_s"] for r in train_records)
    return {"pairs_per_s": round(sum(r["pairs_per_s"] * r["interval_s"] for r in train_records) / seconds, 1),
            "tgt_tokens_per_s": round(sum(r["tgt_tok_per_s"] * r["interval_s"] for r in train_records) / seconds),
            "measured_seconds": round(seconds, 1)}


def train_figures(args: argparse.Namespace) -> tuple[Path, dict[str, Any]]:
    overrides = {"name": args.name, "train.max_minutes": args.minutes, "train.threads": args.threads,
                 "train.validate_every": 10**9, "train.average_last": 0, "train.patience": 0,
                 **parse_set(args.set)}
    cfg = load_config(None, overrides)
    began = time.monotonic()
    result = train(cfg)
    wall = time.monotonic() - began
    state = result.state
    return result.run_dir, {"updates": state.step, "parameters": result.parameters, **steady_state(result.run_dir),
                            "startup_and_final_validation_s": round(wall - state.step_seconds, 1),
                            "peak_rss_mb": rss_mb()}


def timed_cli(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB, from GNU time: a forked child's RUSAGE_CHILDREN counts the parent's pages)."""
    began = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "translate", *args],
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - began, int(done.stderr.strip().splitlines()[-1]) / 1024


def decode_figures(run: Path, tmp: Path) -> dict[str, Any]:
    cfg = load_config(run / "config.yaml")
    translator = load_translator(run)
    sources, refs = load_eval_split(cfg.data, "test")
    (tmp / "test.src").write_text("".join(s + "\n" for s in sources), encoding="utf-8")
    out: dict[str, Any] = {"sentences": len(sources)}
    for label, beam in (("beam5", 5), ("greedy", 1)):
        decode = apply_overrides(translator.decode, {"beam_size": beam, "n_best": 1})
        translator.translate(sources[:64], decode)  # warm-up
        full = translate_and_score(translator, sources, refs, cfg.data.tgt_lang, decode)
        one = apply_overrides(decode, {"batch_size": 1})
        single = translate_and_score(translator, sources[:300], refs[:300], cfg.data.tgt_lang, one)
        wall, rss = timed_cli(["file", str(tmp / "test.src"), "-o", str(tmp / f"{label}.hyp"), "--checkpoint",
                             str(run), "--beam", str(beam)])
        out[label] = {"bleu": round(full.report.bleu, 2), "chrf": round(full.report.chrf, 2),
                      "sentences_per_s": round(full.sentences_per_second, 1),
                      "batch1_sentences_per_s (first 300)": round(single.sentences_per_second, 1),
                      "wall_sentences_per_s_incl_load": round(len(sources) / wall, 1),
                      "peak_rss_mb (translate file)": round(rss, 1)}
    out.update(latency_figures(translator, load_eval_split(cfg.data, "dev")[0], run))
    return out


def latency_figures(translator: Translator, dev_sources: list[str], run: Path) -> dict[str, Any]:
    short = [s for s in dev_sources if len(s.split()) <= 8][:100]
    decode = apply_overrides(translator.decode, {"beam_size": 5, "n_best": 1, "batch_size": 1})
    times = []
    for sentence in short:
        began = time.perf_counter()
        translator.translate([sentence], decode)
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    text = ["text", "I would like a cup of tea.", "--checkpoint", str(run)]
    cli = {engine: statistics.median(timed_cli([*text, "--engine", engine])[0] for _ in range(3)) for engine in ("auto", "torch")}
    return {"latency_ms_p50": round(statistics.median(times), 1), "latency_ms_p95": round(times[int(0.95 * len(times))], 1),
            "latency_sentences": len(short), "translate_text_wall_s_median": round(cli["auto"], 2),
            "translate_text_wall_s_median_torch_engine": round(cli["torch"], 2)}


def profile_figures(mechanism: str, steps: int, threads: int) -> dict[str, float]:
    cfg = load_config(None, {**PRESETS[mechanism], "train.threads": threads})
    torch.set_num_threads(threads)
    data = prepare_data(cfg.data, cfg.tokenizer)
    model = build_model(cfg.model, len(data.src_tokenizer), len(data.tgt_tokenizer)).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    stream = BatchStream(data.train.ids, cfg.data.batch_tokens, cfg.data.bucket_batches, 1)
    batches = stream.epoch_batches(0)
    decoder = model.decoder
    PhaseHooks({"encoder": model.encoder, "decoder.attention": decoder.attention, "decoder.combine": decoder.combine,
                **{f"decoder.rnn{i}": c for i, c in enumerate(decoder.cells)}})
    phases = ["data", "forward (encoder + decoder + output layer + loss)", "backward", "optimizer"]
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for indices in batches[:steps]:
            with torch.profiler.record_function(phases[0]):
                batch = stream.batch(indices)
            with torch.profiler.record_function(phases[1]):
                out = compute_loss(model, batch, 0.1)
            with torch.profiler.record_function(phases[2]):
                optimizer.zero_grad()
                out.loss.backward()
            with torch.profiler.record_function(phases[3]):
                optimizer.step()
    totals = {e.key: e.cpu_time_total for e in prof.key_averages() if e.key in phases or e.key.startswith(
        ("encoder", "decoder."))}
    whole = sum(totals.get(p, 0.0) for p in phases)
    return {key: round(100 * value / whole, 1) for key, value in sorted(totals.items(), key=lambda kv: -kv[1])}


def peer_figures(peer_dir: Path, minutes: float) -> dict[str, Any]:
    """The peer's own run script (`run.sh MINUTES`, printing JSON on its last line), e.g. the OpenNMT-py anchor."""
    script = peer_dir / "run.sh"
    if not script.is_file():
        raise SystemExit(f"error: no run.sh in --peer-dir {peer_dir}")
    done = subprocess.run(["bash", str(script), str(int(minutes))], capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def ratios(ours: dict[str, Any], peer: dict[str, Any]) -> dict[str, float]:
    out = {"train_pairs_per_s": ours["train"]["pairs_per_s"] / peer["train_sentence_pairs_per_s"]}
    for label, beam in (("beam5", 5), ("greedy", 1)):
        theirs = peer.get(f"test_beam{beam}", {})
        if "sentences_per_s_generation" in theirs:
            out[f"{label}_generation"] = ours["decode"][label]["sentences_per_s"] / theirs["sentences_per_s_generation"]
            out[f"{label}_wall"] = (ours["decode"][label]["wall_sentences_per_s_incl_load"]
                                    / theirs["sentences_per_s_wall_incl_load"])
    return {k: round(v, 2) for k, v in out.items()}


def main(profile_only: bool = False) -> None:
    """Measure and print; `profile_only` (or --profile-only): only the training profile by phase."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--name", default="bench-speed")
    parser.add_argument("--set", action="append", default=[], help="config overrides, as in the CLI")
    parser.add_argument("--decode-only", type=Path, default=None)
    parser.add_argument("--profile-only", action="store_true")
    parser.add_argument("--profile-steps", type=int, default=30)
    parser.add_argument("--mechanisms", default="additive", help="for the profile: names or 'all'")
    parser.add_argument("--peer-dir", type=Path, default=None, help=(
        "then run the peer there (its run.sh, e.g. the OpenNMT-py 3.5.1 anchor ../shared/anchors/opennmt) and print the ratios"))
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    args.profile_only = args.profile_only or profile_only
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    datasets.disable_progress_bars()
    torch.set_num_threads(args.threads)
    figures: dict[str, Any] = {"threads": args.threads, "torch": torch.__version__,
                               "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    names = list(PRESETS) if args.mechanisms == "all" else args.mechanisms.split(",")
    if not args.profile_only:  # before the profile, whose event buffers would dominate the peak RSS
        run = args.decode_only
        if run is None:
            run, figures["train"] = train_figures(args)
        tmp = REPO / "runs" / "bench-tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        figures["decode"] = decode_figures(run, tmp)
        if args.peer_dir is not None:
            figures["peer"] = peer_figures(args.peer_dir, args.minutes)
            figures["ratios"] = ratios(figures, figures["peer"])
    figures["profile_percent_of_step"] = {name: profile_figures(name, args.profile_steps, args.threads)
                                          for name in names}
    out = args.output or REPO / "runs" / f"{args.name}.bench.json"
    out.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
