"""`translate serve`: the web page and HTTP API (FastAPI + uvicorn, imported only when serving)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer

from translate.cli.common import DeviceOpt, EnsembleOpt, handle_errors, plain
from translate.serve.settings import ServeSettings, read_api_key

_LIMITS = {f.name: f for f in dataclasses.fields(ServeSettings) if f.name not in ("host", "port", "api_key")}
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LIMIT_HELP = ", ".join(f"{name}={f.default}" for name, f in _LIMITS.items())


def parse_limits(items: list[str]) -> dict[str, Any]:
    """`NAME=VALUE` pairs -> typed ServeSettings values; unknown names and bad numbers are BadParameter."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name not in _LIMITS:
            raise typer.BadParameter(f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(_LIMITS)}",
                                     param_hint="--limit")
        kind: type = type(_LIMITS[name].default)
        try:
            out[name] = kind(value)
        except ValueError:
            raise typer.BadParameter(f"{item!r}: {name} takes a {kind.__name__}", param_hint="--limit") from None
    return out


def uvicorn_options(settings: ServeSettings) -> dict[str, Any]:
    """uvicorn's settings: proxy headers (X-Forwarded-For) believed only from `trusted_proxies` (uvicorn
    itself trusts 127.0.0.1 by default, which let any local client pick its own rate-limit identity);
    idle keep-alive connections closed after 5 s; stalled headers and bodies closed
    (`serve.connections`)."""
    from translate.serve.connections import timed_protocol

    proxies = settings.trusted_proxies.strip()
    return {"host": settings.host, "port": settings.port, "log_level": "warning", "proxy_headers": bool(proxies),
            "forwarded_allow_ips": proxies or None, "timeout_keep_alive": 5,
            "http": timed_protocol(settings.header_timeout_s, settings.body_timeout_s)}


@handle_errors
def serve(models: Annotated[list[str] | None, typer.Option("--models", "-m", help=(
              "A checkpoint folder, run folder, released model name or NAME=PATH (repeatable); "
              "NAME=PATH+PATH serves an ensemble (same direction and vocabularies); "
              "default: every released model (both directions)."))] = None,
          host: Annotated[str, typer.Option(help="Address to bind; 0.0.0.0 exposes the server to the network.")] = "127.0.0.1",
          port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
          limit: Annotated[list[str] | None, typer.Option(help=f"Change a limit, NAME=VALUE (repeatable): {_LIMIT_HELP}.")] = None,
          api_key_file: Annotated[Path | None, typer.Option(help=(
              "Require this key (first line of the file) as X-API-Key or Bearer token; "
              "without it, $TRANSLATE_API_KEY if set, else no key."))] = None,
          threads: Annotated[int, typer.Option(help="Torch CPU threads (0 = torch's default).")] = 0,
          study: Annotated[Path | None, typer.Option(help=(
              "A translate compare study (its --out folder): the page compares its runs side by side on the "
              "user's own text, with the study's table and figures."))] = None,
          study_runs: Annotated[Path | None, typer.Option(help=(
              "Where the study's runs keep their weights (translate compare --work; default: STUDY/runs)."))] = None,
          device: DeviceOpt = None, ensemble: EnsembleOpt = False) -> None:
    """Serve the page (/) and the API (/translate, /models, /health; its reference at /docs).

    Requests that arrive together with the same model, beam and n-best are searched as one batch.

    Example: translate serve --port 8000   then open http://127.0.0.1:8000/
    """
    settings = ServeSettings(host=host, port=port, api_key=read_api_key(api_key_file), **parse_limits(limit or []))
    import torch
    import uvicorn

    from translate.serve.app import create_app
    from translate.serve.models import Models

    if threads > 0:
        torch.set_num_threads(threads)
    served = Models.load(models, plain(device) or "cpu", ensemble)
    if study is not None:
        from translate.serve.study import Study

        served.study = Study(study, study_runs)
        with_weights = sum(run.weights is not None for run in served.study.runs.values())
        typer.echo(f"study {study}: {len(served.study.runs)} runs, {with_weights} with their weights (the others are "
                   f"shown from the study's files)", err=True)
    for name, model in served.by_name.items():
        typer.echo(f"model {name}: {model.artifact.direction}, {model.artifact.model.mechanism}", err=True)
    typer.echo(f"serving on http://{host}:{port}/  (API key {'required' if settings.api_key else 'off'}; Ctrl-C stops)",
               err=True)
    if host not in LOOPBACK and settings.allowed_hosts == ServeSettings.allowed_hosts:
        typer.echo(f"note: bound to {host}, but only requests naming {settings.allowed_hosts} as Host are answered; "
                   "add your server's name with --limit allowed_hosts=... (docs/serving.md: behind a proxy)", err=True)
    uvicorn.run(create_app(served, settings), **uvicorn_options(settings))
