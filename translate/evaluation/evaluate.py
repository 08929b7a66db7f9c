"""Evaluation: the one translate -> time -> score -> write routine, and `translate evaluate`.

`translate_and_score` is what the CLI, `translate compare`, `translate release` and the benchmarks
call. Evaluating a checkpoint of a run writes hypotheses and a report under the run folder; a
checkpoint outside a run (a released model), or one decoded with other settings (`overrides`), only
prints, unless `output` is given. Nothing is ever written into a checkpoint.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from translate.checkpoint.files import resolve
from translate.config.loading import MOVED_ATTENTION_KEYS, apply_overrides, load_config, moved_key_error
from translate.config.schema import DataConfig, DecodeConfig
from translate.data.corpus import load_eval_split
from translate.errors import ConfigError, DataError
from translate.evaluation.adequacy import Adequacy, Dictionary, cedict_dictionary, measure
from translate.evaluation.metrics import EvalReport, score
from translate.inference.build import load_translator, model_paths
from translate.inference.glossary import Glossary, GlossaryTranslator, Numbers, term_use
from translate.inference.standins import STANDINS, StandInTranslator
from translate.inference.text_translator import TextTranslator
from translate.inference.translator import Translator
from translate.inference.wrapping import with_glossaries
from translate.model import Seq2Seq
from translate.model.attention.base import NoAttention

RUN_CHECKPOINTS = ("best", "last", "best.old", "last.old")


@dataclass
class Evaluation:
    report: EvalReport
    hypotheses: list[str]
    seconds: float  # generation time (tokenisation and search), without loading the model
    terms: tuple[int, int] | None = None  # with a glossary: (terms used, terms in the sources)
    adequacy: Adequacy | None = None  # dropped and repeated content, where it was measured

    @property
    def sentences_per_second(self) -> float:
        return self.report.sentences / max(self.seconds, 1e-9)


def translate_and_score(translator: TextTranslator, sources: list[str], refs: list[str], tgt_lang: str,
                        decode: DecodeConfig | None = None, hypotheses_path: Path | None = None) -> Evaluation:
    """Translate `sources` (timed), score against `refs`, optionally write the hypotheses (one per line)."""
    began = time.perf_counter()
    hyps = translator.translate(sources, decode)
    seconds = time.perf_counter() - began
    if hypotheses_path is not None:
        hypotheses_path.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    return Evaluation(score(hyps, refs, tgt_lang), hyps, seconds)


def measure_adequacy(translator: Translator, sources: list[str], hypotheses: list[str], refs: list[str] | None,
                     src_lang: str, tgt_lang: str, batch: int = 64) -> Adequacy:
    """The dropped/repeated content measures of `hypotheses`: the attention measure where the model is one
    with attention, the dictionary one where CC-CEDICT is installed."""
    alignments = None
    if isinstance(translator.model, Seq2Seq) and not isinstance(translator.model.decoder.attention, NoAttention):
        ids = translator.tgt_tokenizer.encode(hypotheses)
        alignments = [a for i in range(0, len(sources), batch)
                      for a in translator.align(sources[i:i + batch], ids[i:i + batch])]
    dictionary: Dictionary | None
    try:
        dictionary = cedict_dictionary()
    except DataError:
        dictionary = None
    return measure(sources, hypotheses, src_lang, tgt_lang, refs, alignments, dictionary)


def _run_folder(ckpt: Path) -> Path | None:
    return ckpt.parent if ckpt.name in RUN_CHECKPOINTS and (ckpt.parent / "config.yaml").is_file() else None


def _data_config(run: Path | None, direction: str, data_dir: str | None) -> DataConfig:
    """A run's own data settings; the bundled corpus for a checkpoint on its own; `data_dir` wins."""
    data = load_config(run / "config.yaml").data if run is not None else DataConfig()
    overrides: dict[str, Any] = {"direction": direction}
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return apply_overrides(data, overrides)


def split_overrides(overrides: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`--set` keys that may change at decoding time: (model.attention.* without the prefix, decode.*
    without the prefix); anything else defines the trained model or its data and is refused."""
    attention, decode = {}, {}
    for key, value in overrides.items():
        if key.startswith("model.attention."):
            if key.removeprefix("model.attention.") in MOVED_ATTENTION_KEYS:
                raise moved_key_error(key)
            attention[key.removeprefix("model.attention.")] = value
        elif key.startswith("decode."):
            decode[key.removeprefix("decode.")] = value
        else:
            raise ConfigError(f"--set {key}: only model.attention.* (decode the same weights with other attention "
                              f"settings) and decode.* can change when evaluating a trained model")
    return attention, decode


def evaluation_translator(ckpts: list[Path], device: str, overrides: dict[str, Any], beam: int | None) -> Translator:
    """The translator of one checkpoint, or of several as an ensemble, with `--set` and `--beam` applied."""
    attention, decode = split_overrides(overrides)
    return load_translator(ckpts, device=device, attention=attention,
                           decode={**decode, **({"beam_size": beam, "n_best": 1} if beam is not None else {})})


def _checkpoints(checkpoint: Path | str | Sequence[Path | str], ensemble: bool = False) -> list[Path]:
    """The checkpoints to load (a run folder: its best/), with each model's shipped members for `ensemble`."""
    return [resolve(path) for path in model_paths(checkpoint, ensemble)]


def evaluate_checkpoint(checkpoint: Path | str | Sequence[Path | str], split: str, data_dir: str | None = None,
                        beam: int | None = None, output: Path | None = None, direction: str | None = None,
                        device: str = "cpu", overrides: dict[str, Any] | None = None,
                        glossary: Glossary | Sequence[Glossary] | None = None,
                        lexicon: bool | None = None, ensemble: bool = False,
                        adequacy: bool = True) -> tuple[Evaluation, list[Path]]:
    """Translate dev or test with a checkpoint (or an ensemble: a list of several) and score it; returns
    the evaluation and the files written. `overrides`: `--set` keys of model.attention.* and decode.*
    (see `split_overrides`); `glossary`: terms the translations must hold (one glossary, or several);
    `lexicon`: the names lexicon too (None: as the model's `decode.lexicon` says). Where there are terms,
    their use is counted; `ensemble`: each model with the members shipped in its folder; `adequacy`: the
    dropped/repeated content measures too (`translate.evaluation.adequacy`)."""
    ckpts = _checkpoints(checkpoint, ensemble)
    ckpt = ckpts[0]
    translator = evaluation_translator(ckpts, device, overrides or {}, beam)
    artifact_direction = f"{translator.src_lang}-{translator.tgt_lang}"
    if direction is not None and direction != artifact_direction:
        raise ConfigError(f"the checkpoint translates {artifact_direction}, but {direction} was asked for; "
                          f"use a {direction} checkpoint (see `translate info --checkpoint {checkpoint}`)")
    decode = translator.decode
    run = _run_folder(ckpt) if len(ckpts) == 1 else None
    data = _data_config(run, artifact_direction, data_dir)
    sources, refs = load_eval_split(data, split)
    user_terms = [glossary] if isinstance(glossary, Glossary) else list(glossary or [])
    with_terms = with_glossaries(translator, user_terms, lexicon)
    hyp_path: Path | None
    report_path: Path | None
    if output is not None:
        hyp_path, report_path = output, output.with_name(output.name + ".report.json")
    elif run is not None and not overrides and not user_terms and lexicon is None:
        hyp_path = run / f"{split}.{ckpt.name}.beam{decode.beam_size}.hyp.txt"
        report_path = run / f"report.{split}.json"
    else:
        hyp_path = report_path = None
    load_before = os.getloadavg()  # a busy machine shows in the report's timings
    result = translate_and_score(with_terms, sources, refs, data.tgt_lang, decode, hyp_path)
    load_after = os.getloadavg()
    glossed = with_terms.inner if isinstance(with_terms, StandInTranslator) else with_terms
    if isinstance(glossed, GlossaryTranslator):  # numbers: the adequacy report's; stand-ins: no one's terms
        terms = [g for g in glossed.glossaries if not isinstance(g, Numbers) and g is not STANDINS]
        result.terms = term_use(terms, sources, result.hypotheses, data.src_lang, data.tgt_lang) if terms else None
    if adequacy:
        result.adequacy = measure_adequacy(translator, sources, result.hypotheses, refs, data.src_lang, data.tgt_lang)
    if report_path is None or hyp_path is None:
        return result, []
    record = {"checkpoint": str(ckpt) if len(ckpts) == 1 else [str(c) for c in ckpts], "split": split, **result.report.to_dict(), "decode": dataclasses.asdict(decode),
              **({"overrides": overrides} if overrides else {}),
              **({"glossary_terms_used": list(result.terms)} if result.terms else {}),
              **({"adequacy": result.adequacy.to_dict()} if result.adequacy else {}),
              "decode_seconds": round(result.seconds, 2),
              "load_average": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after]},
              "sentences_per_second": round(result.sentences_per_second, 1), "hypotheses": str(hyp_path)}
    report_path.write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
    return result, [hyp_path, report_path]



@dataclass
class PenaltyRow:
    alpha: float  # length penalty (GNMT alpha)
    beta: float  # coverage penalty (GNMT beta)
    report: EvalReport  # with the length ratio (hypothesis / reference length)


def tune_penalties(checkpoint: Path | str | Sequence[Path | str], alphas: list[float] | None = None,
                   betas: list[float] | None = None, split: str = "dev", data_dir: str | None = None,
                   device: str = "cpu", overrides: dict[str, Any] | None = None, ensemble: bool = False,
                   lexicon: bool | None = None) -> list[PenaltyRow]:
    """Dev scores of the checkpoint's (or ensemble's) beam search for every length penalty (GNMT alpha) x
    coverage penalty (GNMT beta), alphas outer; a list not given is the model's own setting. `lexicon`: the
    names lexicon too (None: as the model's `decode.lexicon` says)."""
    ckpts = _checkpoints(checkpoint, ensemble)
    translator = evaluation_translator(ckpts, device, overrides or {}, None)
    direction = f"{translator.src_lang}-{translator.tgt_lang}"
    data = _data_config(_run_folder(ckpts[0]) if len(ckpts) == 1 else None, direction, data_dir)
    sources, refs = load_eval_split(data, split)
    rows, as_users = [], with_glossaries(translator, (), lexicon)
    for alpha in alphas or [translator.decode.length_penalty]:
        for beta in betas or [translator.decode.coverage_penalty]:
            decode = apply_overrides(translator.decode, {"length_penalty": alpha, "coverage_penalty": beta})
            report = translate_and_score(as_users, sources, refs, data.tgt_lang, decode).report
            rows.append(PenaltyRow(alpha, beta, report))
    return rows
