"""A `translate compare` study served for side-by-side translation: each finished run with its
weights (the study's work folder) and its figures from the out folder (`compare.json`: test BLEU,
chrF, dev BLEU), the study's table (`results.json`) and figures (PNG). Runs are loaded when first
asked for, at most `max_loaded` at a time (least recently used ones are let go)."""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.checkpoint.store import load_checkpoint
from translate.errors import ConfigError
from translate.inference.translator import Translator

PREFIX = "study/"  # a run's model name in the server: never the name of a served model
_FIGURE = re.compile(r"^[\w.+-]+\.png$")


@dataclass(frozen=True)
class StudyRun:
    name: str
    mechanism: str
    seed: int
    scores: dict[str, Any]
    weights: Path

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "mechanism": self.mechanism, "seed": self.seed,
                **{k: self.scores.get(k) for k in ("test_bleu", "test_chrf", "dev_bleu", "steps")}}


class Study:
    def __init__(self, out_dir: Path, work_dir: Path | None = None, max_loaded: int = 4) -> None:
        if not (out_dir / "runs").is_dir():
            raise ConfigError(f"--study {out_dir}: not a translate compare folder (no runs/ in it); give the folder "
                              f"passed to translate compare --out")
        self.out_dir, self.work_dir, self.max_loaded = out_dir, work_dir or out_dir / "runs", max_loaded
        self.runs: dict[str, StudyRun] = {}
        for results in sorted((out_dir / "runs").glob("*/compare.json")):
            weights = self.work_dir / results.parent.name
            if (weights / "best" / "model.safetensors").is_file() or (weights / "model.safetensors").is_file():
                scores = json.loads(results.read_text(encoding="utf-8"))
                self.runs[results.parent.name] = StudyRun(results.parent.name, str(scores.get("mechanism", "")),
                                                          int(scores.get("seed", 0)), scores, weights)
        if not self.runs:
            raise ConfigError(f"--study {out_dir}: no finished run has its weights in {self.work_dir} (a run needs "
                              f"runs/<run>/compare.json in the study and its checkpoint in the work folder; "
                              f"give the work folder with --study-runs)")
        self._loaded: OrderedDict[str, Translator] = OrderedDict()
        self._lock = threading.Lock()

    def info(self) -> dict[str, Any]:
        table_file = self.out_dir / "results.json"
        table = json.loads(table_file.read_text(encoding="utf-8")).get("rows", []) if table_file.is_file() else []
        return {"runs": [run.info() for run in self.runs.values()], "table": table, "figures": self.figures()}

    def figures(self) -> list[str]:
        return sorted(p.name for p in self.out_dir.glob("*.png") if _FIGURE.match(p.name))

    def figure(self, name: str) -> Path | None:
        """A figure of the study by its listed name (nothing else under the folder is served)."""
        return self.out_dir / name if name in self.figures() else None

    def translator(self, name: str) -> Translator:
        """The run's translator, loaded on first use (thread-safe: the worker thread and the event loop)."""
        run = self.runs.get(name)
        if run is None:
            raise KeyError(name)
        with self._lock:
            if name in self._loaded:
                self._loaded.move_to_end(name)
                return self._loaded[name]
            translator = Translator.from_loaded(load_checkpoint(run.weights))
            self._loaded[name] = translator
            while len(self._loaded) > self.max_loaded:
                self._loaded.popitem(last=False)
            return translator
