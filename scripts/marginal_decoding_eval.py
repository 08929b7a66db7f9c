"""A `hard-marginal` model decoded two ways: with its argmax position, and with the mixture it was trained as.

    python scripts/marginal_decoding_eval.py runs/compare-converged-en-zh/hard-marginal-seed1 --split test \\
        --against docs/compare-converged-en-zh/runs/additive-seed1/test.hyp.txt --json out.json

Exact marginalisation trains p(y) = Σᵢ αᵢ p(y | xᵢ). The study decodes such a model with one
position (the argmax of α), as a hard-attention model; Deng et al. 2018 evaluate the mixture
itself. This prints BLEU/chrF and sentences/s of both decodings (beam and length penalty of the
checkpoint), the paired bootstrap of mixture against argmax, and with --against, of both against
another system's hypotheses of the same split (e.g. soft additive attention).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from translate.checkpoint.store import load_checkpoint
from translate.config.loading import apply_overrides, load_config
from translate.data.corpus import load_eval_split
from translate.evaluation.metrics import paired_bootstrap, score
from translate.inference.translator import Translator
from translate.model import build_model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--against", type=Path, help="hypotheses of another system on the same split, one per line")
    parser.add_argument("--batch-size", type=int, default=64,
                        help="decoding batch (the mixture holds S outputs per row)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    loaded = load_checkpoint(args.checkpoint)
    attention = loaded.artifact.model.attention
    if attention.kind != "hard" or attention.hard_training != "marginal":
        parser.error(f"{args.checkpoint} is not a hard-marginal model ({loaded.artifact.model.mechanism})")
    mixture_cfg = dataclasses.replace(loaded.artifact.model,
                                      attention=dataclasses.replace(attention, marginal_decoding="mixture"))
    mixture = build_model(mixture_cfg, len(loaded.src_tokenizer), len(loaded.tgt_tokenizer))
    mixture.load_state_dict(loaded.model.state_dict())
    sources, refs = load_eval_split(load_config(None, {"data.direction": loaded.artifact.direction}).data, args.split)
    tgt_lang = loaded.artifact.direction.split("-")[1]
    decode = apply_overrides(loaded.artifact.decode, {"batch_size": args.batch_size})
    figures: dict[str, object] = {"checkpoint": str(args.checkpoint), "split": args.split, "beam": decode.beam_size}
    systems = []
    for label, model in (("argmax", loaded.model), ("mixture", mixture.eval())):
        translator = Translator.from_loaded(loaded, model, decode)  # the checkpoint's languages: input normalised
        began = time.perf_counter()
        hyps = translator.translate(sources)
        seconds = time.perf_counter() - began
        report = score(hyps, refs, tgt_lang)
        systems.append((label, hyps))
        figures[label] = {"bleu": round(report.bleu, 2), "chrf": round(report.chrf, 2),
                          "sentences_per_s": round(len(sources) / seconds, 1)}
        print(f"{label:8s} {args.split} BLEU {report.bleu:6.2f}  chrF {report.chrf:6.2f}  "
              f"{len(sources) / seconds:7.1f} sent/s  ({report.bleu_signature})")
    results, _ = paired_bootstrap(systems, refs, tgt_lang)
    figures["p_mixture_vs_argmax"] = results[1].p_value
    print(f"mixture vs argmax: p = {results[1].p_value}")
    if args.against is not None:
        other = args.against.read_text(encoding="utf-8").splitlines()
        if len(other) != len(refs):
            parser.error(f"{args.against} has {len(other)} lines, the {args.split} split {len(refs)}")
        results, _ = paired_bootstrap([("against", other), *systems], refs, tgt_lang)
        figures["against"] = {"hypotheses": str(args.against), "bleu": round(results[0].score, 2),
                              **{f"p_{r.name}_vs_against": r.p_value for r in results[1:]}}
        print(f"against {args.against}: BLEU {results[0].score:.2f}; "
              + ", ".join(f"{r.name} p = {r.p_value}" for r in results[1:]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
