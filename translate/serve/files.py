"""LibreTranslate's file translation: `POST /translate_file` takes a .txt or .html file (multipart field
`file`, with `source`, `target`, `api_key`) and answers `{"translatedFileUrl": ...}`, where
`GET /download_file/<token>.<name>` gives the translated file.

A text file is translated line by line (empty lines stay, the line count bounded by `max_texts`, each
line by `max_chars`); an HTML file is one document (`format: html`: its tags kept). Both go through
the same path as `/translate`: the same limits, API key and fair shares. Translated files are kept in
memory, at most MAX_FILES of them and MAX_BYTES in all, for KEEP_S seconds, under an unguessable token;
the oldest go first.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, HTTPException, Request, Response

from translate.serve import libretranslate
from translate.serve.body import clip, read_fields, validated
from translate.serve.guards import Access
from translate.serve.schemas import TranslateRequest
from translate.serve.settings import ServeSettings
from translate.serve.workers import Workers

SUFFIXES = {".txt": "text", ".html": "html", ".htm": "html"}
MAX_FILES = 64
MAX_BYTES = 16 * 2**20
KEEP_S = 600.0

Translate = Callable[[TranslateRequest, str], Awaitable[dict[str, Any]]]  # a request and its client -> the reply


class TranslatedFiles:
    """Translated files by token, oldest first; expired and surplus ones dropped as new ones come."""

    def __init__(self, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES, keep_s: float = KEEP_S) -> None:
        self.max_files, self.max_bytes, self.keep_s = max_files, max_bytes, keep_s
        self._files: OrderedDict[str, tuple[str, bytes, float]] = OrderedDict()

    def add(self, name: str, data: bytes) -> str:
        token = secrets.token_urlsafe(16)
        self._files[token] = (name, data, time.monotonic())
        self._trim()
        return token

    def get(self, token: str) -> tuple[str, bytes] | None:
        self._trim()
        found = self._files.get(token)
        return None if found is None else found[:2]

    def _trim(self) -> None:
        now = time.monotonic()
        while self._files and (len(self._files) > self.max_files or self._bytes() > self.max_bytes
                               or now - next(iter(self._files.values()))[2] > self.keep_s):
            self._files.popitem(last=False)

    def _bytes(self) -> int:
        return sum(len(data) for _, data, _ in self._files.values())


def install(app: FastAPI, translate: Translate, settings: ServeSettings, access: Access, client_of: Callable[[Request], str],
            workers: Workers) -> None:
    """The two routes (see the module docstring), in LibreTranslate's dialect."""
    files = TranslatedFiles()

    @app.post("/translate_file", include_in_schema=True)
    async def translate_file(request: Request) -> dict[str, str]:
        """LibreTranslate's file translation: a .txt or .html file in, the translated file's URL out."""
        libretranslate.mark_dialect(request)
        access.before_body(request)
        fields = await read_fields(request, settings.max_texts, workers, client_of(request), file_field="file")
        access.key(request, fields.get("api_key"))
        upload = fields.pop("file", None)
        if not isinstance(upload, tuple):
            raise HTTPException(400, "send the file as the multipart field 'file' (a .txt or .html file in UTF-8)")
        name, text = upload
        kind = SUFFIXES.get(name[name.rfind("."):].lower() if "." in name else "")
        if kind is None:
            raise HTTPException(400, f"{clip(name)}: files ending in {', '.join(SUFFIXES)} are translated")
        lines = text.split("\n")
        wanted = [i for i, line in enumerate(lines) if line.strip()] if kind == "text" else [0]
        if not wanted:
            translated = text
        else:
            q = [lines[i].rstrip("\r") for i in wanted] if kind == "text" else text
            req = validated(TranslateRequest, {**fields, "q": q, "format": kind})
            reply = await translate(req, client_of(request))
            if kind == "html":
                translated = reply["translatedText"]
            else:
                for i, line in zip(wanted, reply["translatedText"]):
                    lines[i] = line + ("\r" if lines[i].endswith("\r") else "")
                translated = "\n".join(lines)
        token = files.add(name, translated.encode("utf-8"))
        return {"translatedFileUrl": f"{str(request.base_url).rstrip('/')}/download_file/{token}.{quote(name)}"}

    async def download_file(filename: str, request: Request) -> Response:
        """A translated file, while it is kept (see the module docstring)."""
        access.check(request)
        token = filename.split(".", 1)[0]
        found = files.get(token)
        if found is None:
            raise HTTPException(404, "no such translated file (they are kept for 10 minutes)")
        name, data = found
        media = "text/html" if SUFFIXES.get(name[name.rfind("."):].lower()) == "html" else "text/plain"
        return Response(data, media_type=f"{media}; charset=utf-8",
                        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}"})

    app.get("/download_file/{filename}", include_in_schema=False)(download_file)
    app.head("/download_file/{filename}", include_in_schema=False)(download_file)
