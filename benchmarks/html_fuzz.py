"""`format: html` through the server and a browser's DOM (not part of the test suite): generated
hostile documents are translated by `translate serve`, then the document and the reply are each
parsed by Chromium (DOMParser, as a page would read them). Each reply is counted by the worst it
gained: an element or attribute the document did not hold (markup that can act), a comment, or
changed raw text (script, style, iframe, xmp, noscript...); or none.

    python scripts/benchmark.py html-fuzz --documents 300          # the released models
    python scripts/benchmark.py html-fuzz --out /tmp/html-fuzz.json

Needs Debian's chromium and chromium-driver (`bash scripts/setup.sh --browser`). Prints the counts
(translated, refused with 422, gaining markup) and writes JSON to benchmarks/results/ (or --out).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from benchmarks import REPO
from benchmarks.serve_load import start_server

PIECES = ["<!--", "-->", "-- >", "--!>", "<!", "<![CDATA[", "]]>", "<?x", "&#x", "&amp", ";", "<script>", "</script>",
          "</ script>", "<style>", "</style>", "<p>", "</p>", "<a href='x'>", "</a>", "<a\0", '<span translate="no">',
          "</span>", "<b>", "</b>", "<img src=x onerror=alert(1)>", "<title>", "</title>", "<textarea>", "</textarea>",
          "<table>", "<td>", "<svg>", "</svg>", "<math>", "<noscript>", "<iframe>", "</iframe>", "<xmp>", "<br/>",
          "<", ">", "/", "&", "=", '"', "'", " ", "\n", "Good morning", "Where is the station?", "I like tea",
          "hello world", "<!DOCTYPE html>", "<plaintext>", "<select>", "</select>", "<template>", "</template>",
          "<option>", "<selectedcontent>", "<button>", "<div>", "</noscript>", "<p title='</noscript><img src=x onerror=1>'>"]

# What Chromium sees: every element with its attributes, every comment, and the text of script and
# style (and other raw text), in document order.
DOM_SKELETON = """
const doc = new DOMParser().parseFromString(arguments[0], "text/html");
const out = [];
const walker = doc.createTreeWalker(doc, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT | NodeFilter.SHOW_TEXT);
for (let n = walker.currentNode; n; n = walker.nextNode()) {
  if (n.nodeType === Node.ELEMENT_NODE) {
    out.push("<" + n.tagName + " " + [...n.attributes].map(a => a.name + "=" + a.value).sort().join(" "));
  } else if (n.nodeType === Node.COMMENT_NODE) {
    out.push("<!--" + n.data);
  } else if (["SCRIPT", "STYLE", "XMP", "IFRAME", "NOSCRIPT", "TEXTAREA", "PLAINTEXT", "NOEMBED", "NOFRAMES"]
             .includes(n.parentNode && n.parentNode.tagName)) {
    out.push("raw:" + n.data);
  }
}
return out;
"""


def documents(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))[:1000] for _ in range(count)]


def browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        raise SystemExit("needs chromium and chromedriver: bash scripts/setup.sh --browser")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    chrome.get("data:text/html,<title>html fuzz</title>")  # a plain page: the start page demands Trusted Types
    return chrome


def gained(before: list[str], after: list[str]) -> list[str]:
    """What `after` holds beyond `before` (a multiset difference), and raw text that changed."""
    extra = Counter(after) - Counter(before)
    raw_changed = [x for x in after if x.startswith("raw:")] != [x for x in before if x.startswith("raw:")]
    return [*extra, *(["raw text changed"] if raw_changed else [])]


def kind_of(extra: list[str]) -> str:
    """The worst of what a reply gained: an element or attribute (markup that can act), a comment, or
    only raw text (script, style, iframe...) that changed."""
    if any(x.startswith("<") and not x.startswith("<!--") for x in extra):
        return "gained an element or attribute"
    if any(x.startswith("<!--") for x in extra):
        return "gained a comment"
    return "raw text changed" if extra else "same markup"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", action="append", default=[], help="as for translate serve (default: released)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / f"{time.strftime('%Y-%m-%d')}-html-fuzz.json")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    proc, url = start_server(args, ["burst=100000", "rate=100000"])
    with tempfile.TemporaryDirectory() as profile:
        chrome = browser(Path(profile))
        try:
            for document in documents(args.documents, args.seed):
                reply = httpx.post(url + "/translate", json={"q": document, "source": "en", "target": "zh",
                                                             "format": "html"}, timeout=120)
                if reply.status_code != 200:
                    counts[f"status {reply.status_code}"] += 1
                    continue
                translated = reply.json()["translatedText"]
                extra = gained(chrome.execute_script(DOM_SKELETON, document),
                               chrome.execute_script(DOM_SKELETON, translated))
                counts[kind_of(extra)] += 1
                if extra and len(examples) < 10:
                    examples.append({"document": document, "reply": translated, "gained": extra[:5]})
        finally:
            chrome.quit()
            proc.terminate()
            proc.wait(30)
    result = {"documents": args.documents, "seed": args.seed, "counts": dict(counts), "examples": examples}
    print(json.dumps(result, ensure_ascii=False, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
