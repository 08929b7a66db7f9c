"""Release a run's best checkpoint as checkpoints/<direction>/: fp16 weights, scores measured on
the released copy (what users load), and a model card.

    python scripts/release_checkpoint.py runs/zh-en-release checkpoints/zh-en

It evaluates the released copy on test.tsv (beam 5 and greedy; sacrebleu signatures; sentences/s
on this machine's threads), BLEU by source length, how often digits in the source come through
unchanged, and picks real examples of weaknesses (digits lost, the longest sentences). meta.json
gets all figures machine-readable (`scores`, `digits_kept`, `bleu_by_length`, `training`);
MODEL_CARD.md shows them. No training state and no paths are copied.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import time
from pathlib import Path
from typing import Any

import torch

from translate.checkpoint.store import load_checkpoint, save_checkpoint
from translate.config.loading import apply_overrides
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.evaluation.evaluate import translate_and_score
from translate.evaluation.metrics import corpus_bleu
from translate.inference.fast.graphs import ship_graphs
from translate.inference.translator import Translator

DIGITS = re.compile(r"\d+")
BUCKETS = {"en": [(1, 5), (6, 10), (11, 15), (16, 1000)], "zh": [(1, 6), (7, 12), (13, 20), (21, 1000)]}


def length(text: str, lang: str) -> int:
    """Words for English, characters (no spaces) for Chinese."""
    return len(text.split()) if lang == "en" else len(text.replace(" ", ""))


def by_length(sources: list[str], refs: list[str], hyps: list[str], src_lang: str, tgt_lang: str) -> list[dict[str, Any]]:
    rows = []
    for low, high in BUCKETS[src_lang]:
        idx = [i for i, s in enumerate(sources) if low <= length(s, src_lang) <= high]
        if idx:
            rows.append({"length": f"{low}-{high}" if high < 1000 else f"{low}+", "sentences": len(idx),
                         "bleu": round(corpus_bleu([hyps[i] for i in idx], [refs[i] for i in idx], tgt_lang), 2)})
    return rows


def digits_kept(sources: list[str], hyps: list[str]) -> dict[str, Any]:
    """Of the sources with digits, the share whose every digit string appears unchanged in the output."""
    with_digits = [i for i, s in enumerate(sources) if DIGITS.search(s)]
    kept = [i for i in with_digits if all(d in hyps[i] for d in DIGITS.findall(sources[i]))]
    return {"sentences_with_digits": len(with_digits), "kept": len(kept),
            "share": round(len(kept) / max(len(with_digits), 1), 3),
            "lost": [i for i in with_digits if i not in set(kept)]}


def evaluate(translator: Translator, sources: list[str], refs: list[str], tgt_lang: str) -> dict[str, Any]:
    out = {}
    for label, beam in (("beam5", 5), ("greedy", 1)):
        decode = apply_overrides(translator.decode, {"beam_size": beam, "n_best": 1})
        result = translate_and_score(translator, sources, refs, tgt_lang, decode)
        out[label] = {**result.report.to_dict(), "sentences_per_second": round(result.sentences_per_second, 1),
                      "threads": torch.get_num_threads(), "hypotheses": result.hypotheses}
    return out


def training_facts(run: Path) -> dict[str, Any]:
    summary = json.loads((run / "train_summary.json").read_text(encoding="utf-8")) if (run / "train_summary.json").is_file() else {}
    state = summary.get("state", {})
    return {"updates": state.get("step"), "epochs": state.get("epoch"), "minutes": round(state.get("seconds", 0) / 60, 1),
            "sentence_pairs_seen": state.get("sentence_pairs"), "best_dev_bleu": state.get("best_bleu"),
            "stop_reason": summary.get("stop_reason")}


def _example(i: int, sources: list[str], refs: list[str], hyps: list[str]) -> list[str]:
    return [f"  - source: {sources[i]}", f"    reference: {refs[i]}", f"    output: {hyps[i]}"]


# Everyday sentences written for the model card (not from Tatoeba, no reference): outputs shown as they are.
EVERYDAY = {
    "zh": ["我明天要去北京开会。", "这个问题很难解决。", "请问附近有没有便宜的酒店？", "他每天早上六点起床跑步。",
           "我们应该保护环境。", "这本书是我朋友送给我的生日礼物。"],
    "en": ["I will go to Beijing for a meeting tomorrow.", "This problem is hard to solve.",
           "Is there a cheap hotel nearby?", "He gets up at six every morning to run.",
           "We should protect the environment.", "This book was a birthday present from my friend."],
}


def model_card(name: str, translator: Translator, meta: dict[str, Any], recipe: str, split: tuple[list[str], list[str]]) -> str:
    m, art = translator.model, meta["artifact"]
    t, scores = meta["training"], meta["scores"]["test"]
    sources, refs = split
    hyps = scores["beam5"].pop("hypotheses")
    scores["greedy"].pop("hypotheses")
    lines = [f"# {name}: {art['direction']} attentional RNN", "",
             f"- architecture: {art['architecture']}, {m.num_parameters():,} parameters, fp16 weights",
             (f"- data: Tatoeba English–Mandarin shared split (train 26,206 pairs; CC-BY 2.0 FR, attribution: "
              f"the Tatoeba project and its contributors, https://tatoeba.org), SentencePiece unigram "
              f"{len(translator.src_tokenizer)}/{len(translator.tgt_tokenizer)} pieces"),
             *([f"- extra training data: {meta['extra_data']}"] if meta.get("extra_data") else []),
             f"- recipe: `{recipe}` ({t['stop_reason']})",
             *([f"- stages: {meta['stages']}"] if meta.get("stages") else []),
             (f"- training (last stage): {t['updates']} updates, {t['epochs']} epochs, {t['minutes']} min on "
              f"2 CPU threads (shared with other work), best dev BLEU {t['best_dev_bleu']:.2f} (greedy)"),
             (f"- decoding: beam 5, length penalty {translator.decode.length_penalty:g} (GNMT alpha, chosen on dev), "
              f"digits copied from the source")]
    for label, fig in scores.items():
        lines.append(f"- test {label}: BLEU {fig['bleu']:.2f}, chrF {fig['chrf']:.2f} ({fig['bleu_signature']}; "
                     f"{fig['chrf_signature']}), {fig['sentences_per_second']} sentences/s on {fig['threads']} CPU threads")
    lines += ["", "BLEU by source length (beam 5, test):", "", "| source length | sentences | BLEU |", "|---|---|---|"]
    lines += [f"| {r['length']} | {r['sentences']} | {r['bleu']:.2f} |" for r in meta["bleu_by_length"]]
    d = meta["digits_kept"]
    lines += ["", (f"Digits: of {d['sentences_with_digits']} test sources with digits, {d['kept']} "
                  f"({d['share']:.0%}) keep every digit string unchanged in the output."), "",
              "## Known weaknesses (real outputs on test.tsv, beam 5)", "",
              "- numbers the output changed or lost (a number written as a word, as some references do, counts as lost):"]
    for i in d.pop("lost")[:3]:
        lines += _example(i, sources, refs, hyps)
    lines += ["- the longest sentences (trained on short Tatoeba sentences):"]
    for i in sorted(range(len(sources)), key=lambda i: -len(sources[i]))[:3]:
        lines += _example(i, sources, refs, hyps)
    lines += [("- names and idioms: Tatoeba's names are mostly Tom and Mary; other names and idioms are often "
              "transliterated wrongly or translated word by word."),
              "", "Everyday sentences from outside Tatoeba (written for this card, beam 5, shown as they come out):", ""]
    everyday = EVERYDAY[translator.src_lang]
    lines += [f"- {src} → {out}" for src, out in zip(everyday, translator.translate(everyday))]
    lines += ["", (f"Use: `translate text ...` picks this model for {art['direction']} input; "
                   f"`translate text --checkpoint {name} ...` forces it."), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="run folder (its best/ is released) or checkpoint folder")
    parser.add_argument("target", type=Path)
    parser.add_argument("--recipe", default="", help="the command that trains it, for the model card "
                        "(default: translate train -c recipes/<direction>.yaml)")
    parser.add_argument("--extra-data", default="", help="training data besides Tatoeba, with its license (model card)")
    parser.add_argument("--stages", default="", help="how the model was trained in stages (model card)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--length-penalty", type=float, help=(
        "store this beam-search length penalty in the released decode settings (tune it on dev with "
        "scripts/tune_length_penalty.py)"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    loaded = load_checkpoint(args.run)
    if args.length_penalty is not None:
        decode = apply_overrides(loaded.artifact.decode, {"length_penalty": args.length_penalty})
        loaded = dataclasses.replace(loaded, artifact=dataclasses.replace(loaded.artifact, decode=decode))
    meta = {k: v for k, v in loaded.meta.items() if k not in ("format_version", "version", "scores")}
    save_checkpoint(args.target, loaded.artifact, loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer, meta, half=True)
    ship_graphs(args.target)  # the fast path's graphs, derived from the model, shipped with it
    translator = Translator.from_checkpoint(args.target)  # the fp16 copy, as users load it
    art = loaded.artifact
    sources, refs = load_eval_split(apply_overrides(DataConfig(), {"direction": art.direction}), "test")
    began = time.perf_counter()
    test = evaluate(translator, sources, refs, art.tgt_lang)
    meta.update({k: v for k, v in (("extra_data", args.extra_data), ("stages", args.stages)) if v})
    meta.update(scores={"test": test}, training=training_facts(args.run),
                bleu_by_length=by_length(sources, refs, test["beam5"]["hypotheses"], art.src_lang, art.tgt_lang),
                digits_kept=digits_kept(sources, test["beam5"]["hypotheses"]))
    card_meta = {**meta, "artifact": {"direction": art.direction, "architecture": (
        f"{art.model.rnn_type.upper()} hidden {art.model.hidden_size}, {art.model.encoder_layers}+{art.model.decoder_layers} "
        f"layers (bidirectional encoder), attention {art.model.mechanism}")}}
    recipe = args.recipe or f"translate train -c recipes/{art.direction}.yaml"
    card = model_card(args.target.name, translator, json.loads(json.dumps(card_meta)), recipe, (sources, refs))
    for fig in test.values():
        fig.pop("hypotheses")
    meta["digits_kept"].pop("lost")
    (args.target / "MODEL_CARD.md").write_text(card, encoding="utf-8")
    (args.target / "meta.json").write_text(json.dumps({**json.loads((args.target / "meta.json").read_text()), **meta},
                                                      indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    size = sum(p.stat().st_size for p in args.target.iterdir()) / 1e6
    print(f"released {args.target} ({size:.1f} MB) in {time.perf_counter() - began:.0f} s")
    print(card)


if __name__ == "__main__":
    main()
