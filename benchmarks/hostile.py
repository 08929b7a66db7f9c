"""Hostile requests against `translate serve` on loopback, with the default limits (not part of the
test suite): each request's status, seconds and the server's RSS before and after (and its peak).

    python scripts/benchmark.py hostile                      # the released models, 2 threads
    python scripts/benchmark.py hostile --models en-zh --out /tmp/hostile.json

The requests are the worst ends of every limit and the attacks a public server meets: the largest
valid body with and without attention, the largest attention still allowed (once, then in rounds:
memory must not grow), a lone surrogate, a
body that is not JSON, numbers sent as strings, a foreign Host header, a forged X-Forwarded-For per
request (the rate limit must still hold), idle connections that never finish their headers while
a normal request is served, and a glossary of 100 terms; LibreTranslate's routes and body types: the
largest form (urlencoded and multipart), the largest HTML, form bytes that are not UTF-8, a file
part, a lone surrogate sent to /detect, the largest /detect, a foreign Host on /languages; bodies
shorter than their Content-Length; one client's flood of the largest requests beside another
client's sentence (fair shares); a 60 KB Content-Type header of quotes and a multipart part header of
quotes, each with /health timed meanwhile (the event loop must stay free), form numbers that int()
refuses, HTML whose comment a browser never closes, and 100 guessed API keys. Writes JSON to
benchmarks/results/ (or --out).

    python scripts/benchmark.py hostile --only owners        # one client's work where every client waits

`--only owners`: with the default limits, 20 requests of costly spans at once, bursts of 125-block HTML
documents, <template> in <select>, a forged run marker, four addresses looping heavy searches, and the
largest attention allowed until its deadline; another address's /health and sentence timed meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from benchmarks import REPO
from benchmarks.serve_load import rss_mb, start_server
from translate.config.paths import default_data_dir

MASTODON_POST = ('<p>Hello <span class="h-card" translate="no"><a href="https://m.social/@bob" class="u-url mention">'
                 '@<span>bob</span></a></span>, where is the station? 😀<br>I will go to Beijing tomorrow.</p>')
LONG_EN = ("The committee will meet again next Tuesday to discuss the budget, the new library and the plans "
           "for the summer festival in the old town. ") * 8


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def measure(pid: int, label: str, send: Any) -> dict[str, Any]:
    before = rss_mb(pid)
    began = time.perf_counter()
    status, note = send()
    row = {"request": label, "status": status, "seconds": round(time.perf_counter() - began, 2),
           "rss_before_mb": before, "rss_after_mb": rss_mb(pid), "peak_rss_mb": peak_mb(pid), "note": note}
    print(json.dumps(row, ensure_ascii=False), flush=True)
    return row


def post(url: str, body: Any = None, path: str = "/translate", **kwargs: Any) -> Any:
    def send() -> tuple[int, str]:
        r = httpx.post(url + path, json=body, timeout=120, **kwargs) if body is not None else \
            httpx.post(url + path, timeout=120, **kwargs)
        return r.status_code, _answer(r)
    return send


def get(url: str, path: str, **kwargs: Any) -> Any:
    def send() -> tuple[int, str]:
        r = httpx.get(url + path, timeout=60, **kwargs)
        return r.status_code, _answer(r)
    return send


def _answer(r: httpx.Response) -> str:
    return str(r.json().get("error", ""))[:120] if r.status_code != 200 else ""


def attention_rounds(url: str, rounds: int = 12) -> Any:
    """Repeated attention requests at the largest sizes allowed: memory must come back (no growth)."""
    def send() -> tuple[int, str]:
        lines = [line.split("\t")[0] for line in
                 (default_data_dir() / "test.tsv").read_text(encoding="utf-8").splitlines()[:32 * rounds]]
        codes = []
        for i in range(rounds):
            codes.append(httpx.post(url + "/translate", json={"q": lines[i * 32:(i + 1) * 32], "source": "en", "beam": 10,
                                                              "n_best": 5, "attention": True}, timeout=120).status_code)
            codes.append(httpx.post(url + "/translate", json={"q": LONG_EN[:1000], "source": "en", "beam": 10,
                                                              "n_best": 4, "attention": True}, timeout=120).status_code)
        return max(codes), f"{codes.count(200)} of {len(codes)} answered"
    return send


def forged_flood(url: str) -> Any:
    def send() -> tuple[int, str]:
        codes = [httpx.post(url + "/translate", json={"q": "Hi."}, headers={"X-Forwarded-For": f"10.9.{i // 250}.{i % 250}"},
                            timeout=60).status_code for i in range(40)]
        return max(codes), f"{codes.count(200)} x 200, {codes.count(429)} x 429 of 40 (burst 20)"
    return send


def stalled_connections(url: str, count: int = 50, body: bool = False) -> Any:
    """`count` connections that stall (headers never finished, or a body shorter than its
    Content-Length): a normal request beside them, then how long until the server has closed them all."""
    def send() -> tuple[int, str]:
        host, port = url.removeprefix("http://").split(":")
        sockets = []
        began = time.perf_counter()
        for _ in range(count):
            s = socket.create_connection((host, int(port)))
            s.sendall(b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                      (b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{" if body else b""))
            s.settimeout(60)
            sockets.append(s)
        try:
            asked = time.perf_counter()
            r = httpx.post(url + "/translate", json={"q": "Where is the station?"}, timeout=60)
            answered = time.perf_counter() - asked
            open_ = 0
            for s in sockets:
                try:
                    open_ += bool(s.recv(1))  # b"": closed by the server
                except TimeoutError:
                    open_ += 1
            return r.status_code, (f"a normal request answered in {answered:.2f} s beside {count} stalled; "
                                   f"{count - open_} of {count} closed by the server {time.perf_counter() - began:.1f} s "
                                   f"after they opened")
        finally:
            for s in sockets:
                s.close()
    return send


def beside_health(url: str, request: Any) -> Any:
    """`request` sent in a thread while /health is asked again and again: its status, and the slowest
    /health answer meanwhile (a parser on the event loop shows here)."""
    def send() -> tuple[int, str]:
        import threading

        reply: list[httpx.Response] = []
        thread = threading.Thread(target=lambda: reply.append(request()))
        thread.start()
        slowest = 0.0
        while thread.is_alive():
            began = time.perf_counter()
            httpx.get(url + "/health", timeout=120)
            slowest = max(slowest, time.perf_counter() - began)
        thread.join()
        return reply[0].status_code, f"slowest /health meanwhile {slowest:.3f} s; {_answer(reply[0])[:80]}"
    return send


def html_reply(url: str, document: str) -> Any:
    def send() -> tuple[int, str]:
        r = httpx.post(url + "/translate", json={"q": document, "source": "en", "target": "zh", "format": "html"},
                       timeout=120)
        return r.status_code, str(r.json().get("translatedText", "")) if r.status_code == 200 else _answer(r)
    return send


def guessed_keys(url: str, guesses: int = 100) -> Any:
    def send() -> tuple[int, str]:
        codes = [httpx.post(url + "/translate", json={"q": "Hi.", "api_key": f"guess-{i}"}, timeout=60).status_code
                 for i in range(guesses)]
        return max(codes), f"{codes.count(403)} x 403, {codes.count(429)} x 429 of {guesses}"
    return send


def fair_shares(url: str, heavy: int = 20) -> Any:
    """`heavy` requests of 32 long texts from one client address at once, then one sentence from
    another (addresses told by X-Forwarded-For, the server trusting 127.0.0.1 as its proxy)."""
    def send() -> tuple[int, str]:
        async def scenario() -> tuple[float, list[int]]:
            async with httpx.AsyncClient(timeout=300) as client:
                flood = [asyncio.create_task(client.post(url + "/translate", json={"q": [LONG_EN[:1000]] * 32, "source": "en"},
                                                         headers={"X-Forwarded-For": "10.0.0.1"}))
                         for _ in range(heavy)]
                await asyncio.sleep(1.0)
                began = time.perf_counter()
                single = await client.post(url + "/translate", json={"q": "Where is the station?"},
                                           headers={"X-Forwarded-For": "10.0.0.2"})
                waited = time.perf_counter() - began
                codes = [r.status_code for r in await asyncio.gather(*flood)]
                return waited, [single.status_code, *codes]
        waited, codes = asyncio.run(scenario())
        counts = ", ".join(f"{n} x {code}" for code, n in sorted(Counter(codes[1:]).items()))
        return codes[0], f"the other client's sentence answered in {waited:.2f} s; the flood: {counts}"
    return send


async def _probe(url: str, flood: Any, until_done: bool = True, seconds: float = 0.0) -> dict[str, Any]:
    """`flood(client)` (a coroutine: one address's attack, told by X-Forwarded-For 10.0.0.1) while another
    address (10.0.0.2) asks /health and one sentence every 250 ms: the slowest of each, the sentence's
    failures, and the flood's statuses."""
    async with httpx.AsyncClient(timeout=300) as client:
        attack = asyncio.create_task(flood(client))
        health_s: list[float] = []
        sentence_s: list[float] = []
        failures: Counter[int] = Counter()
        began = time.perf_counter()
        await asyncio.sleep(0.05)
        while not attack.done() or time.perf_counter() - began < seconds:
            t = time.perf_counter()
            await client.get(url + "/health", headers={"X-Forwarded-For": "10.0.0.2"})
            health_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = await client.post(url + "/translate", json={"q": "Where is the station?", "source": "en"},
                                  headers={"X-Forwarded-For": "10.0.0.2"})
            sentence_s.append(time.perf_counter() - t)
            if r.status_code != 200:
                failures[r.status_code] += 1
            await asyncio.sleep(0.25)  # within the default rate (5/s): the probe is never what is limited
        codes = await attack
    return {"slowest_health_s": round(max(health_s, default=0), 3), "slowest_sentence_s": round(max(sentence_s, default=0), 3),
            "probes": len(sentence_s), "other_client_failures": dict(failures),
            "flood": dict(Counter(codes)), "took_s": round(time.perf_counter() - began, 2)}


def _summary(found: dict[str, Any]) -> str:
    return (f"/health at worst {found['slowest_health_s']:.2f} s, the other client's sentence at worst "
            f"{found['slowest_sentence_s']:.2f} s over {found['probes']} probes (failures {found['other_client_failures']}); "
            f"the flood {found['flood']} in {found['took_s']} s")


def costly_spans(url: str, count: int = 20) -> Any:
    """`count` x `{"q": ["a-"*500]*65, "attention": true}` at once from one address."""
    def send() -> tuple[int, str]:
        async def flood(client: httpx.AsyncClient) -> list[int]:
            replies = await asyncio.gather(*(client.post(url + "/translate", json={"q": ["a-" * 500] * 65, "attention": True},
                                                         headers={"X-Forwarded-For": "10.0.0.1"}) for _ in range(count)))
            return [r.status_code for r in replies]
        found = asyncio.run(_probe(url, flood))
        return max(found["other_client_failures"] or {200: 0}), _summary(found)
    return send


def html_bursts(url: str, bursts: int = 5, size: int = 20) -> Any:
    """`bursts` bursts of `size` x 65 documents of 125 blocks (`<p>x</p>` x 125) from one address."""
    def send() -> tuple[int, str]:
        async def flood(client: httpx.AsyncClient) -> list[int]:
            codes: list[int] = []
            for _ in range(bursts):
                replies = await asyncio.gather(*(client.post(
                    url + "/translate", json={"q": ["<p>x</p>" * 125] * 65, "format": "html"},
                    headers={"X-Forwarded-For": "10.0.0.3"}) for _ in range(size)))  # not charged for the row above
                codes += [r.status_code for r in replies]
            return codes
        found = asyncio.run(_probe(url, flood))
        return max(found["other_client_failures"] or {200: 0}), _summary(found)
    return send


HEAVY = {"q": "嗯…" * 500, "beam": 10, "n_best": 5, "attention": True}


def heavy_loops(url: str, clients: int = 4, seconds: float = 30.0) -> Any:
    """`clients` addresses each looping one heavy text (beam 10, n-best 5, attention) for `seconds`."""
    def send() -> tuple[int, str]:
        async def flood(client: httpx.AsyncClient) -> list[int]:
            stop = time.perf_counter() + seconds

            async def loop(address: str) -> list[int]:
                codes = []
                while time.perf_counter() < stop:
                    r = await client.post(url + "/translate", json=HEAVY, headers={"X-Forwarded-For": address})
                    codes.append(r.status_code)
                return codes
            return [code for codes in await asyncio.gather(*(loop(f"10.0.1.{i}") for i in range(clients)))
                    for code in codes]
        found = asyncio.run(_probe(url, flood))
        return max(found["other_client_failures"] or {200: 0}), _summary(found)
    return send


def attention_deadline(url: str, pid: int) -> Any:
    """The 343,815-cell attention request (under max_attention_cells) until its 504, then how soon
    another client's sentence is answered (the model let go) and the server's peak RSS."""
    def send() -> tuple[int, str]:
        async def scenario() -> tuple[int, float, float, int]:
            async with httpx.AsyncClient(timeout=300) as client:
                began = time.perf_counter()
                heavy = await client.post(url + "/translate", json={"q": "嗯…" * 450 + "好" * 100, "beam": 5, "n_best": 5,
                                                                    "attention": True},
                                          headers={"X-Forwarded-For": "10.0.0.1"})
                answered = time.perf_counter() - began
                t = time.perf_counter()
                other = await client.post(url + "/translate", json={"q": "Where is the station?", "source": "en"},
                                          headers={"X-Forwarded-For": "10.0.0.2"})
                return heavy.status_code, answered, time.perf_counter() - t, other.status_code
        status, answered, after, other = asyncio.run(scenario())
        return status, (f"answered {status} after {answered:.1f} s; another client's sentence then answered {other} "
                        f"in {after:.2f} s; server peak RSS {peak_mb(pid)} MB")
    return send


def owner_cases(url: str, pid: int) -> list[tuple[str, Any]]:
    """The requests that once landed one client's work where every client waits (the loop, the shared
    pool, the search places, the model during attention), each with another client's sentence timed."""
    return [
        ('20 x {"q": ["a-"*500]*65, "attention": true} at once from one address', costly_spans(url)),
        ('5 bursts of 20 x 65 HTML documents of 125 blocks from one address', html_bursts(url)),
        ("format html: <template> inside <select> hiding <img onerror>",
         html_reply(url, '<p>Good morning</p><select><template><textarea></textarea><img src=x onerror=alert(1)>'
                         '</template></select><!-- hidden note')),
        ("format html: a forged run marker U+E000 9 U+E001", html_reply(url, "<p>Hello <code>\ue0009\ue001</code> there.</p>")),
        ("343,815 attention cells (beam 5, n-best 5)", attention_deadline(url, pid)),
        ('4 addresses looping {"q": "嗯…"*500, "beam": 10, "n_best": 5, "attention": true} for 30 s', heavy_loops(url)),
    ]


def request_cases(url: str) -> list[tuple[str, Any]]:
    """The single requests, each at the worst end of a limit or an attack (label, send)."""
    worst = {"q": [LONG_EN[:1000]] * 64, "source": "en", "beam": 10, "n_best": 5}  # the most max_body_bytes holds
    return [
        ("64 texts x 1,000 characters, beam 10, n-best 5, attention", post(url, {**worst, "attention": True})),
        ("the same without attention", post(url, worst)),
        ("1 text x 1,000 characters, beam 10, n-best 4, attention (within max_attention_cells)",
         post(url, {**worst, "q": LONG_EN[:1000], "n_best": 4, "attention": True})),
        ("a lone surrogate (valid JSON)", post(url, content=b'{"q": "Hello \\ud800 world"}',
                                               headers={"Content-Type": "application/json"})),
        ("bytes that are not UTF-8", post(url, content=b'{"q": "\xff\xfe"}', headers={"Content-Type": "application/json"})),
        ("form (urlencoded): 32 texts x 1,000 characters, beam 10, 4 alternatives",
         post(url, data={"q": [LONG_EN[:1000]] * 32, "source": "en", "target": "zh", "beam": "10", "alternatives": "4"})),
        ("form (multipart): 32 texts x 1,000 characters, beam 10, 4 alternatives",
         post(url, files=[("q", (None, LONG_EN[:1000])) for _ in range(32)] + [
             ("source", (None, "en")), ("target", (None, "zh")), ("beam", (None, "10")), ("alternatives", (None, "4"))])),
        ("format html: 32 posts of 1,000 characters with links and mentions (over max_client_queue text runs)",
         post(url, {"q": [(MASTODON_POST * 8)[:1000]] * 32, "source": "auto", "target": "zh", "format": "html"})),
        ("format html: 8 posts of 1,000 characters with links and mentions",
         post(url, {"q": [(MASTODON_POST * 8)[:1000]] * 8, "source": "auto", "target": "zh", "format": "html"})),
        ("form bytes that are not UTF-8 (q=%FF)", post(url, content=b"q=%FF&target=zh",
                                                      headers={"Content-Type": "application/x-www-form-urlencoded"})),
        ("a multipart file part", post(url, files={"q": ("post.txt", b"Hello")})),
        ("a lone surrogate sent to /detect", post(url, path="/detect", content=b'{"q": "Hello \\ud800"}',
                                                  headers={"Content-Type": "application/json"})),
        ("/detect: 32 texts x 1,000 characters", post(url, {"q": [LONG_EN[:1000]] * 32}, path="/detect")),
        ("a foreign Host header on /languages", get(url, "/languages", headers={"Host": "evil.example"})),
        ("a body that is neither JSON nor a form", post(url, content=b"q=hello", headers={"Content-Type": "text/plain"})),
        ('"beam": "5" (a number as a string)', post(url, {"q": "Hi.", "beam": "5"})),
        ("a foreign Host header", post(url, {"q": "Hi."}, headers={"Host": "evil.example"})),
        ("12 rounds of 32 sentences (beam 10, n-best 5) and 1 text of 1,000 characters (n-best 4), attention",
         attention_rounds(url)),
        ("a 60 KB Content-Type header of quotes (multipart), /health asked meanwhile",
         beside_health(url, lambda: httpx.post(url + "/translate", content=b"--x--", timeout=120, headers={
             "Content-Type": "multipart/form-data; boundary=x; " + '"' * 60_000}))),
        ("20 KB of quotes in a multipart part's Content-Disposition, /health asked meanwhile",
         beside_health(url, lambda: httpx.post(url + "/translate", timeout=120, headers={
             "Content-Type": "multipart/form-data; boundary=xx"}, content=(
                 b'--xx\r\nContent-Disposition: form-data; name="q"; x="' + b'";"' * 7_000 +
                 b'"\r\n\r\nhello\r\n--xx--\r\n')))),
        ('form numbers int() refuses: beam "²"', post(url, data={"q": "Hi.", "beam": "²"})),
        ("form numbers int() refuses: beam of 5,000 digits", post(url, data={"q": "Hi.", "beam": "9" * 5_000})),
        ("format html: an unterminated comment hiding <img onerror>",
         html_reply(url, "<p>Good morning</p><!--<b>hidden note</b><img src=x onerror=alert(1)>")),
        ("a glossary of 100 terms, 32 sentences holding one",
         post(url, {"q": ["I will visit Beijing next week."] * 32,
                    "glossary": [["Beijing", "北京"]] + [[f"term{i}", f"词{i}"] for i in range(99)]})),
    ]


def _cell(text: str) -> str:
    """Text for a Markdown table cell: markup shown, not rendered; no column breaks."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|").replace("\n", " ")


def owners_table(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The `--only owners` rows of two runs side by side, as a Markdown table (what docs/results quotes)."""
    found = {row["request"]: row for row in before["rows"]}
    header = ("| request | before: status, what another client saw | after: status, what another client saw | "
              "peak RSS before → after |")
    lines = [header, "|---|---|---|---|"]
    for row in after["rows"]:
        old = found.get(row["request"])
        was = f"{old['status']}: {old['note'][:200]}" if old else "not measured"
        peak = f"{old['peak_rss_mb']:,.0f} → {row['peak_rss_mb']:,.0f} MB" if old else f"{row['peak_rss_mb']:,.0f} MB"
        now = f"{row['status']}: {row['note'][:200]}"
        cells = [_cell(row["request"]), _cell(was), _cell(now), peak]
        lines.append("| " + " | ".join(cells) + " |")
    loads = ", ".join(f"{name} {' / '.join(f'{x:.2f}' for x in run['load_average_before'])} → "
                      f"{' / '.join(f'{x:.2f}' for x in run['load_average_after'])}"
                      for name, run in (("before", before), ("after", after)))
    return "\n".join(lines) + f"\n\nLoad averages (1 / 5 / 15 min) over each run: {loads}."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", action="append", default=[], help="as for translate serve (default: released)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / f"{time.strftime('%Y-%m-%d')}-hostile.json")
    parser.add_argument("--only", choices=["owners"], help="owners: only the requests that once landed one client's "
                        "work where every client waits, with the default limits (the client told by X-Forwarded-For)")
    parser.add_argument("--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="print the Markdown table of two --only owners runs' JSON and stop")
    args = parser.parse_args()
    if args.table:
        before, after = (json.loads(path.read_text(encoding="utf-8")) for path in args.table)
        print(owners_table(before, after))
        return
    load_before = list(os.getloadavg())  # a busy hour shows in the JSON
    rows: list[dict[str, Any]] = []
    if args.only == "owners":
        proc, url = start_server(args, ["trusted_proxies=127.0.0.1"])
        try:
            httpx.post(url + "/translate", json={"q": "Warm up."}, timeout=60)
            rows = [measure(proc.pid, label, send) for label, send in owner_cases(url, proc.pid)]
        finally:
            proc.terminate()
            proc.wait(30)
        proc, url = start_server(args, ["trusted_proxies=127.0.0.1", "timeout_s=3"])  # a deadline it meets
        try:
            httpx.post(url + "/translate", json={"q": "Warm up."}, timeout=60)
            rows.append(measure(proc.pid, "343,815 attention cells (beam 5, n-best 5) with timeout_s=3",
                                attention_deadline(url, proc.pid)))
        finally:
            proc.terminate()
            proc.wait(30)
        _write(args, load_before, rows)
        return
    proc, url = start_server(args, ["burst=1000", "rate=1000"])
    try:
        httpx.post(url + "/translate", json={"q": "Warm up."}, timeout=60)
        cases = request_cases(url)
        rows = [measure(proc.pid, label, send) for label, send in cases]
    finally:
        proc.terminate()
        proc.wait(30)
    proc, url = start_server(args, ["trusted_proxies=127.0.0.1"])  # default limits; the client told by X-Forwarded-For
    try:
        rows.append(measure(proc.pid, "20 requests of 32 x 1,000 characters from one client, then one sentence "
                                      "from another", fair_shares(url)))
    finally:
        proc.terminate()
        proc.wait(30)

    os.environ["TRANSLATE_API_KEY"] = "the-real-key"
    try:
        proc, url = start_server(args, [])  # the default limits, and an API key
    finally:
        del os.environ["TRANSLATE_API_KEY"]
    try:
        rows.append(measure(proc.pid, "100 guessed API keys from one client", guessed_keys(url)))
    finally:
        proc.terminate()
        proc.wait(30)
    proc, url = start_server(args, [])  # the default limits: burst 20, rate 5/s
    try:
        rows.append(measure(proc.pid, "50 connections that never finish their headers", stalled_connections(url)))
        rows.append(measure(proc.pid, "50 bodies shorter than their Content-Length",
                            stalled_connections(url, body=True)))
        time.sleep(1)
        rows.append(measure(proc.pid, "40 requests, each with another X-Forwarded-For", forged_flood(url)))
    finally:
        proc.terminate()
        proc.wait(30)
    _write(args, load_before, rows)


def _write(args: argparse.Namespace, load_before: list[float], rows: list[dict[str, Any]]) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"threads": args.threads, "models": args.models or "released", "only": args.only,
                                    "load_average_before": load_before, "load_average_after": list(os.getloadavg()),
                                    "command": "python scripts/benchmark.py hostile" + (f" --only {args.only}" if args.only else ""),
                                    "rows": rows},
                                   indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"written: {args.out}")
