"""The FastAPI application: routes, limits, JSON errors (never a stack trace) and the page."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from translate.errors import ConfigError
from translate.inference.glossary import Glossary
from translate.inference.html_tree import MarkupError
from translate.inference.markup import Markup, read_html
from translate.inference.router import OTHER, direction_of
from translate.serve import files as translate_files
from translate.serve import libretranslate, study_routes
from translate.serve.batcher import Batcher
from translate.serve.body import NOT_UTF8, clip, echo, is_form, read_fields, validated
from translate.serve.guards import Access, BodyLimit, HostGuard, client_of, error_response
from translate.serve.models import BatchKey, Models, ServedModel, attention_cells, search_cost
from translate.serve.replies import ERRORS, answers, body_schema, check_sizes, check_tags, get_and_head
from translate.serve.schemas import (
    DetectedLanguage,
    DetectRequest,
    LanguageInfo,
    ModelInfo,
    StudyRequest,
    TranslateRequest,
    TranslateResponse,
)
from translate.serve.settings import ServeSettings
from translate.serve.workers import Workers
from translate.version import __version__

STATIC = Path(str(resources.files("translate.serve") / "static"))


def _install_error_handlers(app: FastAPI) -> None:
    """One JSON shape for every error; the status as the request's dialect expects it (the project's
    table, or LibreTranslate's 400 for every invalid request: `libretranslate.dialect_status`)."""
    @app.exception_handler(HTTPException)
    async def httperror_response(request: Request, exc: HTTPException) -> JSONResponse:
        message = clip(str(exc.detail), 1_000)
        if exc.status_code == 400 and message == "There was an error parsing the body":  # FastAPI's words
            message = NOT_UTF8
        return error_response(libretranslate.dialect_status(request, exc.status_code), message, dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": [clip(str(p)) for p in e.get("loc", ())], "msg": clip(str(e.get("msg", "")), 300),
                   "type": str(e.get("type", ""))} for e in exc.errors()[:MAX_ERRORS]]
        summary = "; ".join(f"{'.'.join(e['loc']) or 'body'}: {e['msg']}" for e in errors)
        return error_response(libretranslate.dialect_status(request, 422), f"invalid request: {summary}", detail=errors)


MAX_ERRORS = 10  # validation errors listed in one reply




def _choose(models: Models, req: TranslateRequest, text: str) -> ServedModel:
    """The model for one text: by name, else by the direction (source from the script when auto)."""
    loaded = ", ".join(models.by_name) or "none"
    if req.model is not None:
        served = models.by_name.get(req.model)
        if served is None:
            raise HTTPException(404, f"unknown model {echo(req.model)}; loaded: {loaded}")
        if req.source not in ("auto", served.artifact.src_lang):
            raise HTTPException(422, f"model {req.model} translates {served.artifact.direction}, not from {req.source}")
        if req.target is not None and req.target != served.artifact.tgt_lang:
            raise HTTPException(422, f"model {req.model} translates {served.artifact.direction}, not into {req.target}")
        return served
    source = req.source if req.source != "auto" else OTHER[req.target] if req.target else None
    direction = direction_of(text, source)
    found = models.for_direction(direction)
    if found is None:
        raise HTTPException(404, f"no model for {direction}; loaded: {loaded}")
    return found


def _glossary(req: TranslateRequest) -> tuple[tuple[str, str], ...]:
    """The request's term pairs, checked before any work (422 naming the term at fault)."""
    if not req.glossary:
        return ()
    try:
        Glossary.from_pairs(req.glossary, "glossary")
    except ConfigError as exc:
        raise HTTPException(422, str(exc)) from None
    return tuple((en, zh) for en, zh in req.glossary)


def _check_attention_cost(req: TranslateRequest, texts: list[str], chosen: list[ServedModel],
                          settings: ServeSettings, align: bool = False) -> None:
    """Attention matrices grow with source x target pieces per sentence and alternative: their cells,
    bounded by each sentence's longest possible translation, are counted exactly as they would be
    sent, before any search (413 above the limit); so the reply's size is bounded too. `align`: the
    attention that places an HTML document's inline tags, computed though not sent, is bounded alike."""
    if not (req.attention or align):
        return
    cells = sum(attention_cells(served.translator, text, req.n_best) for text, served in zip(texts, chosen))
    if cells > settings.max_attention_cells:
        asked = "asked for" if req.attention else "that place the document's inline tags"
        raise HTTPException(413, f"the attention matrices {asked} could hold {cells:,} cells; the limit is "
                                 f"max_attention_cells={settings.max_attention_cells:,} (ask for fewer texts, "
                                 f"alternatives or shorter texts, or leave attention off)")


@dataclass
class _Prepared:
    """A request's texts, read and counted before its search (`_prepare`)."""

    visible: list[str]  # each document's visible text (the text itself unless format is html)
    texts: list[str]  # what is searched: the texts, or every block of every document
    markups: list[Markup] | None
    per_document: list[ServedModel | None]  # None: already in the target language, returned unchanged
    chosen: list[ServedModel | None]  # per text
    wanted: list[int]  # the texts searched
    align: bool  # attention computed to place inline tags
    costs: list[int]  # the searched texts' estimated costs
    glossary: tuple[tuple[str, str], ...]  # the request's term pairs, checked


def _prepare(req: TranslateRequest, models: Models, settings: ServeSettings) -> _Prepared:
    """Everything a request needs before its search, in the client's line of the workers' pool (never
    on the event loop): sizes, HTML reading, each document's model, the attention bound, the costs."""
    documents = req.texts
    check_sizes(documents, settings)
    markups: list[Markup] | None = None
    if req.format == "html":
        check_tags(documents, settings)
        markups = [_read_html(d) for d in documents]
        visible, texts = [" ".join(m.texts) for m in markups], [t for m in markups for t in m.texts]
        name, limit = min(("max_client_queue", settings.max_client_queue), ("max_queue", settings.max_queue),
                          key=lambda setting: setting[1])
        if len(texts) > limit:  # it could never be queued whole: not a busy server
            raise HTTPException(413, f"the HTML holds {len(texts)} blocks of text to translate; the limit is "
                                     f"{name}={limit} (send fewer or shorter documents)")
    else:
        visible, texts = documents, documents
    counts = [len(m.blocks) for m in markups] if markups is not None else [1] * len(documents)
    # source auto with a target: a text already in the target language comes back unchanged (as LibreTranslate's)
    kept = [req.model is None and req.source == "auto" and req.target is not None
            and direction_of(text).startswith(req.target)
            for text in visible]
    per_document = [None if keep else _choose(models, req, text) for text, keep in zip(visible, kept)]
    chosen = [served for served, count in zip(per_document, counts) for _ in range(count)]
    wanted = [i for i, served in enumerate(chosen) if served is not None]
    searched = [served for served in chosen if served is not None]
    align = markups is not None and any(block.count > 1 for markup in markups for block in markup.blocks)
    _check_attention_cost(req, [texts[i] for i in wanted], searched, settings, align)
    glossary = _glossary(req)
    costs = [search_cost(served.translator, texts[i], _key(req, served, glossary, align))
             for i, served in zip(wanted, searched)]
    return _Prepared(visible, texts, markups, per_document, chosen, wanted, align, costs, glossary)


def _key(req: TranslateRequest, served: ServedModel, glossary: tuple[tuple[str, str], ...], align: bool) -> BatchKey:
    return BatchKey(served.name, req.beam, req.n_best, req.attention, glossary, req.lexicon, align)


async def _translate(req: TranslateRequest, models: Models, batcher: Batcher, settings: ServeSettings,
                     client: str, workers: Workers) -> dict[str, Any]:
    """The reply: the project's per-text results and LibreTranslate's fields. With format html each
    document's blocks of text are translated (`inference.markup`), its model chosen once from its visible
    text, and each block's translation cut among its runs through the model's attention. The work
    before and after the search runs in `client`'s line of the workers' pool (`serve.workers`)."""
    ready = await workers.run(client, _prepare, req, models, settings, timeout_s=settings.timeout_s,
                              refusal="the request could not be read")
    texts = ready.texts
    searched = [served for served in ready.chosen if served is not None]
    found = await _search(req, [texts[i] for i in ready.wanted], searched, batcher, settings, client, ready.align,
                          ready.costs, ready.glossary)
    results = [_unchanged(text, str(req.target)) for text in texts]
    for i, result in zip(ready.wanted, found):
        results[i] = result
    return await workers.run(client, _reply, req, ready, results, timeout_s=settings.timeout_s,
                             refusal="the reply could not be built")


def _reply(req: TranslateRequest, ready: _Prepared, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The reply's fields from the results (in the client's line of the workers' pool): LibreTranslate's
    fields, each HTML document written back, the attention computed only to place tags left out."""
    sources = [str(req.target) if served is None else served.artifact.src_lang for served in ready.per_document]
    try:
        fields = libretranslate.reply_fields(req, ready.visible, ready.markups, results, sources)
    except MarkupError as exc:
        raise HTTPException(422, str(exc)) from None
    if ready.align and not req.attention:  # computed to place inline tags, not asked for
        for result in results:
            result["attention"] = None
            result["alternatives"] = [{**a, "attention": None} for a in result["alternatives"]]
    reply = TranslateResponse.model_validate({"translations": results, **fields})
    return reply.model_dump(exclude={k for k in ("detectedLanguage", "alternatives") if getattr(reply, k) is None})


def json_bytes(content: Any) -> bytes:
    """`content` as JSONResponse writes it, for a worker to write (a reply of attention matrices is megabytes)."""
    return json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode("utf-8")


def _unchanged(text: str, language: str) -> dict[str, Any]:
    """The result of a text already in the language asked for: the text itself."""
    alternative = {"translation": text, "score": 0.0, "target_pieces": [], "attention": None}
    return {"text": text, "translation": text, "score": 0.0, "source": language, "target": language, "model": "",
            "source_pieces": [], "target_pieces": [], "attention": None, "alternatives": [alternative],
            "truncated": False, "notices": [f"already in {language}: returned unchanged"]}


def _read_html(document: str) -> Markup:
    try:
        return read_html(document)
    except MarkupError as exc:
        raise HTTPException(422, str(exc)) from None


async def _search(req: TranslateRequest, texts: list[str], chosen: list[ServedModel], batcher: Batcher,
                  settings: ServeSettings, client: str, align: bool, costs: list[int],
                  glossary: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """Each text searched by its model (texts of one model submitted as one job, in `client`'s share);
    `align`: with the attention that places inline tags, whether or not it is asked for; `costs`: each
    text's estimated search cost and `glossary` the checked term pairs (`_prepare`)."""
    groups: dict[str, list[int]] = {}
    for i, served in enumerate(chosen):
        groups.setdefault(served.name, []).append(i)
    jobs = [batcher.submit(_key(req, chosen[rows[0]], glossary, align), [texts[i] for i in rows], client,
                           [costs[i] for i in rows])
            for rows in groups.values()]
    outputs = await answers(jobs, settings)
    results: list[dict[str, Any]] = [{} for _ in texts]
    for rows, output in zip(groups.values(), outputs):
        for i, result in zip(rows, output):
            best, served = result["alternatives"][0], chosen[i]
            results[i] = {"text": texts[i], "translation": best["translation"], "score": best["score"],
                          "source": served.artifact.src_lang, "target": served.artifact.tgt_lang, "model": served.name,
                          "source_pieces": result["source_pieces"], "target_pieces": best["target_pieces"],
                          "attention": best["attention"], "alternatives": result["alternatives"],
                          "truncated": result["truncated"], "notices": result["notices"]}
    return results


def create_app(models: Models, settings: ServeSettings) -> FastAPI:
    access = Access(settings)
    workers = Workers(settings.prepare_threads, access.limiter, settings.work_cost)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.batcher = Batcher(models.run, settings.batch_wait_ms / 1000, settings.max_batch, settings.max_queue,
                                    settings.timeout_s, settings.max_batch_cost, settings.max_client_queue,
                                    settings.max_active_batches, max_extra=settings.max_extra_batches)
        app.state.batcher.start()
        yield
        await app.state.batcher.stop()
        workers.shutdown()

    def header_guard(request: Request) -> None:
        access.check(request)

    app = FastAPI(title="translate", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="English<->Chinese RNN attention NMT: translations, n-best lists and attention.")
    app.state.workers = workers
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(HostGuard, settings=settings)
    _install_error_handlers(app)

    @app.post("/translate", response_model=TranslateResponse, responses=ERRORS,
              openapi_extra=body_schema(TranslateRequest))
    async def translate(request: Request) -> Response:
        """Translate one text or a list; direction from `source`/`target`, or from each text's script.
        JSON or a form (LibreTranslate's clients); the reply carries LibreTranslate's fields too."""
        libretranslate.mark_dialect(request, {}, is_form(request))  # a form that cannot be read is answered as LT's
        access.before_body(request)  # parsing is work too
        client = client_of(request)
        fields = await read_fields(request, settings.max_texts, workers, client)
        libretranslate.mark_dialect(request, fields, is_form(request))
        access.key(request, fields.get("api_key"))
        req = validated(TranslateRequest, fields)
        reply = await _translate(req, models, request.app.state.batcher, settings, client, workers)
        return Response(await workers.run(client, json_bytes, reply, timeout_s=settings.timeout_s,
                                          refusal="the reply could not be written"), media_type="application/json")

    @get_and_head(app, "/models", response_model=list[ModelInfo], responses=ERRORS,
                   dependencies=[Depends(header_guard)])
    async def list_models() -> list[dict[str, Any]]:
        """The loaded models: direction, attention mechanism, scores from their meta.json."""
        return [served.info() for served in models.by_name.values()]

    @get_and_head(app, "/health")
    async def health(request: Request) -> dict[str, Any]:
        return {"status": "ok", "models": list(models.by_name), "waiting": request.app.state.batcher.waiting}

    _install_libretranslate(app, models, settings, access, workers)
    translate_files.install(app, lambda req, client: _translate(req, models, app.state.batcher, settings, client,
                                                                workers),
                            settings, access, client_of, workers)
    if models.study is not None:
        study_routes.install(app, models, models.study, settings, access)
    _install_page(app, access)
    _openapi_with_bodies(app)
    return app


def _install_libretranslate(app: FastAPI, models: Models, settings: ServeSettings, access: Access,
                            workers: Workers) -> None:
    """LibreTranslate's routes besides /translate (see `serve.libretranslate`), under the same limits."""
    directions = [(m.artifact.src_lang, m.artifact.tgt_lang) for m in models.by_name.values()]

    @app.post("/detect", response_model=list[DetectedLanguage], responses=ERRORS,
              openapi_extra=body_schema(DetectRequest))
    async def detect(request: Request) -> list[dict[str, Any]]:
        """LibreTranslate's language detection: en and zh with the script detector's confidence (0-100)."""
        libretranslate.mark_dialect(request)
        access.before_body(request)
        client = client_of(request)
        fields = await read_fields(request, settings.max_texts, workers, client)
        access.key(request, fields.get("api_key"))
        req = validated(DetectRequest, fields)
        texts = [req.q] if isinstance(req.q, str) else req.q
        check_sizes(texts, settings)
        return await workers.run(client, libretranslate.detections, texts, timeout_s=settings.timeout_s,
                                 refusal="the languages could not be detected")

    @get_and_head(app, "/languages", response_model=list[LanguageInfo], responses=ERRORS)
    async def languages(request: Request) -> list[dict[str, Any]]:
        """LibreTranslate's language list: each source language a loaded model reads, and its targets
        (no key needed, as in LibreTranslate: clients ask before they have one)."""
        libretranslate.mark_dialect(request)
        access.rate(request)
        return libretranslate.languages(directions)

    @get_and_head(app, "/frontend/settings", responses=ERRORS)
    async def frontend(request: Request) -> dict[str, Any]:
        """LibreTranslate's page settings: the character limit, whether a key is needed, the default languages."""
        libretranslate.mark_dialect(request)
        access.rate(request)
        return libretranslate.frontend_settings(settings.max_chars, bool(settings.api_key), directions)


class Assets(StaticFiles):
    """The page's static files, inside the rate limit, revalidated by ETag on each use (`no-cache`), so
    an upgraded server's page is never mixed with an old script."""

    def __init__(self, access: Access) -> None:
        super().__init__(directory=STATIC)
        self.access = access

    async def get_response(self, path: str, scope: Any) -> Any:
        self.access.rate(Request(scope))
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        return response


FONT_COST = 5  # rate-limit tokens per font download (16 MB each): a burst of 20 holds 4


def _install_page(app: FastAPI, access: Access) -> None:
    """The page, its static files, and a CJK font for browsers without one; all inside the rate limit,
    HEAD answered wherever GET is."""
    app.mount("/static", Assets(access), name="static")

    @get_and_head(app, "/", response_class=HTMLResponse, include_in_schema=False)
    async def page(request: Request) -> HTMLResponse:
        access.rate(request)
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"), headers={"Cache-Control": "no-cache"})

    @get_and_head(app, "/docs", response_class=HTMLResponse, include_in_schema=False)
    async def api_reference(request: Request) -> HTMLResponse:
        """The API reference drawn from /openapi.json by the page's own script (no CDN: works offline)."""
        access.rate(request)
        return HTMLResponse((STATIC / "docs.html").read_text(encoding="utf-8"), headers={"Cache-Control": "no-cache"})

    @get_and_head(app, "/fonts/cjk.otf", include_in_schema=False)
    async def cjk_font(request: Request) -> FileResponse:
        """Noto Sans CJK SC from mplfonts (a dependency)."""
        access.rate(request, FONT_COST)
        path = _cjk_font_file()
        if path is None:
            raise HTTPException(404, "no CJK font installed")
        return FileResponse(path, media_type="font/otf", headers={"Cache-Control": "max-age=86400"})


def _openapi_with_bodies(app: FastAPI) -> None:
    """FastAPI's schema, with the bodies the routes read themselves under components."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            found = schema.setdefault("components", {}).setdefault("schemas", {})
            for model in (TranslateRequest, DetectRequest, StudyRequest):
                found[model.__name__] = model.model_json_schema(ref_template="#/components/schemas/{model}")
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def _cjk_font_file() -> Path | None:
    with contextlib.suppress(ImportError):
        import mplfonts

        path = Path(mplfonts.__file__).parent / "fonts" / "NotoSansCJKsc-Regular.otf"
        return path if path.is_file() else None
    return None
