"""What the server's routes share: GET with HEAD, the bodies in the schema, the size checks of
texts, and waiting for the batcher's answers with the status a client is owed."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI
from starlette.exceptions import HTTPException

from translate.serve.batcher import QueueFull
from translate.serve.schemas import DetectRequest, ErrorBody, StudyRequest, TranslateRequest
from translate.serve.settings import ServeSettings

Endpoint = Callable[..., Any]
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody}
                                           for code in (400, 401, 403, 404, 409, 413, 415, 422, 429, 503, 504)}


def get_and_head(app: FastAPI, path: str, **options: Any) -> Callable[[Endpoint], Endpoint]:
    """GET `path` (in the schema) and HEAD beside it: the same answer without its body."""
    def register(endpoint: Endpoint) -> Endpoint:
        app.head(path, **{**options, "include_in_schema": False})(endpoint)
        return app.get(path, **options)(endpoint)
    return register


def body_schema(model: type[TranslateRequest | DetectRequest | StudyRequest]) -> dict[str, Any]:
    """The request body in the OpenAPI schema (the route reads JSON or a form itself: `serve.body`);
    `serve.app`'s `_openapi_with_bodies` puts the model under components."""
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {
        "application/json": {"schema": ref}, "application/x-www-form-urlencoded": {"schema": ref},
        "multipart/form-data": {"schema": ref}}}}


def check_sizes(texts: list[str], settings: ServeSettings) -> None:
    if len(texts) > settings.max_texts:
        raise HTTPException(413, f"{len(texts)} texts in one request; the limit is max_texts={settings.max_texts}")
    for i, text in enumerate(texts):
        if len(text) > settings.max_chars:
            raise HTTPException(413, f"text {i} has {len(text)} characters; the limit is max_chars={settings.max_chars}")


_START_TAG = re.compile(r"<[A-Za-z]")


def check_tags(documents: list[str], settings: ServeSettings) -> None:
    """HTML documents' start tags counted before any parser reads them (one linear scan): a request
    over `max_html_tags` is refused (413) at the cost of that scan, not of html5lib's reading."""
    tags = sum(len(_START_TAG.findall(document)) for document in documents)
    if tags > settings.max_html_tags:
        raise HTTPException(413, f"the HTML holds {tags:,} tags; the limit is max_html_tags={settings.max_html_tags:,} "
                                 f"(send fewer or smaller documents)")


async def answers(jobs: list[Coroutine[Any, Any, list[Any]]], settings: ServeSettings) -> list[list[Any]]:
    """The batcher's answers to `jobs`, or the error a client is owed: 429 over its share of the queue,
    503 over the queue, 504 past timeout_s."""
    try:
        return list(await asyncio.wait_for(asyncio.gather(*jobs), settings.timeout_s))
    except QueueFull as full:
        if full.client_share:
            raise HTTPException(429, f"too many texts waiting from this client (max_client_queue="
                                     f"{settings.max_client_queue}); retry when some are answered",
                                headers={"Retry-After": "1"}) from None
        raise HTTPException(503, f"the server is busy (over max_queue={settings.max_queue} texts waiting)",
                            headers={"Retry-After": "1"}) from None
    except TimeoutError:
        raise HTTPException(504, f"no answer within timeout_s={settings.timeout_s:g} seconds") from None
