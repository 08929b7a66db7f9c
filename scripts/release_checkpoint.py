"""Copy a run's best checkpoint into checkpoints/<name>/ as fp16 weights, with scores and a model card.

    python scripts/release_checkpoint.py runs/bench-en-zh checkpoints/en-zh
    python scripts/release_checkpoint.py --scores-only checkpoints/en-zh --benchmark benchmarks/x.json

The released folder is what `translate text` uses by default (the model named en-zh). It holds no
training state and no paths; weights are stored in fp16 (half the size) and loaded back into fp32.
meta.json gets the scores the model card shows, machine-readable (`scores`), from the run's
benchmark.json (written by scripts/benchmark.py).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from translate.checkpoint import load_checkpoint, save_checkpoint

SCORE_KEYS = ("bleu", "chrf", "bleu_signature", "chrf_signature", "length_ratio", "sentences", "sentences_per_second")


def scores_from_benchmark(bench: dict[str, Any]) -> dict[str, Any]:
    """{split: {beam5|greedy: {bleu, chrf, signatures, ...}}} from a benchmark.json."""
    return {split: {label: {k: fig[k] for k in SCORE_KEYS if k in fig} for label, fig in bench[split].items()
                    if isinstance(fig, dict)}
            for split in ("dev", "test") if split in bench}


def model_card(target: Path, loaded: Any, meta: dict[str, Any], bench: dict[str, Any]) -> str:
    art = loaded.artifact
    lines = [f"# {target.name}: {art.direction} attentional RNN", "",
             (f"- architecture: {art.model.rnn_type.upper()} hidden {art.model.hidden_size} (bidirectional encoder), "
              f"attention {art.model.attention.kind}/{art.model.attention.scorer}, "
              f"{loaded.model.num_parameters():,} parameters, fp16 weights"),
             (f"- data: Tatoeba English–Mandarin shared split (train 26,206 pairs; CC-BY 2.0 FR, attribution: "
              f"the Tatoeba project), SentencePiece unigram {len(loaded.src_tokenizer)}/{len(loaded.tgt_tokenizer)} pieces"),
             f"- trained: step {meta.get('step')}, dev BLEU {meta.get('dev_bleu', float('nan')):.2f} (greedy)"]
    for split, labels in meta.get("scores", {}).items():
        for label, fig in labels.items():
            lines.append(f"- {split} {label}: BLEU {fig['bleu']:.2f}, chrF {fig['chrf']:.2f} "
                         f"({fig['bleu_signature']}), {fig.get('sentences_per_second')} sentences/s on 2 CPU threads")
    if "training" in bench:
        t = bench["training"]
        lines.append(f"- training: {t['updates']} updates in {t['minutes']} min on 2 CPU threads, "
                     f"{t['target_tokens_per_second']} target tokens/s")
    lines += ["", "Reproduce: `python scripts/benchmark.py --minutes 20 --threads 2`, then this script.",
              f"Use: `translate text \"I would like a cup of tea.\"` (the default model is {target.name}).", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="run folder (or, with --scores-only, the released checkpoint)")
    parser.add_argument("target", type=Path, nargs="?")
    parser.add_argument("--benchmark", type=Path, default=None, help="benchmark.json (default: <run>/benchmark.json)")
    parser.add_argument("--scores-only", action="store_true", help="only (re)write meta.json scores of RUN")
    args = parser.parse_args()
    bench_path = args.benchmark or args.run / "benchmark.json"
    bench = json.loads(bench_path.read_text()) if bench_path.is_file() else {}
    if args.scores_only:
        meta_path = args.run / "meta.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["scores"] = scores_from_benchmark(bench)
        meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        print(f"scores written to {meta_path}")
        return
    loaded = load_checkpoint(args.run)
    meta = {k: v for k, v in loaded.meta.items() if k not in ("format_version", "version")}
    meta["scores"] = scores_from_benchmark(bench)
    save_checkpoint(args.target, loaded.artifact, loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer, meta,
                    half=True)
    (args.target / "MODEL_CARD.md").write_text(model_card(args.target, loaded, meta, bench), encoding="utf-8")
    size = sum(p.stat().st_size for p in args.target.iterdir()) / 1e6
    print(f"released {args.target} ({size:.1f} MB)")


if __name__ == "__main__":
    main()
