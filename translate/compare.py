"""`translate compare`: train attention mechanisms under one budget and rank them by test BLEU.

Each mechanism is a named set of config overrides on top of one base config (same data, seed,
model size and budget). Finished runs are reused, so an interrupted comparison resumes.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import logging
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from translate.config import RunConfig
from translate.config_io import apply_overrides
from translate.data.batch import collate
from translate.data.corpus import load_eval_split
from translate.data.tokenizer import PAD_ID, target_ids
from translate.errors import ConfigError
from translate.evaluate import translate_and_score
from translate.metrics import paired_bootstrap
from translate.plots import BarRow, Heatmap, plot_bleu, plot_curves, plot_heatmaps
from translate.train import train
from translate.translator import Translator

logger = logging.getLogger(__name__)

_SOFT = {"model.attention.kind": "soft", "model.attention.mode": "plain"}
MECHANISMS: dict[str, dict[str, Any]] = {
    "none": {"model.attention.kind": "none"},
    "additive": {**_SOFT, "model.attention.scorer": "additive"},
    "dot": {**_SOFT, "model.attention.scorer": "dot"},
    "scaled-dot": {**_SOFT, "model.attention.scorer": "scaled-dot"},
    "bilinear": {**_SOFT, "model.attention.scorer": "bilinear"},
    "additive-kv": {**_SOFT, "model.attention.scorer": "additive", "model.attention.mode": "key-value"},
    "scaled-dot-kv": {**_SOFT, "model.attention.scorer": "scaled-dot", "model.attention.mode": "key-value"},
    "hard-reinforce": {"model.attention.kind": "hard", "model.attention.scorer": "additive",
                       "model.attention.hard_training": "reinforce"},
    "hard-gumbel-st": {"model.attention.kind": "hard", "model.attention.scorer": "additive",
                       "model.attention.hard_training": "straight-through"},
    "multihead": {"model.attention.kind": "multihead", "model.attention.scorer": "additive",
                  "model.attention.heads": 4},
    "self-attention+additive": {**_SOFT, "model.attention.scorer": "additive", "model.encoder_self_attention": True},
}
BASELINE = "none"


def parse_mechanisms(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()] if text != "all" else list(MECHANISMS)
    unknown = [n for n in names if n not in MECHANISMS]
    if unknown or not names:
        raise ConfigError(f"unknown mechanism(s) {', '.join(unknown) or '(none given)'}; valid: {', '.join(MECHANISMS)}")
    return names


@dataclass
class RunFigures:
    mechanism: str
    seed: int
    parameters: int
    steps: int
    train_tokens_per_second: float
    decode_sentences_per_second: float
    dev_bleu: float
    test_bleu: float
    test_chrf: float
    attention_entropy: float | None
    curve: list[tuple[float, float]]


def _train_or_reuse(cfg: RunConfig) -> dict[str, Any]:
    summary = cfg.run_dir / "train_summary.json"
    if not summary.is_file():
        resume = (cfg.run_dir / "last" / "trainer.pt").is_file()
        logger.info("== %s: %s", cfg.name, "resuming" if resume else "training")
        train(cfg, resume=resume)
    return dict(json.loads(summary.read_text(encoding="utf-8")))


@torch.no_grad()
def attention_entropy(translator: Translator, sources: list[str], refs: list[str]) -> float | None:
    """Mean entropy (nats) of the attention over source tokens, teacher-forcing the references."""
    model, entropies, attended = translator.model.eval(), [], False
    for start in range(0, len(sources), 64):
        src = translator.encode_sources(sources[start:start + 64])
        tgt = [target_ids(ids) for ids in translator.tgt_tokenizer.encode(refs[start:start + 64])]
        batch = collate(src, tgt).to(model.device)
        weights = model(batch.src, batch.src_lens, batch.tgt_in).weights  # (B, T, S)
        mask = batch.tgt_out != PAD_ID
        attended = attended or bool(weights.sum() > 0)  # `none` has all-zero weights
        entropies.append(-(weights * weights.clamp_min(1e-12).log()).sum(-1)[mask])  # (N,)
    return float(torch.cat(entropies).mean()) if attended else None


def _evaluate_run(cfg: RunConfig, mechanism: str, seed: int, summary: dict[str, Any]) -> RunFigures:
    cached = cfg.run_dir / "compare.json"
    if cached.is_file():
        data = json.loads(cached.read_text(encoding="utf-8"))
        data["curve"] = [tuple(p) for p in data["curve"]]
        return RunFigures(**data)
    translator = Translator.from_checkpoint(cfg.run_dir)
    splits = {split: load_eval_split(cfg.data, split) for split in ("dev", "test")}
    scored = {split: translate_and_score(translator, sources, refs, cfg.data.tgt_lang,
                                         hypotheses_path=cfg.run_dir / f"{split}.hyp.txt")
              for split, (sources, refs) in splits.items()}
    dev_sources, dev_refs = splits["dev"]
    state = summary["state"]
    result = RunFigures(
        mechanism=mechanism, seed=seed, parameters=summary["parameters"], steps=state["step"],
        train_tokens_per_second=round(state["target_tokens"] / max(state["step_seconds"], 1e-9), 1),
        decode_sentences_per_second=round(scored["test"].sentences_per_second, 1),
        dev_bleu=round(scored["dev"].report.bleu, 2), test_bleu=round(scored["test"].report.bleu, 2),
        test_chrf=round(scored["test"].report.chrf, 2),
        attention_entropy=attention_entropy(translator, dev_sources, dev_refs),
        curve=[(h["minutes"], h["dev_bleu"]) for h in summary["history"] if "tag" not in h])
    cached.write_text(json.dumps(dataclasses.asdict(result)), encoding="utf-8")
    return result


def _heatmaps(runs: dict[str, Path], sources: list[str]) -> list[list[Heatmap]]:
    grid: list[list[Heatmap]] = [[] for _ in sources]
    for name, run in runs.items():
        translator = Translator.from_checkpoint(run)
        best = [n_best[0].tokens for n_best in translator.translate_n_best(sources)]
        for row, alignment in enumerate(translator.align(sources, best)):
            grid[row].append(Heatmap(name, alignment.weights, alignment.source_pieces, alignment.target_pieces))
    return grid


def compare(base: RunConfig, mechanisms: list[str], seeds: list[int], out_dir: Path) -> Path:
    """Train and evaluate every mechanism × seed; write results.md/.csv/.json and PNG figures to out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figures: list[RunFigures] = []
    first_seed_runs: dict[str, Path] = {}  # the run of each mechanism's first seed: tables and heatmaps
    for mechanism in mechanisms:
        for seed in seeds:
            cfg = apply_overrides(base, {**MECHANISMS[mechanism], "name": f"{mechanism}-seed{seed}",
                                         "runs_dir": str(out_dir / "runs"), "train.seed": seed})
            figures.append(_evaluate_run(cfg, mechanism, seed, _train_or_reuse(cfg)))
            first_seed_runs.setdefault(mechanism, cfg.run_dir)
    _write_tables(base, figures, first_seed_runs, out_dir)
    return out_dir


def _write_tables(base: RunConfig, figures: list[RunFigures], runs: dict[str, Path], out_dir: Path) -> None:
    names = list(runs)
    order = ([BASELINE] if BASELINE in runs else []) + [n for n in names if n != BASELINE]
    test_sources, test_refs = load_eval_split(base.data, "test")
    systems = [(n, (runs[n] / "test.hyp.txt").read_text(encoding="utf-8").splitlines()) for n in order]
    paired, signature = paired_bootstrap(systems, test_refs, base.data.tgt_lang) if len(systems) > 1 else ([], "")
    by_name = {p.name: p for p in paired}
    rows = []
    for name in order:
        runs_of = [f for f in figures if f.mechanism == name]
        first = runs_of[0]
        bleus = [f.test_bleu for f in runs_of]
        p = by_name.get(name)
        rows.append({
            "mechanism": name, "parameters": first.parameters, "steps": first.steps,
            "train_tok_per_s": first.train_tokens_per_second, "decode_sent_per_s": first.decode_sentences_per_second,
            "dev_bleu": first.dev_bleu, "test_bleu": first.test_bleu,
            "test_bleu_ci95": round(p.ci, 2) if p else None,
            "test_bleu_mean_over_seeds": round(statistics.mean(bleus), 2),
            "test_bleu_std_over_seeds": round(statistics.stdev(bleus), 2) if len(bleus) > 1 else None,
            "seeds": len(bleus), "test_chrf": first.test_chrf,
            "p_vs_none": None if p is None or p.p_value is None else round(p.p_value, 4),
            "attention_entropy": None if first.attention_entropy is None else round(first.attention_entropy, 3),
        })
    (out_dir / "results.json").write_text(json.dumps({"rows": rows, "bootstrap_signature": signature,
                                                      "runs": [dataclasses.asdict(f) for f in figures]},
                                                     indent=1), encoding="utf-8")
    with open(out_dir / "results.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (out_dir / "results.md").write_text(_markdown(rows, signature), encoding="utf-8")
    plot_bleu([BarRow(r["mechanism"], r["test_bleu"], r["test_bleu_ci95"] or 0.0) for r in rows],
              out_dir / "bleu.png", f"{base.data.direction}, test BLEU by attention mechanism")
    plot_curves({f.mechanism: f.curve for f in figures if f.seed == figures[0].seed}, out_dir / "dev_bleu_curves.png")
    plot_heatmaps(_heatmaps({n: runs[n] for n in order if n != BASELINE}, test_sources[:3]), out_dir / "heatmaps.png")


def _markdown(rows: list[dict[str, Any]], signature: str) -> str:
    head = ("| mechanism | params | steps | train tgt tok/s | decode sent/s | dev BLEU | test BLEU ± 95% CI | "
            "mean ± std (seeds) | test chrF | p vs none | attn entropy |\n|" + "---|" * 11 + "\n")
    lines = []
    for r in rows:
        ci = f" ± {r['test_bleu_ci95']:.2f}" if r["test_bleu_ci95"] is not None else ""
        std = f"{r['test_bleu_mean_over_seeds']:.2f} ± {r['test_bleu_std_over_seeds']:.2f} ({r['seeds']})" \
            if r["test_bleu_std_over_seeds"] is not None else f"– ({r['seeds']})"
        p = "–" if r["p_vs_none"] is None else f"{r['p_vs_none']:.4f}"
        ent = "–" if r["attention_entropy"] is None else f"{r['attention_entropy']:.2f}"
        lines.append(f"| {r['mechanism']} | {r['parameters']:,} | {r['steps']:,} | {r['train_tok_per_s']:,.0f} | "
                     f"{r['decode_sent_per_s']:.0f} | {r['dev_bleu']:.2f} | {r['test_bleu']:.2f}{ci} | {std} | "
                     f"{r['test_chrf']:.2f} | {p} | {ent} |")
    note = f"\nPaired bootstrap: sacrebleu `{signature}`.\n" if signature else ""
    return head + "\n".join(lines) + "\n" + note
