"""A request body read as JSON or as a form (urlencoded or multipart, as LibreTranslate's clients
send it) into one of the API's models, with the same rules and messages whichever way it came:
bytes that are not UTF-8 are a 400, malformed JSON and invalid fields a 422, any other media type a
415. The body's size is bounded before this (`app.BodyLimit`).

Every parser here is linear in its input and bounded before it starts: the Content-Type header is at
most `MAX_CONTENT_TYPE` bytes, a multipart part's headers at most `MAX_PART_HEADER` bytes each
(python-multipart, the streaming parser Starlette uses, instead of the standard library's MIME parser,
which is quadratic in quotes), and parsing runs in the client's line of the workers' pool (`serve.workers`), off the event loop, within
`PARSE_TIMEOUT_S` (a 503 past it)."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from translate.serve.workers import Workers

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
FORM_INTS = frozenset({"alternatives", "n_best", "beam"})
FORM_BOOLS = frozenset({"attention", "lexicon"})
FIELDS_BESIDES_Q = 16  # a form may hold max_texts `q` fields and this many others
NOT_UTF8 = "the body could not be read as JSON: send UTF-8 text with Content-Type: application/json"
MAX_CONTENT_TYPE = 1_024  # bytes of the Content-Type header (a boundary has at most 70 characters)
MAX_PART_HEADER = 1_024  # bytes of one multipart part's header line
MAX_PART_HEADERS = 8  # header lines of one part
PARSE_TIMEOUT_S = 5.0  # a body that takes longer to parse is refused (the parsers are linear: never in practice)
MAX_ECHO = 80  # characters of a client's own input quoted back in an error message
_SMALL_INT = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only: what int() takes without surprises
Model = TypeVar("Model", bound=BaseModel)


class ClientGone(Exception):
    """The client closed the connection before its body was whole (logged as such, never answered)."""


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """Input echoed in an error, cut so that a reply never grows with what it quotes."""
    return text if len(text) <= limit else text[:limit] + "..."


def echo(value: object) -> str:
    """A client's input quoted in an error message, cut to MAX_ECHO characters."""
    text = value if isinstance(value, str) else str(value)
    return repr(text) if len(text) <= MAX_ECHO else repr(text[:MAX_ECHO]) + f"... ({len(text):,} characters)"


def media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def is_form(request: Request) -> bool:
    return media_type(request) in FORMS


async def read_fields(request: Request, max_texts: int, workers: Workers, client: str,
                      file_field: str | None = None) -> dict[str, Any]:
    """The body's fields as sent (their names tell the dialect; `validated` checks them), parsed in
    `client`'s line of the workers' pool (`serve.workers`) within PARSE_TIMEOUT_S; ClientGone when the
    client left before its body was whole.
    `file_field`: the one multipart field that may be a file, read as (filename, UTF-8 text)."""
    content_type = request.headers.get("content-type", "")
    if len(content_type) > MAX_CONTENT_TYPE:
        raise HTTPException(400, f"the Content-Type header has {len(content_type):,} characters; at most "
                                 f"{MAX_CONTENT_TYPE:,} are read")
    media = media_type(request)
    if not (media == "application/json" or media.endswith("+json") or media in FORMS):
        raise HTTPException(415, f"the body must be JSON (Content-Type: application/json) or a form "
                                 f"({' or '.join(FORMS)}); got {echo(media) if media else 'none'}")
    try:
        raw = await request.body()
    except ClientDisconnect:
        raise ClientGone from None
    return await workers.run(client, parse_fields, raw, content_type, max_texts, file_field, timeout_s=PARSE_TIMEOUT_S,
                             refusal="the body could not be parsed")


def parse_fields(raw: bytes, content_type: str, max_texts: int, file_field: str | None = None) -> dict[str, Any]:
    """`read_fields` on a body already read: JSON, or a form's fields (at most max_texts `q` fields
    and FIELDS_BESIDES_Q others)."""
    media = content_type.split(";")[0].strip().lower()
    if media in FORMS:
        return _form(raw, media, content_type, max_texts + FIELDS_BESIDES_Q, file_field)
    return _json_object(raw)


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


def _form(raw: bytes, media: str, content_type: str, max_fields: int, file_field: str | None = None) -> dict[str, Any]:
    """Form fields as the JSON fields they stand for: `q` given more than once is a list; numbers
    and true/false parsed for the fields that take them; a file (but `file_field`'s), a glossary or too
    many fields refused.
    Every value must be UTF-8, percent-encoded or raw (no silent fallback to another charset)."""
    pairs: list[tuple[str, str | tuple[str, str]]]
    try:
        if media == FORMS[0]:
            pairs = list(parse_qsl(raw.decode("utf-8"), keep_blank_values=True, encoding="utf-8", errors="strict",
                                   max_num_fields=max_fields))
        else:
            pairs = _multipart(raw, content_type, max_fields, file_field)
    except (UnicodeError, ValueError, FormParserError) as exc:
        reason = clip(str(exc).rstrip("."), 2 * MAX_ECHO)
        files = f"a UTF-8 text file as {file_field}" if file_field else "no files"
        raise HTTPException(400, f"the form could not be read: {type(exc).__name__}: {reason}; send "
                                 f"UTF-8 text fields ({files}), at most {max_fields}") from None
    fields: dict[str, Any] = {}
    for name, value in pairs:
        if isinstance(value, tuple):  # the file
            fields[name] = value
        elif name == "q" and name in fields:
            fields[name] = [*([fields[name]] if isinstance(fields[name], str) else fields[name]), value]
        elif name in fields:
            raise _invalid(f"form field {echo(name)} given twice")
        elif name == "glossary":
            raise _invalid("glossary: send a glossary in a JSON body (pairs of terms)")
        else:
            fields[name] = _typed(name, value)
    return fields


def _multipart(raw: bytes, content_type: str, max_fields: int,
               file_field: str | None = None) -> list[tuple[str, str | tuple[str, str]]]:
    """multipart/form-data's text fields, read by python-multipart's streaming parser with every
    header line of a part bounded (MAX_PART_HEADER, MAX_PART_HEADERS); the part named `file_field` may
    be a file: (its base name, its UTF-8 text)."""
    boundary = parse_options_header(content_type)[1].get(b"boundary")
    if not boundary:
        raise ValueError("no boundary in Content-Type (multipart/form-data; boundary=...)")
    parts: list[tuple[dict[bytes, bytearray], bytearray]] = []
    header: list[bytearray] = [bytearray(), bytearray()]

    def begin() -> None:
        if len(parts) >= max_fields:
            raise ValueError(f"more than {max_fields} fields")
        parts.append(({}, bytearray()))

    def header_end() -> None:
        parts[-1][0][bytes(header[0]).lower()] = bytearray(header[1])
        header[0], header[1] = bytearray(), bytearray()

    callbacks: Any = {
        "on_part_begin": begin,
        "on_part_data": lambda data, start, end: parts[-1][1].extend(data[start:end]),
        "on_header_field": lambda data, start, end: header[0].extend(data[start:end]),
        "on_header_value": lambda data, start, end: header[1].extend(data[start:end]),
        "on_header_end": header_end,
    }
    parser = MultipartParser(boundary, callbacks, max_header_count=MAX_PART_HEADERS,
                             max_header_size=MAX_PART_HEADER)
    parser.write(raw)
    parser.finalize()
    if not parts:
        raise ValueError("no parts found (the boundary of Content-Type is not in the body)")
    pairs: list[tuple[str, str | tuple[str, str]]] = []
    for number, (headers, payload) in enumerate(parts):
        options = parse_options_header(bytes(headers.get(b"content-disposition", b"")))[1]
        name = options.get(b"name")
        if name is None:
            raise ValueError(f"part {number} has no name")
        if b"filename" in options:
            if file_field is None or name.decode("utf-8") != file_field:
                raise ValueError(f"part {number} is a file")
            filename = options[b"filename"].decode("utf-8").replace("\\", "/").rsplit("/", 1)[-1]
            pairs.append((file_field, (filename, bytes(payload).decode("utf-8-sig"))))
        else:
            pairs.append((name.decode("utf-8"), bytes(payload).decode("utf-8")))
    return pairs


def _typed(name: str, value: str) -> Any:
    if name in FORM_INTS and _SMALL_INT.fullmatch(value.strip()):
        return int(value)
    if name in FORM_BOOLS and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    return value  # anything else is checked by the model (a number that is not one is named there)


def _invalid(message: str) -> RequestValidationError:
    return RequestValidationError([{"loc": ("body",), "msg": message, "type": "invalid_body"}])
