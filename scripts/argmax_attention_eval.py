"""A soft-attention model decoded with one hard position (the argmax of its attention), no retraining.

    python scripts/argmax_attention_eval.py runs/compare-converged-en-zh/additive-seed1 --split dev

How much of a soft model's BLEU survives when each step reads only its most-attended source state:
the floor a hard-attention variant that decodes with the argmax has to beat, and the starting point
of the warm-started preset `hard-reinforce-warm`. Prints BLEU/chrF of both decodings (beam and
length penalty of the checkpoint); JSON to --json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from translate.checkpoint.store import load_checkpoint
from translate.config.loading import load_config
from translate.config.schema import ModelConfig
from translate.data.corpus import load_eval_split
from translate.evaluation.metrics import score
from translate.inference.translator import Translator
from translate.model import Seq2Seq, build_model


def argmax_twin(model: Seq2Seq, cfg: ModelConfig, src_vocab: int, tgt_vocab: int) -> Seq2Seq:
    """The same weights with hard attention: each step reads the state its soft weights favour most."""
    attention = dataclasses.replace(cfg.attention, kind="hard", hard_training="reinforce")
    twin = build_model(dataclasses.replace(cfg, attention=attention), src_vocab, tgt_vocab)
    twin.load_state_dict(model.state_dict(), strict=False)  # hard attention adds only its REINFORCE baseline
    return twin.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    loaded = load_checkpoint(args.checkpoint)
    if loaded.artifact.model.attention.kind != "soft":
        parser.error(f"{args.checkpoint} has {loaded.artifact.model.attention.kind} attention, not soft")
    hard = argmax_twin(loaded.model, loaded.artifact.model, len(loaded.src_tokenizer), len(loaded.tgt_tokenizer))
    sources, refs = load_eval_split(load_config(None, {"data.direction": loaded.artifact.direction}).data, args.split)
    tgt_lang = loaded.artifact.direction.split("-")[1]
    figures = {}
    for label, model in (("soft", loaded.model), ("argmax", hard)):
        translator = Translator.from_loaded(loaded, model)  # the checkpoint's languages: Chinese input normalised
        report = score(translator.translate(sources), refs, tgt_lang)
        figures[label] = {"bleu": round(report.bleu, 2), "chrf": round(report.chrf, 2)}
        print(f"{label:7s} {args.split} BLEU {report.bleu:6.2f}  chrF {report.chrf:6.2f}  ({report.bleu_signature})")
    if args.json:
        args.json.write_text(json.dumps({"checkpoint": str(args.checkpoint), "split": args.split, **figures}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
