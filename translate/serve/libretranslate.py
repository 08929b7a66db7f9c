"""LibreTranslate's API, so that its clients (Mastodon, Discourse, Nextcloud, libretranslatepy,
browser extensions) work unchanged: its fields in `POST /translate`'s replies, and `GET /languages`,
`POST /detect` and `GET /frontend/settings`. A request speaks LibreTranslate's dialect when it comes
as a form or uses one of LibreTranslate's own fields; its errors then carry LibreTranslate's status
codes (400 for every invalid request, 403 for a wrong API key), with the same `{"error": ...}` body."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from translate.data.cleaning import language_confidence
from translate.inference.markup import Block, Markup
from translate.inference.passthrough import read
from translate.inference.projection import Aligned, cuts
from translate.serve.schemas import LANGUAGE_NAMES, TranslateRequest

DIALECT_FIELDS = frozenset({"format", "alternatives", "api_key"})  # LibreTranslate's, not the project's
AS_BAD_REQUEST = frozenset({404, 415, 422})  # LibreTranslate answers these 400 (a size over a limit stays 413)


def mark_dialect(request: Request, fields: dict[str, Any] | None = None, form: bool = False) -> None:
    """Remember for the error handlers whether this request speaks LibreTranslate's dialect."""
    request.state.libretranslate = form or fields is None or bool(DIALECT_FIELDS & fields.keys())


def dialect_status(request: Request, status: int) -> int:
    """The status a client of this request's dialect expects for `status`."""
    return 400 if status in AS_BAD_REQUEST and getattr(request.state, "libretranslate", False) else status


def key_refusal(request: Request, given: bool) -> tuple[int, str]:
    """The status and message for a missing or wrong API key, in the request's dialect."""
    if not getattr(request.state, "libretranslate", False):
        return 401, "missing or wrong API key (send X-API-Key, Authorization: Bearer or api_key in the body)"
    if given:
        return 403, "Invalid API key"
    return 400, "an API key is required (send api_key, X-API-Key or Authorization: Bearer)"


def detections(texts: list[str]) -> list[dict[str, Any]]:
    """POST /detect's answer: each language with the detector's confidence, the likelier first."""
    scores = language_confidence([read(text) for text in texts])  # URLs, tags and emoji are no language
    return [{"language": code, "confidence": scores[code]} for code in sorted(scores, key=lambda c: -scores[c])]


def reply_fields(req: TranslateRequest, visible: list[str], markups: list[Markup] | None,
                 results: list[dict[str, Any]], sources: list[str]) -> dict[str, Any]:
    """`translatedText`, `detectedLanguage` (source auto) and `alternatives` (when asked), shaped as `q`
    (a string or a list). `visible`: each document's text (its blocks of text with format html);
    `sources`: the language each was read as; `results`: the project's per-text results (per block
    of text with format html)."""
    if markups is None:
        translated = [r["translation"] for r in results]
        others = [list(dict.fromkeys(a["translation"] for a in r["alternatives"][1:] if a["translation"] != r["translation"]))
                  for r in results]
    else:
        translated, start = [], 0
        for markup in markups:
            blocks = results[start:start + len(markup.blocks)]
            translated.append(markup.render([r["translation"] for r in blocks],
                                            [_cuts(block, r) for block, r in zip(markup.blocks, blocks)]))
            start += len(markup.blocks)
        others = [[] for _ in markups]  # alternatives of a whole document are not offered (nor by LibreTranslate)
    single = isinstance(req.q, str)
    fields: dict[str, Any] = {"translatedText": translated[0] if single else translated}
    if req.source == "auto":
        detected = [{"language": source, "confidence": language_confidence([read(text)])[source]}
                    for text, source in zip(visible, sources)]
        fields["detectedLanguage"] = detected[0] if single else detected
    if req.alternatives:
        fields["alternatives"] = others[0] if single else others
    return fields


def _cuts(block: Block, result: dict[str, Any]) -> list[int] | None:
    """Where a block's translation is cut among its runs: through the attention of its best translation
    (`inference.projection`); None (cut at the runs' fractions) without attention."""
    if block.count == 1 or result["attention"] is None:
        return None
    aligned = [Aligned(a["source_start"], a["source_end"], a["target_start"], a["target_end"], a["weights"])
               for a in result["attention"]]
    return cuts(block.text, result["source_pieces"], result["translation"], result["target_pieces"], aligned,
                block.boundaries, block.required)


def languages(directions: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """GET /languages: every source language a loaded model reads, with the languages it writes."""
    targets: dict[str, list[str]] = {}
    for source, target in directions:
        targets.setdefault(source, [])
        if target not in targets[source]:
            targets[source].append(target)
    return [{"code": code, "name": LANGUAGE_NAMES[code], "targets": sorted(found)} for code, found in sorted(targets.items())]


def frontend_settings(max_chars: int, key_required: bool, directions: list[tuple[str, str]]) -> dict[str, Any]:
    """GET /frontend/settings, as LibreTranslate's page reads it: .txt and .html files, no suggestions."""
    target = "zh" if ("en", "zh") in directions or not directions else directions[0][1]
    return {"charLimit": max_chars, "frontendTimeout": 500, "apiKeys": key_required, "keyRequired": key_required,
            "suggestions": False, "filesTranslation": True, "supportedFilesFormat": [".txt", ".html"],
            "language": {"source": {"code": "auto", "name": "Auto Detect"},
                         "target": {"code": target, "name": LANGUAGE_NAMES[target]}}}
