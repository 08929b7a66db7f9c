"""Every limit of the server is one setting here; the CLI and tests build ServeSettings directly."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path

from translate.errors import ConfigError

API_KEY_ENV = "TRANSLATE_API_KEY"


@dataclass(frozen=True)
class ServeSettings:
    host: str = "127.0.0.1"  # loopback unless told otherwise
    port: int = 8000
    max_body_bytes: int = 65_536  # request body (413 above)
    max_chars: int = 1_000  # characters per text (413 above)
    max_texts: int = 100  # texts per request (413 above): a word list of 100 lines
    # attention cells a request may ask for (alternatives x source pieces x longest possible translation,
    # summed over its texts; 413 above): what bounds the memory of attention replies
    max_attention_cells: int = 400_000
    rate: float = 5.0  # requests per second per client address, refilled continuously (429 above)
    burst: int = 20  # requests a client may send at once before the rate applies
    max_queue: int = 256  # texts waiting for the model (503 above)
    max_client_queue: int = 128  # texts one client may have waiting (429 above): the rest stays for others
    timeout_s: float = 30.0  # a request waiting longer gets 504
    # a connection whose request headers are not whole this long after it opened (or after the previous
    # response), or whose body is not whole this long after its headers, is closed
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    batch_wait_ms: float = 10.0  # how long the first request of a batch waits for others
    max_batch: int = 64  # texts searched together at most
    # estimated search cost searched together at most (source pieces x beam x n-best per sentence, twice
    # that with attention; a costlier text goes alone): bounds one batch's memory and time
    max_batch_cost: int = 6_000
    max_active_batches: int = 4  # batches searching at once, taking turns on the model between search steps
    # beyond those, a client with nothing searching still gets a place for one text, up to this many
    # places: the turns serialise the model, so places bound memory (one text each), not fairness
    max_extra_batches: int = 16
    # threads that read bodies and HTML, choose models and count costs before a search and build replies
    # after it; each client uses one at a time (`serve.workers`), so a client with work gets a thread
    # while fewer clients than this have work
    prepare_threads: int = 16
    work_cost: float = 20.0  # rate tokens a client is charged per second of that work (the burst: one second)
    max_html_tags: int = 1_024  # start tags in one request's HTML documents, counted before parsing (413 above)
    api_key: str = ""  # "" = no key needed; else requests must send it (401 otherwise)
    # Host header names answered (comma-separated; "*" = any): the loopback names, so that a web page
    # elsewhere cannot drive a local server through DNS rebinding (400 otherwise)
    allowed_hosts: str = "localhost,127.0.0.1,::1"
    # addresses whose X-Forwarded-For is believed (comma-separated; "" = none: the connection's own
    # address identifies the client, so a forged header cannot dodge the rate limit)
    trusted_proxies: str = ""

    def hosts(self) -> set[str]:
        return {h.strip().lower().strip("[]") for h in self.allowed_hosts.split(",") if h.strip()}

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                allowed_zero = f.name == "batch_wait_ms"
                if value < 0 or (value == 0 and not allowed_zero):
                    raise ConfigError(f"serve setting {f.name} must be positive, got {value}")
        if not 0 < self.port < 65536:
            raise ConfigError(f"serve setting port must be 1-65535, got {self.port}")


def read_api_key(key_file: Path | None) -> str:
    """The API key from a file (first line) or, without one, from $TRANSLATE_API_KEY; "" = none."""
    if key_file is None:
        return os.environ.get(API_KEY_ENV, "").strip()
    try:
        key = key_file.read_text(encoding="utf-8").strip().splitlines()
    except OSError as exc:
        raise ConfigError(f"{key_file}: cannot read the API key file ({exc.strerror})") from None
    if not key or not key[0].strip():
        raise ConfigError(f"{key_file}: the API key file is empty")
    return key[0].strip()
