"""Stalled connections on a live server: headers never finished, a body shorter than its
Content-Length, a byte at a time; each closed within its timeout while normal requests pass."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.serve.conftest import live_server
from translate.cli.serve import uvicorn_options
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings

HEADER_S, BODY_S = 0.6, 1.0


@pytest.fixture(scope="module")
def url(both_directions: Models) -> Iterator[str]:
    settings = ServeSettings(header_timeout_s=HEADER_S, body_timeout_s=BODY_S)
    with live_server(create_app(both_directions, settings), http=uvicorn_options(settings)["http"],
                     timeout_keep_alive=5) as address:
        yield address


def seconds_until_closed(url: str, *sends: bytes, gap_s: float = 0.0, limit_s: float = 10.0) -> float:
    """Open a connection, send `sends` (`gap_s` apart), then wait until the server closes it."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as s:
        began = time.monotonic()
        s.settimeout(limit_s)
        for data in sends:
            try:
                s.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - began
            time.sleep(gap_s)
        try:
            while s.recv(4096):
                pass
        except TimeoutError:
            return float("inf")
        except ConnectionResetError:
            pass
        return time.monotonic() - began


def test_headers_never_finished_are_closed_within_the_header_timeout(url: str) -> None:
    took = seconds_until_closed(url, b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert HEADER_S * 0.9 <= took < HEADER_S + 1.0, took
    assert seconds_until_closed(url) < HEADER_S + 1.0  # a connection that sends nothing at all


def test_a_byte_at_a_time_does_not_keep_a_connection(url: str) -> None:
    request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    took = seconds_until_closed(url, *[request[i:i + 1] for i in range(len(request))], gap_s=0.1)
    assert took < HEADER_S + 1.0, took  # 41 bytes at 0.1 s would need 4 s


def test_a_body_shorter_than_its_content_length_is_closed_within_the_body_timeout(url: str) -> None:
    head = b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    took = seconds_until_closed(url, head + b'{"q": "a cat"')
    assert BODY_S * 0.9 <= took < BODY_S + 1.0, took


def test_normal_requests_and_kept_alive_connections_pass(both_directions: Models) -> None:
    wait_s = HEADER_S + BODY_S + 0.2  # each batch waits this long: a request slower than both timeouts
    settings = ServeSettings(header_timeout_s=HEADER_S, body_timeout_s=BODY_S, batch_wait_ms=wait_s * 1000)
    with live_server(create_app(both_directions, settings), http=uvicorn_options(settings)["http"]) as url, \
            httpx.Client(base_url=url) as client:
        began = time.monotonic()
        assert client.post("/translate", json={"q": "a cat"}).status_code == 200  # not cut off while it waits
        assert time.monotonic() - began >= wait_s
        time.sleep(HEADER_S / 3)
        assert client.get("/health").status_code == 200  # the same connection, within the timeout


def test_bytes_that_are_not_http_get_a_json_400_with_the_security_headers(url: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as s:
        s.settimeout(5)
        s.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")  # e.g. TLS sent to the plain port
        reply = b""
        while chunk := s.recv(4096):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"x-frame-options: deny" in head.lower()
    assert b"content-type: application/json" in head.lower()
    assert b'"error": "invalid http request received' in body.lower()
