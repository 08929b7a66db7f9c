"""Connections that stall are closed: uvicorn's HTTP/1.1 protocol (h11) with a header timeout and a
body timeout, which uvicorn itself does not have (it closes only idle keep-alive connections).

A request's headers must be complete within `header_timeout_s` of the connection opening, or of
the previous response on a kept-alive connection; its body within `body_timeout_s` of its headers.
A connection past either is closed (no reply: the request was never whole), so a client sending
one byte at a time, or a body shorter than its Content-Length, cannot hold a connection open.
Bytes that are not HTTP get a JSON 400 with the security headers, like every other error."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# what every reply carries (`app.HostGuard` adds the same to the app's replies)
SECURITY_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer")]


class TimedH11Protocol(H11Protocol):
    header_timeout_s = 10.0
    body_timeout_s = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stall_timer: asyncio.TimerHandle | None = None
        self._timed_cycle: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if cycle is not None and cycle is not self._timed_cycle:  # a new request's headers are in
            self._timed_cycle = cycle
            self._disarm()
            if cycle.more_body:
                self._arm(self.body_timeout_s)
        if cycle is not None and not cycle.more_body and cycle is self._timed_cycle:
            self._disarm()  # the request is whole: the app's own deadline (timeout_s) takes over

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm(self.header_timeout_s)  # the next request on this connection

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes that are not HTTP, as every other error: JSON, with the security
        headers (uvicorn's own is plain text without them)."""
        body = json.dumps({"error": f"{msg.rstrip('.').lower()}: not an HTTP/1.1 request this server can read"}).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"), *SECURITY_HEADERS]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                      h11.EndOfMessage()):
            try:
                self.transport.write(self.conn.send(event) or b"")
            except h11.LocalProtocolError:  # h11 cannot answer in this state: just close
                break
        self.transport.close()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._stall_timer = self.loop.call_later(seconds, self._stalled)

    def _disarm(self) -> None:
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _stalled(self) -> None:
        self._stall_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def timed_protocol(header_timeout_s: float, body_timeout_s: float) -> type[TimedH11Protocol]:
    """The protocol class uvicorn takes as `http=`, with these timeouts."""
    return type("TimedH11Protocol", (TimedH11Protocol,),
                {"header_timeout_s": header_timeout_s, "body_timeout_s": body_timeout_s})
