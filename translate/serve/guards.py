"""What every request passes before a route works on it: header and body bounds, the Host check and
the security headers on every reply, 500 included (ASGI middleware: `HostGuard` outermost, then
`BodyLimit`), and who may ask (`Access`: the client's rate, then its API key)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from translate.serve import libretranslate
from translate.serve.body import ClientGone, echo
from translate.serve.connections import SECURITY_HEADERS
from translate.serve.limits import RateLimiter, key_given, key_matches, retry_after
from translate.serve.settings import ServeSettings

logger = logging.getLogger(__name__)


class BodyTooLarge(HTTPException):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(413, f"request body is over {limit} bytes ({size} so far); the limit is max_body_bytes={limit}")


class BodyLimit:
    """ASGI middleware: 413 for a declared Content-Length over the limit; a body that streams past it
    raises BodyTooLarge from inside the route's body read (an HTTPException, so it is answered as 413)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            response = error_response(413, f"request body is {int(declared)} bytes; the limit is max_body_bytes={self.limit}")
            return await response(scope, receive, send)
        received = 0

        async def limited() -> Any:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b"")) if message["type"] == "http.request" else 0
            if received > self.limit:
                raise BodyTooLarge(received, self.limit)
            return message

        await self.app(scope, limited, send)


MAX_HEADER_BYTES = 8_192  # one request header's value (431 above)
MAX_HEADERS_BYTES = 32_768  # all of a request's headers together (431 above)


class HostGuard:
    """ASGI middleware, the outermost: 431 for request headers over their bounds, 400 for a Host
    header outside `allowed_hosts`; security headers on every reply, 500 included (an exception from
    inside is answered here: no stack trace, the headers kept); a client that left before its body was
    whole is logged as such. The headers: no sniffing, no framing, no referrer, a same-origin content
    policy (the page and /docs load nothing from elsewhere)."""

    PAGE_POLICY = ("default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'none'; "
                   "form-action 'self'")

    def __init__(self, app: Any, settings: ServeSettings) -> None:
        self.app, self.hosts = app, settings.hosts()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def secured(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                headers += SECURITY_HEADERS
                headers.append((b"content-security-policy", self.PAGE_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        refusal = self._refusal(scope.get("headers", []))
        if refusal is not None:
            return await refusal(scope, receive, secured)
        try:
            await self.app(scope, receive, secured)
        except ClientGone:
            logger.info("%s: the client left before its request body was whole", scope.get("path", "?"))
        except Exception:
            logger.exception("internal error on %s", scope.get("path", "?"))
            if not started:
                await error_response(500, "internal error (logged on the server)")(scope, receive, secured)

    def _refusal(self, raw_headers: list[tuple[bytes, bytes]]) -> JSONResponse | None:
        """The answer to headers that are too large or name a host not served; None when they are fine."""
        longest = max((len(value) for _, value in raw_headers), default=0)
        total = sum(len(name) + len(value) for name, value in raw_headers)
        if longest > MAX_HEADER_BYTES or total > MAX_HEADERS_BYTES:
            return error_response(431, f"request headers too large: {longest:,} bytes in one, {total:,} in all; the limits "
                               f"are {MAX_HEADER_BYTES:,} and {MAX_HEADERS_BYTES:,}")
        host = dict(raw_headers).get(b"host", b"").decode("latin-1").lower()
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
        if "*" not in self.hosts and name.strip("[]") not in self.hosts:
            return error_response(400, f"host {echo(host) if host else 'none'} is not served here; allowed_hosts="
                               f"{','.join(sorted(self.hosts))} (change it with --limit allowed_hosts=...)")
        return None


def error_response(status: int, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)



def client_of(request: Request) -> str:
    """Who a request comes from, for the rate limit and the fair shares: its address (behind a proxy
    named in `trusted_proxies`, the address the proxy forwarded; see `cli.serve.uvicorn_options`)."""
    return request.client.host if request.client else "unknown"


class Access:
    """Who may ask: the API key from the headers or the body (401; LibreTranslate's dialect: 403
    wrong, 400 missing), then the client's rate (429)."""

    def __init__(self, settings: ServeSettings) -> None:
        self.settings, self.limiter = settings, RateLimiter(settings.rate, settings.burst)

    def rate(self, request: Request, cost: float = 1.0) -> None:
        wait = self.limiter.acquire(client_of(request), cost)
        if wait > 0:
            raise HTTPException(429, f"too many requests (rate={self.settings.rate:g}/s, burst={self.settings.burst})",
                                headers={"Retry-After": retry_after(wait)})

    def key(self, request: Request, body_key: Any = None) -> None:
        """The API key's check alone (after `rate`); a wrong or missing key also takes FAILED_KEY_COST
        tokens of the client's rate, so guesses run into 429 after a few."""
        headers = {k.lower(): v for k, v in request.headers.items()}
        given = body_key if isinstance(body_key, str) else None
        if not key_matches(self.settings.api_key, headers, given):
            self.limiter.spend(client_of(request), FAILED_KEY_COST)
            status, message = libretranslate.key_refusal(request, given is not None or key_given(headers))
            raise HTTPException(status, message)

    def before_body(self, request: Request) -> None:
        """Before a body is read: the rate, and a key sent in the headers (the headers win over the
        body's `api_key`, so a wrong one there is refused without parsing anything)."""
        self.rate(request)
        if key_given({k.lower(): v for k, v in request.headers.items()}):
            self.key(request)

    def check(self, request: Request, body_key: Any = None) -> None:
        """The rate, then the key: for routes whose key can only come in the headers."""
        self.rate(request)
        self.key(request, body_key)


FAILED_KEY_COST = 4  # rate-limit tokens a refused key takes besides its request's own
