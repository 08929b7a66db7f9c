"""A `translate compare` study served for side-by-side translation: each finished run with its
weights (the study's work folder) and its figures from the out folder (`compare.json`: test BLEU,
chrF, dev BLEU), the study's table (`results.json`) and figures (PNG). Runs are loaded when first
asked for, at most `max_loaded` at a time (least recently used ones are let go).

A study folder is data from wherever it came from, read once when the server starts: every file is
opened inside the folder without following a symlink, must be a regular file under its size bound,
and JSON must have the shape the study writes. A folder that breaks a rule is refused with one line
that names the file and the fault; requests are answered from what was read, never from the disk."""

from __future__ import annotations

import json
import os
import re
import stat
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
_RUN = re.compile(r"^[\w.+-]+$")
MAX_JSON_BYTES = 4 * 2**20  # compare.json or results.json
MAX_FIGURE_BYTES = 8 * 2**20  # one PNG
MAX_FIGURES_BYTES = 64 * 2**20  # all of them
MAX_RUNS = 1_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


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


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes reached without a symlink in its
    last component (O_NOFOLLOW); a FIFO or device is refused without blocking (O_NONBLOCK)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        fault = "a symlink (refused)" if path.is_symlink() else exc.strerror
        raise ConfigError(f"{path}: cannot be read: {fault}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{path}: not a regular file (refused)")
        if info.st_size > limit:
            raise ConfigError(f"{path}: {info.st_size:,} bytes; a study file may have at most {limit:,}")
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ConfigError(f"{path}: over {limit:,} bytes; a study file may have at most {limit:,}")
    return data


def read_json_object(path: Path) -> dict[str, Any]:
    """A study's JSON file as an object, or ConfigError naming the file and what is wrong with it."""
    raw = read_regular(path, MAX_JSON_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:
        raise ConfigError(f"{path}: not JSON this server reads ({type(exc).__name__}: nested too deeply or a "
                          f"number too long)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def _inside(folder: Path, child: Path) -> bool:
    """Whether `child`, resolved, lies inside `folder`, resolved (no link leads out)."""
    return child.resolve().is_relative_to(folder.resolve())


class Study:
    def __init__(self, out_dir: Path, work_dir: Path | None = None, max_loaded: int = 4) -> None:
        if not (out_dir / "runs").is_dir():
            raise ConfigError(f"--study {out_dir}: not a translate compare folder (no runs/ in it); give the folder "
                              f"passed to translate compare --out")
        self.out_dir, self.work_dir, self.max_loaded = out_dir, work_dir or out_dir / "runs", max_loaded
        self.runs = self._read_runs()
        if not self.runs:
            raise ConfigError(f"--study {out_dir}: no finished run has its weights in {self.work_dir} (a run needs "
                              f"runs/<run>/compare.json in the study and its checkpoint in the work folder; "
                              f"give the work folder with --study-runs)")
        self.table = self._read_table()
        self._figures = self._read_figures()
        self._loaded: OrderedDict[str, Translator] = OrderedDict()
        self._lock = threading.Lock()

    def _read_runs(self) -> dict[str, StudyRun]:
        runs: dict[str, StudyRun] = {}
        folders = sorted(p for p in (self.out_dir / "runs").iterdir() if _RUN.match(p.name))
        for folder in folders[:MAX_RUNS]:
            results = folder / "compare.json"
            if folder.is_symlink() or not (results.exists() or results.is_symlink()):
                continue
            weights = self.work_dir / folder.name
            if not any((w.is_file() and _inside(self.work_dir, w))
                       for w in (weights / "best" / "model.safetensors", weights / "model.safetensors")):
                continue
            scores = read_json_object(results)
            seed = scores.get("seed", 0)
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise ConfigError(f"{results}: seed must be an integer, got {str(seed)[:40]!r}")
            mechanism = scores.get("mechanism", "")
            if not isinstance(mechanism, str):
                raise ConfigError(f"{results}: mechanism must be a string, got {type(mechanism).__name__}")
            runs[folder.name] = StudyRun(folder.name, mechanism, seed, scores, weights)
        return runs

    def _read_table(self) -> list[dict[str, Any]]:
        path = self.out_dir / "results.json"
        if not (path.exists() or path.is_symlink()):
            return []
        rows = read_json_object(path).get("rows", [])
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise ConfigError(f"{path}: rows must be a list of objects")
        return rows

    def _read_figures(self) -> dict[str, bytes]:
        figures: dict[str, bytes] = {}
        total = 0
        for path in sorted(self.out_dir.glob("*.png")):
            if not _FIGURE.match(path.name):
                continue
            data = read_regular(path, MAX_FIGURE_BYTES)
            if not data.startswith(PNG_SIGNATURE):
                raise ConfigError(f"{path}: not a PNG image")
            total += len(data)
            if total > MAX_FIGURES_BYTES:
                raise ConfigError(f"{self.out_dir}: the figures hold over {MAX_FIGURES_BYTES:,} bytes")
            figures[path.name] = data
        return figures

    def info(self) -> dict[str, Any]:
        return {"runs": [run.info() for run in self.runs.values()], "table": self.table, "figures": self.figures()}

    def figures(self) -> list[str]:
        return list(self._figures)

    def figure(self, name: str) -> bytes | None:
        """A figure of the study by its listed name, as read at start-up (nothing else is served)."""
        return self._figures.get(name)

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
