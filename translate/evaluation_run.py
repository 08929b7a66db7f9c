"""Evaluate a checkpoint on dev or test: translate, score with sacrebleu, write hypotheses and report.json."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from translate.checkpoint import resolve
from translate.data.corpus import load_eval_split
from translate.errors import ConfigError
from translate.evaluate import EvalReport, score
from translate.translator import Translator


def evaluate_split(checkpoint: Path, split: str, data_dir: str | None = None, beam: int | None = None,
                   output: Path | None = None, direction: str | None = None) -> tuple[EvalReport, Path]:
    ckpt = resolve(checkpoint)
    translator = Translator.from_checkpoint(ckpt)
    cfg = translator.cfg
    if direction is not None and direction != cfg.data.direction:
        raise ConfigError(f"the checkpoint translates {cfg.data.direction}, but {direction} was asked for; "
                          f"use a {direction} checkpoint (see `translate info --checkpoint {checkpoint}`)")
    if data_dir is not None:
        cfg = cfg.replace({"data.data_dir": data_dir})
    if beam is not None:
        cfg = cfg.replace({"decode.beam_size": beam, "decode.n_best": 1})
    sources, refs = load_eval_split(cfg, split)
    began = time.perf_counter()
    hyps = translator.translate(sources, cfg.decode)
    seconds = time.perf_counter() - began
    report = score(hyps, refs, cfg.data.tgt_lang)
    out_dir = ckpt.parent if ckpt.name in ("best", "last", "best.old", "last.old") else ckpt
    hyp_path = output or out_dir / f"{split}.{ckpt.name}.beam{cfg.decode.beam_size}.hyp.txt"
    hyp_path.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    record: dict[str, Any] = {"checkpoint": str(ckpt), "split": split, **report.to_dict(),
                              "decode": dataclasses.asdict(cfg.decode), "decode_seconds": round(seconds, 2),
                              "sentences_per_second": round(len(sources) / max(seconds, 1e-9), 1),
                              "hypotheses": str(hyp_path)}
    (out_dir / f"report.{split}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
    return report, hyp_path
