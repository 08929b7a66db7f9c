"""The two engines side by side: PyTorch (`Translator`) and ONNX Runtime (`translate.inference.fast`: graphs derived from the model), on a checkpoint
and its test split — identical translations, BLEU/chrF, sentences/s in the process — `translate file` on
the test split at beam 5 from start to written output (wall time, sentences/s, peak RSS), and `translate
text` for each sentence of ONE from start to printed translation (wall time, peak RSS) with each. The `translate`
processes may write bytecode (.pyc), as an installed package has it from its install, even where the
environment sets PYTHONDONTWRITEBYTECODE: compiling the package's modules again at every start
costs a one-shot run about 0.1 s.

    python scripts/benchmark.py engines                      # released en-zh and zh-en models
    python scripts/benchmark.py engines --models runs/x --limit 500 --repeats 7

Run it when the machine is otherwise idle. Writes JSON (default runs/bench-engines.json).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from benchmarks import REPO
from translate.checkpoint.files import read_artifact, read_meta, resolve
from translate.config.loading import apply_overrides
from translate.config.paths import find_model
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.evaluation.evaluate import translate_and_score
from translate.inference.build import load_translator

# per source language: a plain sentence; for zh also one holding a name the names lexicon has (北京), which
# the released zh-en model decodes a second time, constrained, when its first translation lacks it
ONE = {"en": ["Where is the nearest train station?"], "zh": ["最近的火车站在哪里？", "我明天要去北京看我的朋友。"]}


def cli_run(args: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB, GNU time) and stdout of one `translate` process."""
    began = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "translate", *args],
                          capture_output=True, text=True, check=True, env=env)
    return time.perf_counter() - began, int(done.stderr.strip().splitlines()[-1]) / 1024, done.stdout.strip()


def translate_text(model: str, sentence: str, repeats: int) -> dict[str, Any]:
    out: dict[str, Any] = {"sentence": sentence}
    for engine in ("onnx", "torch"):
        first = cli_run(["text", sentence, "--checkpoint", model, "--engine", engine])  # derives graphs if needed
        runs = [cli_run(["text", sentence, "--checkpoint", model, "--engine", engine]) for _ in range(repeats)]
        out[engine] = {"first_run_s": round(first[0], 3), "wall_s_median": round(statistics.median(r[0] for r in runs), 3),
                       "wall_s_min": round(min(r[0] for r in runs), 3), "wall_s_max": round(max(r[0] for r in runs), 3),
                       "peak_rss_mb": round(max(r[1] for r in runs), 1), "output": runs[0][2]}
    return out


def translate_file(model: str, sources: list[str], beam: int, folder: Path) -> dict[str, Any]:
    """`translate file` on the sources with each engine: wall seconds from start to written output
    (start-up included), sentences/s over that wall, peak RSS, and whether the outputs are identical."""
    given = folder / "sources.txt"
    given.write_text("".join(line + "\n" for line in sources), encoding="utf-8")
    out: dict[str, Any] = {"sentences": len(sources), "beam": beam}
    for engine in ("onnx", "torch"):
        wall, rss, _ = cli_run(["file", str(given), "-o", str(folder / engine), "--checkpoint", model, "--engine", engine,
                                "--beam", str(beam)])
        out[engine] = {"wall_s": round(wall, 2), "sentences_per_s": round(len(sources) / wall, 1),
                       "peak_rss_mb": round(rss, 1)}
    out["identical_outputs"] = (folder / "onnx").read_bytes() == (folder / "torch").read_bytes()
    return out


def test_split(model: str, limit: int | None, threads: int = 2) -> dict[str, Any]:
    path = resolve(find_model(model))
    artifact = read_artifact(path, read_meta(path))
    sources, refs = load_eval_split(apply_overrides(DataConfig(), {"direction": artifact.direction}), "test")
    sources, refs = sources[:limit], refs[:limit]
    engines = {"torch": load_translator(path), "onnx": load_translator(path, engine="onnx", threads=threads)}
    out: dict[str, Any] = {"sentences": len(sources)}
    for label, beam in (("beam5", 5), ("greedy", 1)):
        row: dict[str, Any] = {}
        hyps = {}
        for name, translator in engines.items():
            decode = apply_overrides(translator.decode, {"beam_size": beam, "n_best": 1})
            result = translate_and_score(translator, sources, refs, artifact.tgt_lang, decode)
            hyps[name] = result.hypotheses
            row[name] = {"bleu": round(result.report.bleu, 2), "chrf": round(result.report.chrf, 2),
                         "sentences_per_s": round(result.sentences_per_second, 1)}
        row["identical_translations"] = sum(a == b for a, b in zip(hyps["onnx"], hyps["torch"]))
        out[label] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="en-zh,zh-en", help="comma-separated checkpoints or released names")
    parser.add_argument("--limit", type=int, default=None, help="first N test sentences only")
    parser.add_argument("--repeats", type=int, default=5, help="`translate text` runs per engine")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path, default=REPO / "runs" / "bench-engines.json")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    figures: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "threads": args.threads}
    for model in args.models.split(","):
        path = resolve(find_model(model))
        artifact = read_artifact(path, read_meta(path))
        src_lang = artifact.src_lang
        sources = load_eval_split(apply_overrides(DataConfig(), {"direction": artifact.direction}), "test")[0][:args.limit]
        with tempfile.TemporaryDirectory() as folder:
            figures[model] = {"translate_text": [translate_text(model, sentence, args.repeats) for sentence in ONE[src_lang]],
                              "translate_file": translate_file(model, sources, 5, Path(folder)),
                              "test": test_split(model, args.limit, args.threads)}
        print(json.dumps({model: figures[model]}, indent=1, ensure_ascii=False), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"written: {args.output}")


if __name__ == "__main__":
    main()
