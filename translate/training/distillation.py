"""Sequence-level knowledge distillation (Kim and Rush 2016): a corpus whose targets are a teacher's
beam outputs, written as a dataset folder that `translate train --data-dir` reads.

The teacher (one model, an ensemble, a released model with its members) decodes the sources in
chunks of similar length; each chunk is appended to `teacher.tsv` and synced before the next starts,
so an interrupted run resumes where it stopped and gives the same corpus. When every line is
decoded, `train.tsv` is written from it: the distilled pairs in the corpus's order, filtered by
length ratio if asked, with the original references beside them if asked, and the dev and test
splits of the source folder copied unchanged (choices are made against real references).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from translate.config.schema import DecodeConfig
from translate.errors import DataError
from translate.inference.text_translator import TextTranslator, Translation
from translate.training.progress import duration

logger = logging.getLogger(__name__)

TEACHER_FILE = "teacher.tsv"  # line, source pieces, target pieces, score, hypothesis (one row per source line)
MANIFEST = "distil.json"
REPORT = "distil-report.json"
FORMAT = 1


@dataclass(frozen=True)
class DistilSettings:
    """What a distilled corpus depends on; a resumed run must be given the same."""

    teacher: str  # how the teacher was named (checkpoint paths or a released name, members included)
    direction: str
    source: str  # the corpus it decodes: folder and split
    lines: int
    beam_size: int
    length_penalty: float
    keep_references: bool = False
    max_length_ratio: float = 0.0  # 0 = no filter; see `length_filter`
    chunk_lines: int = 2000

    def __post_init__(self) -> None:
        if self.max_length_ratio and self.max_length_ratio <= 1:
            raise DataError(f"--max-length-ratio must be > 1 (or 0 for no filter), got {self.max_length_ratio}")
        if self.chunk_lines < 1:
            raise DataError(f"chunk_lines must be >= 1, got {self.chunk_lines}")


@dataclass(frozen=True)
class TeacherRow:
    line: int  # 0-based index in the corpus
    source_pieces: int
    target_pieces: int
    score: float
    hypothesis: str

    def tsv(self) -> str:
        return f"{self.line}\t{self.source_pieces}\t{self.target_pieces}\t{self.score:.6f}\t{self.hypothesis}\n"

    @classmethod
    def parse(cls, text: str, where: str) -> TeacherRow:
        parts = text.split("\t", 4)
        try:
            return cls(int(parts[0]), int(parts[1]), int(parts[2]), float(parts[3]), parts[4])
        except (IndexError, ValueError):
            raise DataError(f"{where}: not a teacher row (line, pieces, pieces, score, hypothesis); "
                            f"delete the folder to distil again") from None


@dataclass
class DistilReport:
    """Counts of the finished corpus, written to distil-report.json."""

    lines: int = 0
    distilled_pairs: int = 0
    reference_pairs: int = 0
    equal_to_reference: int = 0
    dropped_empty: int = 0
    dropped_short: int = 0
    dropped_long: int = 0
    median_length_ratio: float = 0.0
    decode_seconds: float = 0.0
    sentences_per_second: float = 0.0
    resumed_at: list[int] = field(default_factory=list)  # lines already decoded when a run resumed

    def summary(self) -> str:
        return (f"{self.distilled_pairs:,} distilled pairs of {self.lines:,} lines "
                f"({self.equal_to_reference:,} equal to the reference; dropped: {self.dropped_empty} empty, "
                f"{self.dropped_short} short, {self.dropped_long} long)"
                + (f" + {self.reference_pairs:,} reference pairs" if self.reference_pairs else ""))


def length_filter(rows: Sequence[TeacherRow], max_ratio: float) -> tuple[float, dict[int, str]]:
    """(median ratio, line -> "short" / "long") for the rows whose target/source piece ratio is more than
    `max_ratio` times below or above the corpus's median ratio (the median, not 1: Chinese and English
    take different numbers of pieces for one sentence); empty hypotheses are always "empty"."""
    ratios = [r.target_pieces / max(r.source_pieces, 1) for r in rows if r.target_pieces]
    median = statistics.median(ratios) if ratios else 0.0
    dropped: dict[int, str] = {}
    for row in rows:
        ratio = row.target_pieces / max(row.source_pieces, 1)
        if not row.hypothesis.strip() or not row.target_pieces:
            dropped[row.line] = "empty"
        elif max_ratio and ratio > median * max_ratio:
            dropped[row.line] = "long"
        elif max_ratio and ratio < median / max_ratio:
            dropped[row.line] = "short"
    return median, dropped


class Distiller:
    """Decodes `sources` with `translator` into `out`, resumably, then writes the distilled corpus."""

    def __init__(self, translator: TextTranslator, decode: DecodeConfig, sources: list[str], references: list[str],
                 settings: DistilSettings, out: Path, source_folder: Path | None = None) -> None:
        if len(sources) != settings.lines or len(references) != len(sources):
            raise DataError(f"{settings.source}: {len(sources)} sources, {len(references)} references, "
                            f"{settings.lines} lines expected")
        self.translator, self.decode, self.settings = translator, decode, settings
        self.sources, self.references, self.out, self.source_folder = sources, references, out, source_folder
        self.report = DistilReport(lines=len(sources))

    def run(self, progress: Callable[[str], None] = logger.info) -> DistilReport:
        self.out.mkdir(parents=True, exist_ok=True)
        self._check_manifest()
        done = self._read_rows(repair=True)
        if done:
            self.report.resumed_at.append(len(done))
            progress(f"resuming: {len(done):,} of {len(self.sources):,} lines already decoded in {self.out / TEACHER_FILE}")
        self._decode(done, progress)
        rows = self._read_rows(repair=False)
        if len(rows) != len(self.sources):
            raise DataError(f"{self.out / TEACHER_FILE}: {len(rows)} rows for {len(self.sources)} lines")
        self._write_corpus([rows[i] for i in range(len(self.sources))])
        return self.report

    def _check_manifest(self) -> None:
        path = self.out / MANIFEST
        decode = {k: v for k, v in asdict(self.decode).items() if k != "batch_size"}  # batches do not change results
        wanted = {"format": FORMAT, **asdict(self.settings), "decode": decode}
        if path.is_file():
            found = json.loads(path.read_text(encoding="utf-8"))
            changed = sorted(k for k in set(found) | set(wanted) if found.get(k) != wanted.get(k) and k != "stats")
            if changed:
                raise DataError(f"{path}: this folder distils with other settings ({', '.join(changed)} differ); "
                                f"give the same options to resume, or another --out")
            self.report = DistilReport(**{**asdict(self.report), **found.get("stats", {})})
            return
        if any(self.out.iterdir()):
            raise DataError(f"{self.out}: not empty and not a distillation folder (no {MANIFEST}); choose another --out")
        _write_atomic(path, json.dumps(wanted, indent=2, ensure_ascii=False) + "\n")

    def _read_rows(self, repair: bool) -> dict[int, TeacherRow]:
        """The rows decoded so far; with `repair`, a partly written last line (a crash mid-write) is cut off."""
        path = self.out / TEACHER_FILE
        if not path.is_file():
            return {}
        raw = path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw) and repair:
            with open(path, "r+b") as stream:
                stream.truncate(end)
        rows: dict[int, TeacherRow] = {}
        for number, text in enumerate(raw[:end].decode("utf-8").splitlines(), start=1):
            row = TeacherRow.parse(text, f"{path}:{number}")
            if not 0 <= row.line < len(self.sources):
                raise DataError(f"{path}:{number}: line {row.line} is outside the corpus ({len(self.sources)} lines)")
            rows[row.line] = row
        return rows

    def _decode(self, done: dict[int, TeacherRow], progress: Callable[[str], None]) -> None:
        source_pieces = [len(ids) - 1 for ids in self.translator.encode_sources(self.sources, warn=False)]  # without EOS
        order = sorted(range(len(self.sources)), key=lambda i: (source_pieces[i], i))
        todo = [i for i in order if i not in done]
        began, decoded = time.monotonic(), 0
        chunk = self.settings.chunk_lines
        with open(self.out / TEACHER_FILE, "a", encoding="utf-8") as stream:
            for start in range(0, len(todo), chunk):
                lines = todo[start:start + chunk]
                results = self.translator.translate_n_best([self.sources[i] for i in lines], self.decode)
                stream.write("".join(_row(i, source_pieces[i], hyps[0]).tsv() for i, hyps in zip(lines, results)))
                stream.flush()
                os.fsync(stream.fileno())
                decoded += len(lines)
                seconds = time.monotonic() - began
                rate = decoded / max(seconds, 1e-9)
                progress(f"distilled {len(done) + decoded:,}/{len(self.sources):,} lines, {rate:.1f} sentences/s, "
                         f"ETA {duration((len(todo) - decoded) / max(rate, 1e-9))}")
        self.report.decode_seconds += time.monotonic() - began
        self._save_stats()

    def _save_stats(self) -> None:
        path = self.out / MANIFEST
        found = json.loads(path.read_text(encoding="utf-8"))
        found["stats"] = {"decode_seconds": round(self.report.decode_seconds, 1), "resumed_at": self.report.resumed_at}
        _write_atomic(path, json.dumps(found, indent=2, ensure_ascii=False) + "\n")

    def _write_corpus(self, rows: list[TeacherRow]) -> None:
        src = self.settings.direction.split("-")[0]
        median, dropped = length_filter(rows, self.settings.max_length_ratio)
        report = self.report
        report.median_length_ratio = round(median, 4)
        report.sentences_per_second = round(len(rows) / max(report.decode_seconds, 1e-9), 2)
        lines = []
        for row, source, reference in zip(rows, self.sources, self.references):
            reason = dropped.get(row.line)
            if reason:
                setattr(report, f"dropped_{reason}", getattr(report, f"dropped_{reason}") + 1)
            else:
                report.distilled_pairs += 1
                report.equal_to_reference += row.hypothesis == reference
                lines.append(_pair(src, source, row.hypothesis))
            if self.settings.keep_references and (reason or row.hypothesis != reference):
                report.reference_pairs += 1
                lines.append(_pair(src, source, reference))
        _write_atomic(self.out / "train.tsv", "".join(lines))
        for split in ("dev.tsv", "test.tsv"):
            if self.source_folder is not None and (self.source_folder / split).is_file():
                shutil.copyfile(self.source_folder / split, self.out / split)
        _write_atomic(self.out / REPORT, json.dumps(asdict(report), indent=2) + "\n")


def _row(line: int, source_pieces: int, best: Translation) -> TeacherRow:
    text = best.text.replace("\t", " ").replace("\n", " ")
    return TeacherRow(line, source_pieces, len(best.tokens), best.score, text)


def _pair(src: str, source: str, target: str) -> str:
    """A TSV line with English first, as every corpus here is written."""
    return f"{source}\t{target}\n" if src == "en" else f"{target}\t{source}\n"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def distil_corpus(teachers: Sequence[str], out: Path, *, direction: str | None = None, data_dir: str = "",
                  split: str = "train", beam: int | None = None, ensemble: bool = False, engine: str = "torch",
                  lexicon: bool = False, keep_references: bool = False, max_length_ratio: float = 0.0,
                  batch_size: int | None = None, chunk_lines: int = 2000, device: str = "cpu",
                  progress: Callable[[str], None] = logger.info) -> DistilReport:
    """`translate distil`: the teacher (checkpoints, or the released model of `direction`; with its shipped
    members when `ensemble`) decodes `split` of `data_dir` (cleaned as training reads it) into `out`."""
    from translate.config.loading import apply_overrides
    from translate.config.paths import data_dir as resolve_data_dir
    from translate.config.schema import DataConfig
    from translate.data.corpus import read_clean
    from translate.inference.router import Router

    router = Router(list(teachers) or None, device, direction, engine, (), lexicon,
                    ensemble, lines=10_000)
    translator = router.translator(direction)
    found = f"{translator.src_lang}-{translator.tgt_lang}"
    if direction and found != direction:
        raise DataError(f"the teacher translates {found}, not {direction} (--direction)")
    cfg = DataConfig(data_dir=data_dir, direction=found)  # type: ignore[arg-type]
    report: list[str] = []
    text = read_clean(cfg, split, report)
    for line in report:
        progress(line)
    overrides: dict[str, object] = {"n_best": 1}
    if beam is not None:
        overrides["beam_size"] = beam
    if batch_size is not None:
        overrides["batch_size"] = batch_size
    decode = apply_overrides(translator.decode, overrides)
    names = [str(t) for t in teachers] or [found]
    settings = DistilSettings(teacher="+".join(names) + (" (with members)" if ensemble else ""), direction=found,
                              source=f"{resolve_data_dir(data_dir)}:{split}", lines=len(text),
                              beam_size=decode.beam_size, length_penalty=decode.length_penalty,
                              keep_references=keep_references, max_length_ratio=max_length_ratio,
                              chunk_lines=chunk_lines)
    source_folder = resolve_data_dir(data_dir) if cfg.format != "hf" else None
    distiller = Distiller(translator, decode, list(text[cfg.src_lang]), list(text[cfg.tgt_lang]), settings, out,
                          source_folder)
    return distiller.run(progress)
