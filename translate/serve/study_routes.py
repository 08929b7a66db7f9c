"""`translate serve --study`'s routes: a study's runs, table, figures, attention and test translations,
and one text translated by 1-4 runs side by side (`serve.study` reads the study)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from translate.serve.body import clip, echo, read_fields, validated
from translate.serve.guards import Access, client_of
from translate.serve.models import BatchKey, Models, attention_cells, search_cost
from translate.serve.replies import ERRORS, answers, body_schema, check_sizes, get_and_head
from translate.serve.schemas import StudyRequest
from translate.serve.settings import ServeSettings
from translate.serve.study import PREFIX, RunUnavailable, Study


def install(app: FastAPI, models: Models, study: Study, settings: ServeSettings, access: Access) -> None:
    """`translate serve --study`: the study's runs, table and figures, and one text translated by 1-4
    runs side by side (each with its attention), under the same limits as /translate."""

    @get_and_head(app, "/study", responses=ERRORS)
    async def study_info(request: Request) -> dict[str, Any]:
        """The study's runs (mechanism, seed, test and dev BLEU), its results table and figure names."""
        access.check(request)
        return study.info()

    @get_and_head(app, "/study/figures/{name}", include_in_schema=False)
    async def study_figure(name: str, request: Request) -> Response:
        access.check(request)
        data = study.figure(name)
        if data is None:
            raise HTTPException(404, f"no figure {echo(name)} in the study; it has: {', '.join(study.figures()) or 'none'}")
        return Response(data, media_type="image/png", headers={"Cache-Control": "no-cache"})

    @get_and_head(app, "/study/runs/{run}/attention", responses=ERRORS)
    async def study_attention(run: str, request: Request) -> dict[str, Any]:
        """The attention matrices the study kept for a run (a few test sentences: attention.json)."""
        access.check(request)
        if run not in study.runs:
            raise HTTPException(404, f"no run {clip(run)} in the study")
        return {"run": run, "examples": list(study.runs[run].attention)}

    @get_and_head(app, "/study/testset", responses=ERRORS)
    async def study_testset(request: Request, mechanism: str = "", limit: int = 50) -> dict[str, Any]:
        """The test sentences the runs disagree on most: each run's translation beside the reference,
        with sentence chrF; `mechanism`: a comma-separated filter; `limit`: 1-500 sentences."""
        access.check(request)
        if study.test_set is None:
            raise HTTPException(404, "the study's runs have no test translations of the bundled test split")
        wanted = [m for m in mechanism.split(",") if m][:50]
        runs = [r for r in study.runs.values() if r.hypotheses and (not wanted or r.mechanism in wanted)]
        if not runs:
            known = sorted({r.mechanism for r in study.runs.values()})
            raise HTTPException(404, f"no run of {', '.join(clip(m) for m in wanted[:3])}; mechanisms: {', '.join(known)}")
        if not 1 <= limit <= 500:
            raise HTTPException(422, f"limit must be 1-500, got {limit}")
        test_set = study.test_set
        rows = await request.app.state.workers.run(client_of(request), test_set.rows, runs, limit,
                                                   timeout_s=settings.timeout_s, charge=False)  # kept per run
        return {"target": test_set.target, "sentences": len(test_set.references), "runs": [r.name for r in runs],
                "rows": rows}

    @app.post("/study/translate", responses=ERRORS, openapi_extra=body_schema(StudyRequest))
    async def study_translate(request: Request) -> dict[str, Any]:
        """One text translated by each chosen run, with the run's scores from the study."""
        access.check(request)
        fields = await read_fields(request, settings.max_texts, request.app.state.workers, client_of(request))
        return await _translate(request, validated(StudyRequest, fields), study, settings)


async def _translate(request: Request, req: StudyRequest, study: Study, settings: ServeSettings) -> dict[str, Any]:
    """/study/translate's work: the runs loaded and the costs counted in the client's line of the workers'
    pool, then one search per run in the client's share."""
    check_sizes([req.q], settings)
    unknown = [run for run in req.runs if run not in study.runs]
    if unknown:
        raise HTTPException(404, f"no run {', '.join(clip(u) for u in unknown[:3])} in the study; it has: {', '.join(study.runs)}")
    without = [run for run in req.runs if study.runs[run].weights is None]
    if without:
        raise HTTPException(409, f"run {clip(without[0])} has no weights here: the study's tables, figures, attention "
                                 f"and test translations are served; to translate, give its work folder (--study-runs)")
    workers, client = request.app.state.workers, client_of(request)
    try:  # loading: in the client's line of the workers' pool, within the request's time
        translators = [await workers.run(client, study.translator, run, timeout_s=settings.timeout_s,
                                         refusal=f"run {clip(run)} could not be loaded") for run in req.runs]
    except RunUnavailable as exc:
        raise HTTPException(409, str(exc)) from None
    keys = [BatchKey(PREFIX + run, req.beam, 1, req.attention) for run in req.runs]

    def costs() -> list[int]:  # counted in the client's line, never on the loop
        cells = sum(attention_cells(t, req.q, 1) for t in translators) if req.attention else 0
        if cells > settings.max_attention_cells:
            raise HTTPException(413, f"the attention matrices asked for could hold {cells:,} cells; the limit is "
                                     f"max_attention_cells={settings.max_attention_cells:,}")
        return [search_cost(t, req.q, key) for key, t in zip(keys, translators)]

    counted = await workers.run(client, costs, timeout_s=settings.timeout_s)
    outputs = await answers([request.app.state.batcher.submit(key, [req.q], client, [cost])
                             for key, cost in zip(keys, counted)], settings)
    rows = []
    for run, translator, [result] in zip(req.runs, translators, outputs):
        best = result["alternatives"][0]
        rows.append({**study.runs[run].info(), "source": translator.src_lang, "target": translator.tgt_lang,
                     "translation": best["translation"], "score": best["score"],
                     "source_pieces": result["source_pieces"], "target_pieces": best["target_pieces"],
                     "attention": best["attention"]})
    return {"translations": rows}
