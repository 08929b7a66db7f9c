"""`translate release RUN OUT`: a run's checkpoint as a released model, measured as users load it.

Writes an fp16 copy (no training state, no paths), the fast path's graphs (`onnx/`), test scores of
the released copy (beam 5 and greedy, sacrebleu signatures, sentences/s), BLEU by source length (the
study's groups, `translate.evaluation.by_length`), how often digits come through, and MODEL_CARD.md.
Ensemble members (other runs of the same direction and vocabularies) go in as fp16 copies under
`members/1/`, `members/2/`, ... and the ensemble's test scores beside the model's (`--ensemble` decodes
them). Releasing a released model again gives the same weights and scores (and keeps its members).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import torch

from translate.checkpoint.files import META
from translate.checkpoint.store import Loaded, load_checkpoint, save_checkpoint
from translate.config.loading import apply_overrides
from translate.config.paths import MEMBERS, ensemble_members
from translate.config.schema import ArtifactConfig, DataConfig
from translate.data.corpus import load_eval_split
from translate.data.repeats import stutters
from translate.evaluation.by_length import bleu_by_length, length_buckets
from translate.evaluation.evaluate import translate_and_score
from translate.evaluation.metrics import score
from translate.inference.build import load_translator
from translate.inference.fast.graphs import ship_graphs
from translate.inference.glossary import Glossary, term_use
from translate.inference.translator import Translator, check_loaded
from translate.inference.wrapping import with_glossaries
from translate.release.card import EVERYDAY, model_card
from translate.release.faithfulness import faithfulness
from translate.release.rule import everyday_dir

DIGITS = re.compile(r"\d+")
CARRIED = ("training", "extra_data", "stages", "recipe")  # facts a re-release keeps from the released meta.json


def digits_kept(sources: list[str], hyps: list[str]) -> dict[str, Any]:
    """Of the sources with digits, how many keep every digit string unchanged in the output (and which not)."""
    with_digits = [i for i, s in enumerate(sources) if DIGITS.search(s)]
    kept = [i for i in with_digits if all(d in hyps[i] for d in DIGITS.findall(sources[i]))]
    return {"sentences_with_digits": len(with_digits), "kept": len(kept),
            "share": round(len(kept) / max(len(with_digits), 1), 3), "lost": [i for i in with_digits if i not in kept]}


def stutter_counts(sources: list[str], hyps: list[str], refs: list[str], src_lang: str, tgt_lang: str) -> dict[str, int]:
    """How many translations and references of the test split stutter (`data.repeats.stutters`)."""
    return {"sentences": len(sources), "translations": sum(stutters(h, s, tgt_lang, src_lang) for h, s in zip(hyps, sources)),
            "references": sum(stutters(r, s, tgt_lang, src_lang) for r, s in zip(refs, sources))}


def training_facts(run: Path) -> dict[str, Any] | None:
    """Updates, epochs, minutes, best dev BLEU and why it stopped, from a run's train_summary.json."""
    path = run / "train_summary.json"
    if not path.is_file():
        return None
    summary = json.loads(path.read_text(encoding="utf-8"))
    state = summary.get("state", {})
    return {"updates": state.get("step"), "epochs": state.get("epoch"), "minutes": round(state.get("seconds", 0) / 60, 1),
            "sentence_pairs_seen": state.get("sentence_pairs"), "best_dev_bleu": state.get("best_bleu"),
            "stop_reason": summary.get("stop_reason")}


def _scores(translator: Translator, sources: list[str], refs: list[str], tgt_lang: str,
            beams: tuple[tuple[str, int], ...] = (("beam5", 5), ("greedy", 1))) -> tuple[dict[str, Any], list[str]]:
    """Scores and speed per (label, beam size), and the first one's hypotheses."""
    out: dict[str, Any] = {}
    hyps: list[str] = []
    as_users = with_glossaries(translator)  # with the names lexicon where the model's settings turn it on
    for label, beam in beams:
        decode = apply_overrides(translator.decode, {"beam_size": beam, "n_best": 1})
        result = translate_and_score(as_users, sources, refs, tgt_lang, decode)
        out[label] = {**result.report.to_dict(), "sentences_per_second": round(result.sentences_per_second, 1),
                      "threads": torch.get_num_threads()}
        hyps = hyps or result.hypotheses
    return out, hyps


def _previous_meta(loaded: Loaded) -> dict[str, Any]:
    """A checkpoint's meta.json without what a release writes anew (format, version, scores, members)."""
    return {k: v for k, v in loaded.meta.items() if k not in ("format_version", "version", "scores", "members")}


def _member_meta(loaded: Loaded, run: Path) -> dict[str, Any]:
    previous = _previous_meta(loaded)
    return {**previous, "training": training_facts(run) or previous.get("training", {})}


def _save_members(target: Path, members: list[tuple[Path, Loaded]]) -> tuple[list[Path], list[dict[str, Any]]]:
    """fp16 copies of the members as target/members/1/, 2/, ... (no graphs: an ensemble runs on
    PyTorch), and what the card tells of each (its run, seed, updates, minutes)."""
    folders, facts = [], []
    for k, (run, loaded) in enumerate(members, 1):
        folder = target / MEMBERS / str(k)
        meta = _member_meta(loaded, run)
        save_checkpoint(folder, loaded.artifact, loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer, meta, half=True)
        folders.append(folder)
        provenance = meta.get("provenance", {})  # the checkpoint's own, not the run's last state
        facts.append({"folder": f"{MEMBERS}/{k}", "run": provenance.get("run"), "seed": provenance.get("seed"),
                      "updates": provenance.get("updates") or meta.get("step"),
                      "minutes": provenance.get("training_minutes"), "averaged_steps": meta.get("averaged_steps"),
                      "mechanism": loaded.artifact.model.mechanism, "hidden": loaded.artifact.model.hidden_size})
    return folders, facts


def release(run: Path, target: Path, recipe: str = "", extra_data: str = "", stages: str = "",
            length_penalty: float | None = None, data_dir: str | None = None, lexicon: bool | None = None,
            members: list[Path] | None = None, coverage_penalty: float | None = None,
            block_repeats: bool | None = None, keep_numbers: bool | None = None, names: str | None = None,
            block_ngrams: int | None = None, keep_negation: bool | None = None,
            no_added_numbers: bool | None = None, numerals_as_digits: bool | None = None,
            chinese_punctuation: bool | None = None, number_standins: bool | None = None,
            no_doubled_numbers: bool | None = None, date_standins: bool | None = None,
            clock_standins: bool | None = None, dates_in_words: bool | None = None,
            no_made_up_words: bool | None = None, no_added_negation: bool | None = None) -> str:
    """Release `run` (a run folder, whose best/ is taken, or a checkpoint) as `target`, scored on the test
    split of `data_dir` (default: the bundled Tatoeba split); returns the model card. `length_penalty`,
    `coverage_penalty`, `lexicon`, `block_repeats`, `block_ngrams`, `keep_numbers`, `keep_negation`, `no_added_numbers`,
    `numerals_as_digits`, `chinese_punctuation`, `number_standins`, `no_doubled_numbers`, `date_standins`, `clock_standins`, `dates_in_words`, `no_made_up_words`,
    `no_added_negation`, `names`:
    decoding settings stored in the
    release (None: the checkpoint's); `members`: runs or checkpoints shipped with it for ensemble decoding
    (None: the members `run` already ships)."""
    loaded = load_checkpoint(run)
    member_runs = ensemble_members(run) if members is None else members
    extra = [(path, load_checkpoint(path)) for path in member_runs]  # in memory before `target` is replaced
    check_loaded([loaded, *(m for _, m in extra)])
    artifact = loaded.artifact
    settings = {"length_penalty": length_penalty, "coverage_penalty": coverage_penalty, "lexicon": lexicon,
                "block_repeats": block_repeats, "block_ngrams": block_ngrams, "keep_numbers": keep_numbers,
                "keep_negation": keep_negation, "no_added_numbers": no_added_numbers,
                "numerals_as_digits": numerals_as_digits, "chinese_punctuation": chinese_punctuation,
                "number_standins": number_standins, "no_doubled_numbers": no_doubled_numbers,
                "date_standins": date_standins, "clock_standins": clock_standins, "dates_in_words": dates_in_words,
                "no_made_up_words": no_made_up_words, "no_added_negation": no_added_negation,
                "names": names}
    artifact = apply_overrides(artifact, {f"decode.{k}": v for k, v in settings.items() if v is not None})
    previous = _previous_meta(loaded)
    facts = _carried_facts(previous, run, artifact.direction, recipe=recipe, extra_data=extra_data, stages=stages)
    save_checkpoint(target, artifact, loaded.model, loaded.src_tokenizer, loaded.tgt_tokenizer,
                    {**previous, **facts}, half=True)
    ship_graphs(target)
    member_folders, member_facts = _save_members(target, extra)
    translator = load_translator(target)  # the fp16 copy, as users load it
    data = apply_overrides(DataConfig(), {"direction": artifact.direction, **({"data_dir": data_dir} if data_dir else {})})
    sources, refs = load_eval_split(data, "test")
    test, hyps = _scores(translator, sources, refs, artifact.tgt_lang)
    buckets = length_buckets(sources, artifact.src_lang)
    digits = digits_kept(sources, hyps)
    everyday = everyday_scores(translator, artifact.direction)
    if member_folders:
        facts["members"] = member_facts
        test["ensemble"], everyday_ensemble = _ensemble_scores([target, *member_folders], sources, refs)
        if everyday is not None and everyday_ensemble is not None:
            everyday["ensemble"] = everyday_ensemble
    if everyday is not None:
        facts["everyday"] = everyday
    facts.update(scores={"test": test}, digits_kept={k: v for k, v in digits.items() if k != "lost"},
                 stutter=stutter_counts(sources, hyps, refs, artifact.src_lang, artifact.tgt_lang),
                 faithfulness=faithfulness(translator, with_glossaries(translator), sources, refs, hyps),
                 bleu_by_length={"unit": "characters" if artifact.src_lang == "zh" else "words",
                                 "groups": [{"label": b.label, "sentences": len(b.indices)} for b in buckets],
                                 "bleu": [round(b, 2) for b in bleu_by_length([hyps], refs, buckets, artifact.tgt_lang)]})
    meta = json.loads((target / META).read_text(encoding="utf-8"))
    (target / META).write_text(json.dumps({**meta, **facts}, indent=1, ensure_ascii=False, sort_keys=True),
                               encoding="utf-8")
    card_facts = {**facts, **_card_facts(translator, artifact), "digits_kept": digits}
    examples = EVERYDAY[artifact.src_lang]
    card = model_card(target.name, card_facts, (sources, refs, hyps), list(zip(examples, with_glossaries(translator).translate(examples))))
    (target / "MODEL_CARD.md").write_text(card, encoding="utf-8")
    return card


def _ensemble_scores(models: list[Path], sources: list[str], refs: list[str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The released model decoded with its members as users decode it (`--ensemble`): beam-5 test
    scores, and BLEU/chrF on the everyday set where it is at hand."""
    ensemble = load_translator(models)
    test, _ = _scores(ensemble, sources, refs, ensemble.tgt_lang, (("ensemble", 5),))
    return {**test["ensemble"], "models": len(models)}, everyday_scores(ensemble, f"{ensemble.src_lang}-{ensemble.tgt_lang}", glossary=False)


def _card_facts(translator: Translator, artifact: ArtifactConfig) -> dict[str, Any]:
    """What the card tells of the released model itself: size, vocabularies, decoding, architecture."""
    model = artifact.model
    return {"parameters": translator.model.num_parameters(),
            "vocab": (len(translator.src_tokenizer), len(translator.tgt_tokenizer)),
            "length_penalty": translator.decode.length_penalty,
            "coverage_penalty": translator.decode.coverage_penalty, "lexicon": translator.decode.lexicon,
            "block_repeats": translator.decode.block_repeats, "block_ngrams": translator.decode.block_ngrams,
            "keep_numbers": translator.decode.keep_numbers, "keep_negation": translator.decode.keep_negation,
            "no_added_numbers": translator.decode.no_added_numbers,
            "numerals_as_digits": translator.decode.numerals_as_digits,
            "number_standins": translator.decode.number_standins,
            "no_doubled_numbers": translator.decode.no_doubled_numbers,
            "date_standins": translator.decode.date_standins,
            "clock_standins": translator.decode.clock_standins,
            "dates_in_words": translator.decode.dates_in_words,
            "no_made_up_words": translator.decode.no_made_up_words,
            "no_added_negation": translator.decode.no_added_negation,
            "chinese_punctuation": translator.decode.chinese_punctuation,
            "names": translator.decode.names,
            "artifact": {
                "direction": artifact.direction, "architecture": (
                    f"{model.rnn_type.upper()} hidden {model.hidden_size}, {model.encoder_layers}+"
                    f"{model.decoder_layers} layers (bidirectional encoder), attention {model.mechanism}")}}


def _carried_facts(previous: dict[str, Any], run: Path, direction: str, **given: str) -> dict[str, Any]:
    """What the card tells of the training: the facts a re-release keeps, those given now (recipe,
    extra_data, stages) and the run's training summary."""
    facts = {**{k: previous[k] for k in CARRIED if k in previous}, **{k: v for k, v in given.items() if v}}
    facts["training"] = training_facts(run) or previous.get("training", {})
    facts.setdefault("recipe", f"translate train -c recipes/{direction}.yaml")
    return facts


def everyday_scores(translator: Translator, direction: str, glossary: bool = True) -> dict[str, Any] | None:
    """BLEU/chrF on the project's out-of-domain dev set (data/everyday, in a checkout) with the model's
    decoding settings, without and (with `glossary`) with the set's glossary; None where the set is not
    at hand (an installed package)."""
    folder = everyday_dir()
    if not (folder / "dev.tsv").is_file():
        return None
    sources, refs = load_eval_split(apply_overrides(DataConfig(), {"direction": direction, "data_dir": str(folder)}),
                                    "dev")
    plain = translate_and_score(with_glossaries(translator), sources, refs, translator.tgt_lang).report
    figures: dict[str, Any] = {"sentences": len(sources), "bleu": round(plain.bleu, 2), "chrf": round(plain.chrf, 2)}
    if glossary and (folder / "glossary.tsv").is_file():
        terms = Glossary.read(folder / "glossary.tsv")
        hyps = with_glossaries(translator, [terms]).translate(sources)
        report = score(hyps, refs, translator.tgt_lang)
        used, total = term_use(terms, sources, hyps, translator.src_lang, translator.tgt_lang)
        figures["with_glossary"] = {"bleu": round(report.bleu, 2), "chrf": round(report.chrf, 2),
                                    "terms_used": used, "terms": total}
    return figures


def timed_release(run: Path, target: Path, **options: Any) -> tuple[str, float, float]:
    """`release`, with its wall time (s) and the released folder's size (MB)."""
    began = time.perf_counter()
    card = release(run, target, **options)
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file()) / 1e6
    return card, time.perf_counter() - began, size
