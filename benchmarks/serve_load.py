"""Bounded load test of `translate serve` on loopback (not part of the test suite).

    python scripts/benchmark.py serve-load                 # 30 s each at 1, 8 and 32 clients, then a flood
    python scripts/benchmark.py serve-load --seconds 5 --models en-zh --threads 1

Phase 1 starts the server with the rate limit raised (so only the model limits throughput) and
measures requests/s, p50/p95 latency and errors at each concurrency, and the server's RSS before
and after each phase (memory must stay flat). Phase 2 restarts it with the default limits and
floods it from many clients: 429s come back with Retry-After and /health stays fast meanwhile.
Clients and server share the machine's cores: on 2 cores the clients cost the server some speed.
Writes JSON to benchmarks/results/ (or --out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import REPO
from translate.config.paths import default_data_dir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def start_server(args: argparse.Namespace, limits: list[str],
                 extra: list[str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "translate", "serve", "--port", str(port), "--threads", str(args.threads),
           *(extra or [])]
    for spec in args.models:
        cmd += ["--models", spec]
    for item in limits:
        cmd += ["--limit", item]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start within 60 s")


def sentences(url: str) -> list[str]:
    """test.tsv sources for every direction the server has a model for (it picks by script)."""
    sources = {m["source"] for m in httpx.get(url + "/models").json()}
    lines = (default_data_dir() / "test.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if "\t" in line]
    return [r[0] for r in rows if "en" in sources] + [r[1] for r in rows if "zh" in sources]


async def client(url: str, texts: list[str], until: float, latencies: list[float], codes: dict[int, int],
                 rng: random.Random) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        while time.monotonic() < until:
            start = time.perf_counter()
            response = await c.post("/translate", json={"q": rng.choice(texts)})
            latencies.append(time.perf_counter() - start)
            codes[response.status_code] = codes.get(response.status_code, 0) + 1


async def phase(url: str, clients: int, seconds: float, texts: list[str]) -> dict[str, Any]:
    latencies: list[float] = []
    codes: dict[int, int] = {}
    until = time.monotonic() + seconds
    start = time.perf_counter()
    await asyncio.gather(*(client(url, texts, until, latencies, codes, random.Random(i)) for i in range(clients)))
    elapsed = time.perf_counter() - start
    q = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else [latencies[0]] * 19
    return {"clients": clients, "requests": len(latencies), "requests_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 1), "p95_ms": round(q[18] * 1000, 1),
            "errors": sum(n for code, n in codes.items() if code != 200), "status_codes": codes}


async def flood(url: str, clients: int, requests: int, texts: list[str]) -> dict[str, Any]:
    codes: dict[int, int] = {}
    retry_after: set[str] = set()

    async def one(c: httpx.AsyncClient, i: int) -> None:
        r = await c.post("/translate", json={"q": texts[i % len(texts)]})
        codes[r.status_code] = codes.get(r.status_code, 0) + 1
        if r.status_code == 429:
            retry_after.add(r.headers.get("Retry-After", "missing"))

    async def health(c: httpx.AsyncClient) -> float:
        start = time.perf_counter()
        await c.get("/health")
        return time.perf_counter() - start

    async with httpx.AsyncClient(base_url=url, timeout=60, limits=httpx.Limits(max_connections=clients)) as c:
        storm = asyncio.gather(*(one(c, i) for i in range(requests)))
        await asyncio.sleep(0.2)
        health_ms = [await health(c) * 1000 for _ in range(5)]
        await storm
    return {"requests": requests, "status_codes": codes, "retry_after": sorted(retry_after),
            "health_ms_during_flood": [round(h, 1) for h in health_ms]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--models", action="append", default=[], help="as for translate serve (default: released)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--flood", type=int, default=300, help="requests in the flood with default limits")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / f"{time.strftime('%Y-%m-%d')}-serve-load.json")
    args = parser.parse_args()
    load_before = list(os.getloadavg())  # a busy hour shows in the JSON
    proc, url = start_server(args, ["rate=100000", "burst=100000", "max_queue=10000"])
    texts = sentences(url)
    result: dict[str, Any] = {"threads": args.threads, "seconds": args.seconds, "texts": len(texts), "phases": []}
    try:
        for clients in (int(c) for c in args.concurrency.split(",")):
            before = rss_mb(proc.pid)
            figures = asyncio.run(phase(url, clients, args.seconds, texts))
            figures.update(rss_mb_before=before, rss_mb_after=rss_mb(proc.pid))
            result["phases"].append(figures)
            print(json.dumps(figures), flush=True)
    finally:
        proc.terminate()
        proc.wait()
    proc, url = start_server(args, [])
    try:
        result["flood"] = asyncio.run(flood(url, 32, args.flood, texts))
        print(json.dumps(result["flood"]), flush=True)
    finally:
        proc.terminate()
        proc.wait()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    result = {"load_average_before": load_before, "load_average_after": list(os.getloadavg()), **result}
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
