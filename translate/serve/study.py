"""A `translate compare` study served for side-by-side translation: each finished run with its
weights (the study's work folder) and its figures from the out folder (`compare.json`: test BLEU,
chrF, dev BLEU), the study's table (`results.json`) and figures (PNG). Runs are loaded when first
asked for, at most `max_loaded` at a time (least recently used ones are let go).

A study folder is data from wherever it came from, read once when the server starts: every file is
opened inside the folder without following a symlink, must be a regular file under its size bound
(and all of them under `MAX_STUDY_BYTES`), and JSON must have the shape the study writes. A folder
that breaks a rule is refused with one line that names the file and the fault; requests are answered
from what was read, never from the disk. A run's weights are checked at start as strictly (regular
files and folders, no symlink, no FIFO, under `MAX_RUN_BYTES` each and `MAX_WEIGHTS_BYTES` in all, a
safetensors header that reads) and loaded on first use outside the study's lock; a run whose weights
fail to load answers `RunUnavailable` (409) with one line from then on."""

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

from translate.errors import ConfigError
from translate.inference.build import load_translator
from translate.inference.translator import Translator

PREFIX = "study/"  # a run's model name in the server: never the name of a served model
_FIGURE = re.compile(r"^[\w.+-]+\.png$")
_RUN = re.compile(r"^[\w.+-]+$")
MAX_JSON_BYTES = 4 * 2**20  # compare.json or results.json
MAX_FIGURE_BYTES = 8 * 2**20  # one PNG
MAX_FIGURES_BYTES = 64 * 2**20  # all of them
MAX_RUNS = 1_000
MAX_STUDY_BYTES = 64 * 2**20  # every JSON and hypotheses file together (the largest committed study: 3.3 MB, 58 MB read)
MAX_RUN_BYTES = 512 * 2**20  # one run's weights folder
MAX_WEIGHTS_BYTES = 8 * 2**30  # every run's weights together
MAX_RUN_FILES = 64  # entries in one run's weights folder (and its best/)


class RunUnavailable(ConfigError):
    """A run whose weights could not be loaded (the one-line reason)."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class StudyRun:
    name: str
    mechanism: str
    seed: int
    scores: dict[str, Any]
    weights: Path | None  # None: the study's committed files only (scores, hypotheses, attention)
    hypotheses: tuple[str, ...] = ()  # its test translations (test.hyp.txt), one per test sentence
    attention: tuple[dict[str, Any], ...] = ()  # the matrices of a few test sentences (attention.json)

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "mechanism": self.mechanism, "seed": self.seed, "weights": self.weights is not None,
                "test_hypotheses": len(self.hypotheses), "attention_examples": len(self.attention),
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


class _Budget:
    """Bytes read from a study so far, against MAX_STUDY_BYTES."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.used = folder, 0

    def take(self, size: int) -> None:
        self.used += size
        if self.used > MAX_STUDY_BYTES:
            raise ConfigError(f"{self.folder}: the study's files hold over {MAX_STUDY_BYTES:,} bytes in all")



def read_json(path: Path, shape: type[dict[str, Any] | list[Any]] = dict, budget: _Budget | None = None) -> Any:
    """A study's JSON file, an object (or a list: `shape`), or ConfigError naming the file and what is wrong."""
    raw = read_regular(path, MAX_JSON_BYTES)
    if budget is not None:
        budget.take(len(raw))
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:
        raise ConfigError(f"{path}: not JSON this server reads ({type(exc).__name__}: nested too deeply or a "
                          f"number too long)") from None
    if not isinstance(data, shape):
        raise ConfigError(f"{path}: expected a JSON {'object' if shape is dict else 'list'}, got {type(data).__name__}")
    return data


def read_json_object(path: Path, budget: _Budget | None = None) -> dict[str, Any]:
    """A study's JSON file as an object (see `read_json`)."""
    found: dict[str, Any] = read_json(path, dict, budget)
    return found


def check_weights(folder: Path, inside: Path) -> int:
    """The bytes of a run's weights folder (the folder and its best/), checked as the study's files are:
    every entry a regular file or folder reached without a symlink, resolved inside `inside`, at most
    MAX_RUN_FILES entries and MAX_RUN_BYTES, and each model.safetensors with a header that reads; else
    ConfigError naming the entry and the fault. Nothing but the safetensors header is read."""
    total = 0
    for where in (folder, folder / "best"):
        if not (where.exists() or where.is_symlink()):
            continue
        if where.is_symlink() or not where.is_dir() or not _inside(inside, where):
            raise ConfigError(f"{where}: a run's weights folder must be a folder inside {inside}, not a link (refused)")
        entries = sorted(os.scandir(where), key=lambda e: e.name)
        if len(entries) > MAX_RUN_FILES:
            raise ConfigError(f"{where}: {len(entries):,} entries; a run's weights folder may hold {MAX_RUN_FILES}")
        for entry in entries:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "not a regular file"
                raise ConfigError(f"{entry.path}: {kind} among a run's weights (refused)")
            total += info.st_size
            if entry.name == "model.safetensors":
                _check_safetensors(Path(entry.path), info.st_size)
    if total > MAX_RUN_BYTES:
        raise ConfigError(f"{folder}: its weights hold {total:,} bytes; a run's may hold at most {MAX_RUN_BYTES:,}")
    return total


def _check_safetensors(path: Path, size: int) -> None:
    """The safetensors header: an 8-byte length, then that much JSON inside the file (tensors untouched)."""
    head = _first_bytes(path, 8)
    length = int.from_bytes(head, "little") if len(head) == 8 else -1
    if not 0 < length <= min(size - 8, 100 * 2**20):
        raise ConfigError(f"{path}: not a safetensors file (its header does not read)")
    try:
        header = json.loads(_first_bytes(path, 8 + length)[8:])
    except (UnicodeDecodeError, ValueError):
        raise ConfigError(f"{path}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise ConfigError(f"{path}: not a safetensors file (its header is not an object)")


def _first_bytes(path: Path, count: int) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        return os.read(fd, count)
    finally:
        os.close(fd)


def _inside(folder: Path, child: Path) -> bool:
    """Whether `child`, resolved, lies inside `folder`, resolved (no link leads out)."""
    return child.resolve().is_relative_to(folder.resolve())


class Study:
    def __init__(self, out_dir: Path, work_dir: Path | None = None, max_loaded: int = 4) -> None:
        if not (out_dir / "runs").is_dir():
            raise ConfigError(f"--study {out_dir}: not a translate compare folder (no runs/ in it); give the folder "
                              f"passed to translate compare --out")
        if (out_dir / "runs").is_symlink():
            raise ConfigError(f"--study {out_dir}: its runs/ is a symlink (refused: a study is served from its own folder)")
        if work_dir is not None and work_dir.is_symlink():
            raise ConfigError(f"--study-runs {work_dir}: a symlink (refused: give the folder itself)")
        self.out_dir, self.work_dir, self.max_loaded = out_dir, work_dir or out_dir / "runs", max_loaded
        self._budget = _Budget(out_dir)
        self.runs = self._read_runs()
        if not self.runs:
            raise ConfigError(f"--study {out_dir}: no finished run (a run needs runs/<run>/compare.json, as "
                              f"translate compare writes it)")
        self.table = self._read_table()
        self._figures = self._read_figures()
        self._loaded: OrderedDict[str, Translator] = OrderedDict()
        self._failed: dict[str, str] = {}  # run -> why its weights did not load
        self._lock = threading.Lock()  # the tables above, never held while loading
        self._loading = {name: threading.Lock() for name in self.runs}  # one load of a run at a time
        self.test_set = TestSet.of(list(self.runs.values()))

    def _read_runs(self) -> dict[str, StudyRun]:
        runs: dict[str, StudyRun] = {}
        folders = sorted(p for p in (self.out_dir / "runs").iterdir() if _RUN.match(p.name))
        weights_bytes = 0
        for folder in folders[:MAX_RUNS]:
            results = folder / "compare.json"
            if folder.is_symlink() or not (results.exists() or results.is_symlink()):
                continue
            found = self.work_dir / folder.name
            weights = found if any((w.exists() or w.is_symlink())
                                   for w in (found / "best" / "model.safetensors", found / "model.safetensors")) else None
            if weights is not None:
                weights_bytes += check_weights(weights, self.work_dir)
                if weights_bytes > MAX_WEIGHTS_BYTES:
                    raise ConfigError(f"{self.work_dir}: the runs' weights hold over {MAX_WEIGHTS_BYTES:,} bytes in all")
            scores = read_json_object(results, self._budget)
            seed = scores.get("seed", 0)
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise ConfigError(f"{results}: seed must be an integer, got {str(seed)[:40]!r}")
            mechanism = scores.get("mechanism", "")
            if not isinstance(mechanism, str):
                raise ConfigError(f"{results}: mechanism must be a string, got {type(mechanism).__name__}")
            runs[folder.name] = StudyRun(folder.name, mechanism, seed, scores, weights,
                                         _read_lines(folder / "test.hyp.txt", self._budget),
                                         _read_attention(folder / "attention.json", self._budget))
        return runs

    def _read_table(self) -> list[dict[str, Any]]:
        path = self.out_dir / "results.json"
        if not (path.exists() or path.is_symlink()):
            return []
        rows = read_json_object(path, self._budget).get("rows", [])
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
        """The run's translator, loaded on first use (thread-safe; the study's lock is not held while a
        run loads, so other runs and routes go on); LookupError for a run whose weights are not here,
        RunUnavailable (one line) for one whose weights failed to load, then and on every later call."""
        run = self.runs.get(name)
        if run is None:
            raise KeyError(name)
        if run.weights is None:
            raise LookupError(name)
        with self._loading[name]:
            with self._lock:
                if name in self._failed:
                    raise RunUnavailable(self._failed[name])
                if name in self._loaded:
                    self._loaded.move_to_end(name)
                    return self._loaded[name]
            try:
                translator = load_translator(run.weights)
            except Exception as exc:  # noqa: BLE001 - any fault of the files: one line, kept
                reason = f"run {name}: its weights did not load ({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''})"
                with self._lock:
                    self._failed[name] = reason
                raise RunUnavailable(reason) from None
            with self._lock:
                self._loaded[name] = translator
                while len(self._loaded) > self.max_loaded:
                    self._loaded.popitem(last=False)
            return translator


MAX_ATTENTION_EXAMPLES = 32
MAX_PIECES = 512


def _read_lines(path: Path, budget: _Budget | None = None) -> tuple[str, ...]:
    """A run's hypotheses file as lines (none when the file is absent)."""
    if not (path.exists() or path.is_symlink()):
        return ()
    raw = read_regular(path, MAX_JSON_BYTES)
    if budget is not None:
        budget.take(len(raw))
    try:
        return tuple(raw.decode("utf-8").splitlines())
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None


def _read_attention(path: Path, budget: _Budget | None = None) -> tuple[dict[str, Any], ...]:
    """attention.json: a list of {source, source_pieces, target_pieces, weights[target][source]} (checked)."""
    if not (path.exists() or path.is_symlink()):
        return ()
    data: list[Any] = read_json(path, list, budget)
    examples = []
    for number, item in enumerate(data[:MAX_ATTENTION_EXAMPLES], start=1):
        where = f"{path}: example {number}"
        if not isinstance(item, dict):
            raise ConfigError(f"{where}: expected an object")
        source, target, weights = item.get("source_pieces"), item.get("target_pieces"), item.get("weights")
        if not (isinstance(source, list) and isinstance(target, list) and isinstance(weights, list)
                and all(isinstance(p, str) for p in [*source, *target]) and len(source) <= MAX_PIECES
                and len(target) <= MAX_PIECES and len(weights) == len(target)
                and all(isinstance(row, list) and len(row) == len(source)
                        and all(isinstance(w, int | float) and not isinstance(w, bool) for w in row) for row in weights)):
            raise ConfigError(f"{where}: source_pieces, target_pieces and weights[target][source] do not fit together")
        examples.append({"source": str(item.get("source", ""))[:2000], "source_pieces": source,
                         "target_pieces": target, "weights": weights})
    return tuple(examples)


@dataclass
class TestSet:
    """The runs' test translations beside the test split's references, when the hypotheses are those of
    the bundled Tatoeba test split (as many lines; the target language read from the hypotheses' script)."""

    sources: list[str]
    references: list[str]
    target: str
    chrf: dict[str, list[float]]

    @classmethod
    def of(cls, runs: list[StudyRun]) -> TestSet | None:
        from translate.config.schema import DataConfig
        from translate.data.cleaning import detect_language
        from translate.data.corpus import load_eval_split

        with_hypotheses = [run for run in runs if run.hypotheses]
        if not with_hypotheses:
            return None
        target = detect_language(" ".join(with_hypotheses[0].hypotheses[:200]))
        source = "zh" if target == "en" else "en"
        sources, references = load_eval_split(DataConfig(direction=f"{source}-{target}"), "test")  # type: ignore[arg-type]
        if any(len(run.hypotheses) != len(references) for run in with_hypotheses):
            return None
        return cls(sources, references, target, {})

    def rows(self, runs: list[StudyRun], limit: int) -> list[dict[str, Any]]:
        """The test sentences on which `runs` disagree most (the spread of their sentence chrF), each with
        its reference and every run's translation and sentence chrF."""
        from translate.evaluation.metrics import sentence_chrf

        for run in runs:
            if run.name not in self.chrf:
                self.chrf[run.name] = [round(c, 1) for c in sentence_chrf(list(run.hypotheses), self.references)]
        spread = [max(self.chrf[r.name][i] for r in runs) - min(self.chrf[r.name][i] for r in runs)
                  for i in range(len(self.references))]
        order = sorted(range(len(spread)), key=lambda i: (-spread[i], i))[:limit]
        return [{"line": i + 1, "source": self.sources[i], "reference": self.references[i], "spread": spread[i],
                 "translations": [{"run": r.name, "mechanism": r.mechanism, "translation": r.hypotheses[i],
                                   "chrf": self.chrf[r.name][i]} for r in runs]} for i in order]
