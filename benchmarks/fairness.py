"""Fairness by cost against `translate serve` on loopback (not part of the test suite): one client
floods the server with the costliest single texts, another asks for one sentence; how long that
sentence waits, on each surface.

    python scripts/benchmark.py fairness                      # the released models, 2 threads
    python scripts/benchmark.py fairness --out /tmp/fairness.json

The flood: 20 requests at once from one address, each one text of "嗯…" x 500 (1,000 characters),
beam 10, n-best 5, attention (the heaviest a request may ask within the default limits, or the most
of it the limits let through: the attention cells are counted first). The other client (another
address, told by X-Forwarded-For to a server trusting 127.0.0.1 as its proxy) then sends one
sentence: natively; through LibreTranslate's form API with its own fields; the same with beam 10
and attention; and to a study's side-by-side route. The goal: answered within 3 s each time.
Each row waits until the 1-minute load average is under 1.0 (the previous flood's own load decays),
then records it before and after; a row whose machine was still busy when it started is marked so,
and is no speed figure. Writes JSON to
benchmarks/results/ (or --out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from benchmarks import REPO
from benchmarks.serve_load import rss_mb, start_server

HEAVY = {"q": "嗯…" * 500, "source": "zh", "target": "en", "beam": 10, "n_best": 5, "attention": True}
SENTENCE = "Where is the station?"
BUSY_LOAD = 1.0


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def quiet(limit_s: float = 180.0) -> float:
    """Wait (up to `limit_s`) until the 1-minute load average is under BUSY_LOAD: the last flood's
    own load decays first; the load average then."""
    deadline = time.monotonic() + limit_s
    while load_average() >= BUSY_LOAD and time.monotonic() < deadline:
        time.sleep(5)
    return load_average()


def study_folder(root: Path) -> tuple[Path, Path]:
    """A study of the two released models as its runs (weights copied into its work folder)."""
    out, work = root / "study", root / "work"
    for name, source in (("en-zh-released", "en-zh"), ("en-zh-copy", "en-zh")):
        (out / "runs" / name).mkdir(parents=True)
        (out / "runs" / name / "compare.json").write_text(json.dumps({"mechanism": "additive", "seed": 1}))
        shutil.copytree(REPO / "checkpoints" / source, work / name, ignore=shutil.ignore_patterns("onnx", "members"))
    return out, work


async def flood_then_one(url: str, ask: Any, heavy: dict[str, Any] = HEAVY, count: int = 20) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=600) as client:
        began = time.perf_counter()
        flood = [asyncio.create_task(client.post("/translate", json=heavy, headers={"X-Forwarded-For": "10.0.0.1"}))
                 for _ in range(count)]
        await asyncio.sleep(1.0)
        asked = time.perf_counter()
        single = await ask(client)
        waited = time.perf_counter() - asked
        codes = [r.status_code for r in await asyncio.gather(*flood)]
        answer = single.json() if single.status_code == 200 else {}
        return {"status": single.status_code, "waited_s": round(waited, 2),
                "flood_s": round(time.perf_counter() - began, 1),
                "flood": ", ".join(f"{n} x {code}" for code, n in sorted(Counter(codes).items())),
                "answer": answer.get("translatedText") or [r["translation"] for r in answer.get("translations", [])]
                or single.text[:120]}


def surfaces() -> list[tuple[str, Any]]:
    other = {"X-Forwarded-For": "10.0.0.2"}

    async def native(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post("/translate", json={"q": SENTENCE}, headers=other)

    async def form(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post("/translate", data={"q": SENTENCE, "source": "en", "target": "zh", "format": "text"},
                            headers=other)

    async def form_heavy(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post("/translate", data={"q": SENTENCE, "source": "en", "target": "zh", "beam": "10",
                                                "attention": "true"}, headers=other)

    async def study(c: httpx.AsyncClient) -> httpx.Response:
        return await c.post("/study/translate", json={"q": SENTENCE, "runs": ["en-zh-released", "en-zh-copy"]},
                            headers=other)

    return [("native JSON", native), ("LibreTranslate form, its own fields", form),
            ("LibreTranslate form, beam 10 + attention", form_heavy), ("study side by side, 2 runs", study)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", action="append", default=[], help="as for translate serve (default: released)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / f"{time.strftime('%Y-%m-%d')}-fairness.json")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        out, work = study_folder(Path(tmp))
        proc, url = start_server(args, ["trusted_proxies=127.0.0.1", "timeout_s=600", "max_client_queue=200"],
                                 ["--study", str(out), "--study-runs", str(work)])
        try:
            httpx.post(url + "/translate", json={"q": "Warm up."}, timeout=60)
            for label, ask in surfaces():
                before = quiet()
                row = {"surface": label, "load_before": before, **asyncio.run(flood_then_one(url, ask)),
                       "load_after": load_average(), "rss_mb": rss_mb(proc.pid)}
                row["busy_machine"] = before > BUSY_LOAD
                print(json.dumps(row, ensure_ascii=False), flush=True)
                rows.append(row)
        finally:
            proc.terminate()
            proc.wait(30)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"threads": args.threads, "models": args.models or "released",
                                    "cpu": os.cpu_count(), "flood": {**HEAVY, "q": "嗯… x 500"}, "rows": rows},
                                   indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
