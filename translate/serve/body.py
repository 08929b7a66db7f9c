"""A request body read as JSON or as a form (urlencoded or multipart, as LibreTranslate's clients
send it) into one of the API's models, with the same rules and messages whichever way it came:
bytes that are not UTF-8 are a 400, malformed JSON and invalid fields a 422, any other media type a
415. The body's size is bounded before this (`app.BodyLimit`)."""

from __future__ import annotations

import json
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
FORM_INTS = frozenset({"alternatives", "n_best", "beam"})
FORM_BOOLS = frozenset({"attention", "lexicon"})
FIELDS_BESIDES_Q = 16  # a form may hold max_texts `q` fields and this many others
NOT_UTF8 = "the body could not be read as JSON: send UTF-8 text with Content-Type: application/json"
Model = TypeVar("Model", bound=BaseModel)


def media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def is_form(request: Request) -> bool:
    return media_type(request) in FORMS


async def read_fields(request: Request, max_texts: int) -> dict[str, Any]:
    """The body's fields as sent (their names tell the dialect; `validated` checks them)."""
    media = media_type(request)
    if media == "application/json" or media.endswith("+json"):
        return _json_object(await request.body())
    if media in FORMS:
        return await _form(request, media, max_texts + FIELDS_BESIDES_Q)
    raise HTTPException(415, f"the body must be JSON (Content-Type: application/json) or a form "
                             f"({' or '.join(FORMS)}); got {media or 'none'!r}")


def validated(model: type[Model], fields: dict[str, Any]) -> Model:
    """The fields as `model`; invalid ones are a RequestValidationError naming each (loc body.FIELD)."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HTTPException(400, NOT_UTF8) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _invalid(f"JSON decode error: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:  # nesting past the parser's depth, integers past 4,300 digits
        raise _invalid(f"JSON decode error: {type(exc).__name__}: nested too deeply or a number too long") from None
    if not isinstance(data, dict):
        raise _invalid(f"the body must be a JSON object, got {type(data).__name__}")
    return data


async def _form(request: Request, media: str, max_fields: int) -> dict[str, Any]:
    """Form fields as the JSON fields they stand for: `q` given more than once is a list; numbers
    and true/false parsed for the fields that take them; a file, a glossary or too many fields refused.
    Every value must be UTF-8 (no silent fallback to another charset)."""
    raw = await request.body()
    try:
        if media == FORMS[0]:
            pairs = parse_qsl(raw.decode("ascii"), keep_blank_values=True, encoding="utf-8", errors="strict",
                              max_num_fields=max_fields)
        else:
            pairs = _multipart(raw, request.headers.get("content-type", ""), max_fields)
    except (UnicodeError, ValueError) as exc:
        raise HTTPException(400, f"the form could not be read: {type(exc).__name__}: {str(exc).rstrip('.')}; send "
                                 f"UTF-8 text fields (no files), at most {max_fields}") from None
    fields: dict[str, Any] = {}
    for name, value in pairs:
        if name == "q" and name in fields:
            fields[name] = [*([fields[name]] if isinstance(fields[name], str) else fields[name]), value]
        elif name in fields:
            raise _invalid(f"form field {name!r} given twice")
        elif name == "glossary":
            raise _invalid("glossary: send a glossary in a JSON body (pairs of terms)")
        else:
            fields[name] = _typed(name, value)
    return fields


def _multipart(raw: bytes, content_type: str, max_fields: int) -> list[tuple[str, str]]:
    """multipart/form-data's text fields, read by the standard library's MIME parser."""
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw)
    if not message.is_multipart():
        raise ValueError("no parts found (a boundary missing from Content-Type, or not in the body)")
    pairs = []
    for number, part in enumerate(message.iter_parts()):
        if number >= max_fields:
            raise ValueError(f"more than {max_fields} fields")
        name = part.get_param("name", header="content-disposition")
        if part.get_filename() is not None or not isinstance(name, str):
            raise ValueError(f"part {number} is a file or has no name")
        payload = part.get_payload(decode=True)
        pairs.append((name, payload.decode("utf-8") if isinstance(payload, bytes) else ""))
    return pairs


def _typed(name: str, value: str) -> Any:
    if name in FORM_INTS and value.strip().lstrip("-").isdigit():
        return int(value)
    if name in FORM_BOOLS and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    return value  # anything else is checked by the model (a number that is not one is named there)


def _invalid(message: str) -> RequestValidationError:
    return RequestValidationError([{"loc": ("body",), "msg": message, "type": "invalid_body"}])
