"""What a study measures of a finished run: its dev and test scores and hypotheses, the attention's
entropy and sharpness on teacher-forced dev references, the attention matrices of a few test sentences
for the heatmaps, dropped and repeated content; written into the run's results folder as the small
files a study commits (compare.json, *.hyp.txt, attention.json)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import torch

from translate.config.schema import RunConfig
from translate.data.batch import collate
from translate.data.corpus import load_eval_split
from translate.data.tokenizer import target_ids
from translate.evaluation.evaluate import measure_adequacy, translate_and_score
from translate.inference.build import load_translator
from translate.inference.translator import Translator
from translate.machine import describe
from translate.study.report import RunFigures
from translate.study.sweep import Combination
from translate.tokens import PAD_ID
from translate.training.train import train_or_resume
from translate.training.trainer import Validated

KEPT_FILES = ("train_summary.json", "metrics.jsonl", "config.yaml")  # small files copied next to the scores


def train_or_reuse(cfg: RunConfig, on_validation: Validated | None = None) -> dict[str, Any]:
    summary = cfg.run_dir / "train_summary.json"
    if not summary.is_file():
        train_or_resume(cfg, on_validation)
    return dict(json.loads(summary.read_text(encoding="utf-8")))


@torch.no_grad()
def attention_statistics(translator: Translator, sources: list[str], refs: list[str]) -> tuple[float, float] | None:
    """Mean entropy (nats) of the attention over source tokens, and the mean share of the weight on
    the most-attended position (1.0 = one position, as hard attention), teacher-forcing the references."""
    model, entropies, peaks, attended = translator.model.eval(), [], [], False
    for start in range(0, len(sources), 64):
        src = translator.encode_sources(sources[start:start + 64])
        tgt = [target_ids(ids) for ids in translator.tgt_tokenizer.encode(refs[start:start + 64])]
        batch = collate(src, tgt).to(model.device)
        weights = model(batch.src, batch.src_lens, batch.tgt_in).weights  # (B, T, S)
        mask = batch.tgt_out != PAD_ID
        attended = attended or bool(weights.sum() > 0)  # `none` has all-zero weights
        entropies.append(-(weights * weights.clamp_min(1e-12).log()).sum(-1)[mask])  # (N,)
        peaks.append(weights.max(-1).values[mask])
    return (float(torch.cat(entropies).mean()), float(torch.cat(peaks).mean())) if attended else None


def heatmap_sentences(translator: Translator, sources: list[str], count: int = 4, shortest: int = 8,
                      longest: int = 20) -> list[int]:
    """Indices of `count` sources of `shortest`..`longest` pieces, spread over the split (the same for
    every mechanism of a study: they share the tokenizers); in a split with fewer such sentences,
    its longest ones up to `longest` pieces."""
    lengths = [len(ids) for ids in translator.src_tokenizer.encode(sources)]
    fitting = [i for i, n in enumerate(lengths) if shortest <= n <= longest]
    if len(fitting) < count:
        fitting = sorted(sorted((i for i, n in enumerate(lengths) if n <= longest), key=lambda i: -lengths[i])[:count])
    return [fitting[k * len(fitting) // count] for k in range(min(count, len(fitting)))]


def attention_record(translator: Translator, sources: list[str], indices: list[int]) -> list[dict[str, Any]]:
    """The attention of each chosen sentence's beam translation, rounded: small enough to commit."""
    picked = [sources[i] for i in indices]
    best = [n_best[0].tokens for n_best in translator.translate_n_best(picked)]
    return [{"index": i, "source": text, "source_pieces": a.source_pieces, "target_pieces": a.target_pieces,
             "weights": [[round(w, 3) for w in row] for row in a.weights]}
            for i, text, a in zip(indices, picked, translator.align(picked, best))]


def evaluate_run(cfg: RunConfig, mechanism: str, seed: int, results: Path,
                  on_validation: Validated | None = None, tuned: Combination = ()) -> RunFigures:
    """Scores, hypotheses, attention statistics and matrices of a finished run, into `results`; `tuned`: the
    values a sweep chose, recorded with them."""
    summary = train_or_reuse(cfg, on_validation)
    results.mkdir(parents=True, exist_ok=True)
    for name in KEPT_FILES:
        if (cfg.run_dir / name).is_file() and cfg.run_dir.resolve() != results.resolve():
            shutil.copyfile(cfg.run_dir / name, results / name)
    translator = load_translator(cfg.run_dir)
    splits = {split: load_eval_split(cfg.data, split) for split in ("dev", "test")}
    scored = {split: translate_and_score(translator, sources, refs, cfg.data.tgt_lang,
                                         hypotheses_path=results / f"{split}.hyp.txt")
              for split, (sources, refs) in splits.items()}
    stats = attention_statistics(translator, *splits["dev"])
    test_sources, test_refs = splits["test"]
    if stats is not None:
        (results / "attention.json").write_text(json.dumps(attention_record(
            translator, test_sources, heatmap_sentences(translator, test_sources)), ensure_ascii=False), encoding="utf-8")
    state = summary["state"]
    result = RunFigures(
        mechanism=mechanism, seed=seed, parameters=summary["parameters"], steps=state["step"],
        train_tokens_per_second=round(state["target_tokens"] / max(state["step_seconds"], 1e-9), 1),
        decode_sentences_per_second=round(scored["test"].sentences_per_second, 1),
        dev_bleu=round(scored["dev"].report.bleu, 2), test_bleu=round(scored["test"].report.bleu, 2),
        test_chrf=round(scored["test"].report.chrf, 2),
        attention_entropy=None if stats is None else round(stats[0], 4),
        attention_argmax_share=None if stats is None else round(stats[1], 4),
        curve=[(h["step"], h["dev_bleu"]) for h in summary["history"] if "tag" not in h],
        minutes=round(state["seconds"] / 60, 1), best_step=state.get("best_step"),
        stop_reason=summary.get("stop_reason", ""), machine=describe(),
        adequacy=measure_adequacy(translator, test_sources, scored["test"].hypotheses, test_refs,
                                  cfg.data.src_lang, cfg.data.tgt_lang).to_dict(),
        values=dict(tuned) or None)
    (results / "compare.json").write_text(json.dumps(result.record()), encoding="utf-8")
    return result
