"""The models a server holds, found by name or by direction, and the work of one batch."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from translate.checkpoint.files import read_artifact, read_meta, resolve
from translate.config.device import resolve_device
from translate.config.paths import released_models
from translate.config.schema import ArtifactConfig
from translate.data.normalize import join_translations, normalize_source, split_text
from translate.errors import ConfigError
from translate.evaluation.adequacy import received_attention
from translate.inference.build import load_translator, model_paths, resolve_engine
from translate.inference.glossary import Glossary
from translate.inference.notices import reading_notices
from translate.inference.standins import align
from translate.inference.text_translator import TextTranslator
from translate.inference.translator import MAX_SOURCE_TOKENS, Alignment, Translator
from translate.inference.wrapping import with_glossaries
from translate.serve.study import PREFIX, Study
from translate.tokens import EOS_ID


class BatchKey(NamedTuple):
    """Texts are batched together only when all of these agree."""

    model: str
    beam: int
    n_best: int
    attention: bool
    glossary: tuple[tuple[str, str], ...] = ()
    lexicon: bool | None = None
    align: bool = False  # attention computed (for placing inline tags) even where it is not sent


@dataclass
class ServedModel:
    name: str
    translator: Translator  # PyTorch: attention views, and every search where `searcher` is None
    artifact: ArtifactConfig
    meta: dict[str, Any]
    searcher: TextTranslator | None = None  # ONNX Runtime, where the router would choose it: searches without attention

    def info(self) -> dict[str, Any]:
        a = self.artifact
        return {"name": self.name, "direction": a.direction, "source": a.src_lang, "target": a.tgt_lang,
                "mechanism": a.model.mechanism, "heads": a.model.attention.multihead.heads if a.model.attention.kind == "multihead" else None,
                "parameters": self.translator.model.num_parameters(), "step": self.meta.get("step"),
                "scores": self.meta.get("scores", {}), "lexicon": self.translator.decode.lexicon}


def _parse_spec(spec: str) -> tuple[str, str]:
    """`name=path`, or a path / released name whose folder name becomes the model's name."""
    if "+" in spec and "=" not in spec:
        raise ConfigError(f"--models {spec!r}: an ensemble needs a name: NAME=PATH+PATH")
    if "=" in spec:
        name, _, path = spec.partition("=")
        if not name or not path:
            raise ConfigError(f"--models {spec!r}: expected NAME=PATH")
        return name, path
    return Path(spec).name or spec, spec


class Models:
    def __init__(self, served: list[ServedModel], study: Study | None = None) -> None:
        """`study`: a `translate compare` study whose runs are searched under `study.PREFIX + run name`."""
        if not served:
            raise ConfigError("no models to serve: give --models (checkpoint folders or released names)")
        self.by_name = {m.name: m for m in served}
        if len(self.by_name) != len(served):
            raise ConfigError(f"--models: two models share a name ({', '.join(m.name for m in served)}); use NAME=PATH")
        self.study = study

    def translator(self, name: str) -> Translator:
        """A served model's translator, or a study run's (`study/<run>`, loaded when first asked for)."""
        if name.startswith(PREFIX) and self.study is not None:
            return self.study.translator(name.removeprefix(PREFIX))
        return self.by_name[name].translator

    @classmethod
    def load(cls, specs: list[str] | None, device: str = "cpu", ensemble: bool = False) -> Models:
        """The given checkpoints, or every released model (both directions when installed). A spec
        `NAME=PATH+PATH...` serves an ensemble (see `inference.ensemble`) under NAME; `ensemble`: each
        model with the members shipped in its folder (`config.paths.with_members`)."""
        served = []
        for name, path in map(_parse_spec, specs or released_models()):
            paths = model_paths(path.split("+"), ensemble)
            translator = load_translator(paths, engine="torch", device=device)
            searcher = None
            if resolve_engine("auto", str(resolve_device(device)), attention=False) == "onnx":
                searcher = load_translator(paths, engine="onnx", threads=1)
            folder = resolve(paths[0])
            meta = read_meta(folder)
            served.append(ServedModel(name, translator, read_artifact(folder, meta, notice=False), meta, searcher))
        return cls(served)

    def searcher(self, key: BatchKey) -> TextTranslator:
        """What searches a batch: ONNX Runtime where a served model has it and no attention is asked
        (`inference.build.resolve_engine`'s rule), else the PyTorch translator."""
        served = self.by_name.get(key.model)
        if served is not None and served.searcher is not None and not key.attention:
            return served.searcher
        return self.translator(key.model)

    def for_direction(self, direction: str) -> ServedModel | None:
        return next((m for m in self.by_name.values() if m.artifact.direction == direction), None)

    def run(self, key: BatchKey, texts: list[str]) -> list[dict[str, Any]]:
        """Translate one batch (in the worker thread): per text its pieces and n-best list, and the
        attention of every alternative when asked (teacher-forced, see Translator.align). A text of
        several sentences is translated sentence by sentence, as the CLI does (see `_joined`)."""
        translator = self.translator(key.model)
        split = [lines_of(translator, text) for text in texts]
        done = _sentences(translator, self.searcher(key), key, [sentence for sentences, _ in split for sentence in sentences])
        results, start = [], 0
        for text, (sentences, breaks) in zip(texts, split):
            joined = _joined(done[start:start + len(sentences)], breaks, translator.tgt_lang)
            if len(sentences) > 1:  # one notice per kind for the whole text, not one per sentence
                joined["notices"] = reading_notices(translator.read(text), translator.src_lang, translator.src_tokenizer)
            results.append(joined)
            start += len(sentences)
        return results


def lines_of(translator: Translator, text: str) -> tuple[list[str], list[int]]:
    """A text as the server translates it: sentence by sentence, line by line (as `translate text` does),
    with the line breaks between its sentences (`data.normalize.split_text`)."""
    sentences, breaks = split_text(text, translator.src_lang)
    return (sentences, breaks) if sentences else ([text], [])


def sentences_of(translator: Translator, text: str) -> list[str]:
    """A text's sentences as the server translates them (`lines_of`)."""
    return lines_of(translator, text)[0]


def attention_cells(translator: Translator, text: str, n_best: int) -> int:
    """The most attention cells a text's reply can hold, counted before any search: per alternative
    and sentence, its source pieces times the longest translation the search allows (+ end of sentence)."""
    decode = translator.decode
    return n_best * sum(len(ids) * (int(len(ids) * decode.max_len_a) + decode.max_len_b + 1)
                        for ids in translator.encode_sources(sentences_of(translator, text), warn=False))


def search_cost(translator: Translator, text: str, key: BatchKey) -> int:
    """A text's estimated search cost, counted before any search: per sentence its source pieces
    times beam times n-best (the hypotheses a step extends, over a source that long), twice that when
    attention is asked (the teacher-forced pass that aligns every alternative)."""
    pieces = sum(len(ids) for ids in translator.encode_sources(sentences_of(translator, text), warn=False))
    return max(1, pieces) * key.beam * key.n_best * (2 if key.attention or key.align else 1)


def _sentences(translator: Translator, searcher: TextTranslator, key: BatchKey, texts: list[str]) -> list[dict[str, Any]]:
    """The work on single sentences: n-best lists (searched by `searcher`), pieces, attention, flags."""
    decode = dataclasses.replace(translator.decode, beam_size=key.beam, n_best=key.n_best)
    glossaries = [Glossary.from_pairs(list(key.glossary))] if key.glossary else []
    n_bests = with_glossaries(searcher, glossaries, key.lexicon).translate_n_best(texts, decode)
    flat = [(i, hyp) for i, hyps in enumerate(n_bests) for hyp in hyps]
    if key.attention or key.align:
        alignments = align(translator, [texts[i] for i, _ in flat], [hyp for _, hyp in flat])  # on what the search read
    else:
        sources = [translator.src_tokenizer.pieces(ids) for ids in translator.encode_sources([translator.read(t) for t in texts], warn=False)]
        alignments = [Alignment(sources[i], translator.tgt_tokenizer.pieces([*hyp.tokens, EOS_ID]), [])
                      for i, hyp in flat]
    read = [translator.read(t) for t in texts]  # what the search read: attention, notices and bounds on it
    full = translator.src_tokenizer.encode([normalize_source(t, translator.src_lang) for t in read])
    results: list[dict[str, Any]] = [
        {"source_pieces": [], "alternatives": [], "truncated": len(ids) > MAX_SOURCE_TOKENS,
         "notices": reading_notices(text, translator.src_lang, translator.src_tokenizer)}
        for text, ids in zip(read, full)]
    for (i, hyp), alignment in zip(flat, alignments):
        results[i]["source_pieces"] = alignment.source_pieces
        results[i]["alternatives"].append({
            "translation": hyp.text, "score": round(hyp.score, 4), "target_pieces": alignment.target_pieces,
            "attention": [{"source_start": 0, "source_end": len(alignment.source_pieces), "target_start": 0,
                           "target_end": len(alignment.target_pieces), "weights": _rounded(alignment.weights),
                           "heads": _rounded(alignment.heads), **_coverage(alignment)}] if key.attention or key.align else None})
    return results


def _joined(parts: list[dict[str, Any]], breaks: list[int], tgt_lang: str) -> dict[str, Any]:
    """One text's result from its sentences' results: translations joined (rank by rank for the
    alternatives; line breaks where the text had them, `data.normalize.join_translations`), pieces concatenated, and the attention one matrix per sentence, each placed by
    where its source and target pieces start and end in the whole text's pieces."""
    if len(parts) == 1:
        return parts[0]
    alternatives = []
    for rank in range(max(len(p["alternatives"]) for p in parts)):
        chosen = [p["alternatives"][min(rank, len(p["alternatives"]) - 1)] for p in parts]
        attention: list[dict[str, Any]] | None = None
        if chosen[0]["attention"] is not None:
            attention, source, target = [], 0, 0
            for part, alternative in zip(parts, chosen):
                for block in alternative["attention"]:
                    attention.append({**block, "source_start": source + block["source_start"],
                                      "source_end": source + block["source_end"],
                                      "target_start": target + block["target_start"],
                                      "target_end": target + block["target_end"]})
                source, target = source + len(part["source_pieces"]), target + len(alternative["target_pieces"])
        alternatives.append({"translation": join_translations([a["translation"] for a in chosen], breaks, tgt_lang),
                             "score": round(sum(a["score"] for a in chosen) / len(chosen), 4),
                             "target_pieces": [piece for a in chosen for piece in a["target_pieces"]],
                             "attention": attention})
    return {"source_pieces": [piece for p in parts for piece in p["source_pieces"]], "alternatives": alternatives,
            "truncated": any(p["truncated"] for p in parts), "notices": parts[0]["notices"]}


def _coverage(alignment: Alignment) -> dict[str, Any]:
    """What each source piece received in all and whether that counts as unattended (the measure of
    translate.evaluation.adequacy), for the row under the page's heatmap; nothing without attention."""
    if not alignment.weights:
        return {"coverage": None, "unattended": None}
    received, unattended = received_attention(alignment.weights, alignment.source_pieces)
    return {"coverage": _rounded(received), "unattended": unattended}


def _rounded(values: Any) -> Any:
    """Attention matrices to 4 decimals: a tenth of the JSON, no visible difference."""
    if values is None:
        return None
    if isinstance(values, list):
        return [_rounded(v) for v in values]
    return round(float(values), 4)
