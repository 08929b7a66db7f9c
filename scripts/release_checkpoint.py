"""Copy a run's best checkpoint into checkpoints/<name>/ as fp16 weights with a model card.

    python scripts/release_checkpoint.py runs/bench-en-zh checkpoints/en-zh

The released folder is what `translate text` uses by default (checkpoints/en-zh). It holds no
training state; weights are stored in fp16 (half the size) and loaded back into fp32.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from translate.checkpoint import load_checkpoint, save_checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args()
    loaded = load_checkpoint(args.run)
    meta = {k: v for k, v in loaded.meta.items() if k not in ("format_version", "version")}
    bench_path = args.run / "benchmark.json"
    bench = json.loads(bench_path.read_text()) if bench_path.is_file() else {}
    meta["released_from"] = str(args.run)
    save_checkpoint(args.target, loaded.config, loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer, meta,
                    half=True)
    cfg = loaded.config
    lines = [f"# {args.target.name}: {cfg.data.direction} attentional RNN", "",
             (f"- architecture: {cfg.model.rnn_type.upper()} hidden {cfg.model.hidden_size} (bidirectional encoder), "
              f"attention {cfg.model.attention.kind}/{cfg.model.attention.scorer}, "
              f"{loaded.model.num_parameters():,} parameters, fp16 weights"),
             (f"- data: Tatoeba English–Mandarin shared split (train 26,206 pairs), SentencePiece unigram "
              f"{len(loaded.src_tokenizer)}/{len(loaded.tgt_tokenizer)} pieces"),
             f"- trained: step {meta.get('step')}, dev BLEU {meta.get('dev_bleu', float('nan')):.2f} (greedy)"]
    for split in ("test",):
        if split in bench:
            for label in ("beam5", "greedy"):
                fig = bench[split][label]
                lines.append(f"- {split} {label}: BLEU {fig['bleu']:.2f}, chrF {fig['chrf']:.2f} "
                             f"({fig['bleu_signature']}), {fig['sentences_per_second']} sentences/s on 2 CPU threads")
    if "training" in bench:
        t = bench["training"]
        lines.append(f"- training: {t['updates']} updates in {t['minutes']} min on 2 CPU threads, "
                     f"{t['target_tokens_per_second']} target tokens/s")
    lines += ["", "Reproduce: `python scripts/benchmark.py --minutes 20 --threads 2`, then this script.",
              "Use: `translate text \"I would like a cup of tea.\"` (this folder is the default checkpoint).", ""]
    (args.target / "MODEL_CARD.md").write_text("\n".join(lines), encoding="utf-8")
    size = sum(p.stat().st_size for p in args.target.iterdir()) / 1e6
    print(f"released {args.target} ({size:.1f} MB)")


if __name__ == "__main__":
    main()
