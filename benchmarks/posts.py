"""The 32 real-shaped posts of tests/serve/test_posts.py through `POST /translate` (format html) with the
released models: each post and its translation, written as JSON (run once with the code of today and
once with an older checkout on PYTHONPATH to see what changed). Each post with inline tags around
translated text (no mentions or hidden link parts) is also sent with those tags taken out: a row says
whether its visible translation is the same ("reads_as_one"), as it is when the text around and
inside the tags is translated as one sentence.

    python scripts/benchmark.py posts --output benchmarks/results/2026-12-05-posts-after.json
    git worktree add /tmp/old 488fb79 && PYTHONPATH=/tmp/old python scripts/benchmark.py posts \
        --output benchmarks/results/2026-12-05-posts-before.json
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

POSTS_FILE = Path(__file__).resolve().parents[1] / "tests" / "serve" / "test_posts.py"
INLINE_TAG = re.compile(r"</?(?:b|i|u|em|strong|span|a)(?:\s[^>]*)?>")


def _visible(document: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", "", document).replace("&amp;", "&").split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    from fastapi.testclient import TestClient

    import translate
    from translate.serve.app import create_app
    from translate.serve.models import Models
    from translate.serve.settings import ServeSettings

    source = POSTS_FILE.read_text(encoding="utf-8")
    namespace: dict[str, object] = {}
    start, end = source.index("MENTION = "), source.index("BLOCKS = ")
    exec(source[start:end], namespace)  # noqa: S102  # the test's own list of posts, without its imports
    posts = list(namespace["POSTS"])  # type: ignore[call-overload]
    inline = [i for i, p in enumerate(posts) if "mention" not in p and "invisible" not in p and INLINE_TAG.search(p)]
    with TestClient(create_app(Models.load(None), ServeSettings(burst=1000)), base_url="http://localhost") as client:
        reply = client.post("/translate", json={"q": posts, "format": "html"}).json()
        bare = client.post("/translate", json={"q": [INLINE_TAG.sub("", posts[i]) for i in inline],
                                               "format": "html"}).json()["translatedText"]
    rows: list[dict[str, object]] = [{"post": p, "translation": t} for p, t in zip(posts, reply["translatedText"])]
    for i, plain in zip(inline, bare):
        rows[i]["without_inline_tags"] = plain
        rows[i]["reads_as_one"] = _visible(str(rows[i]["translation"])) == _visible(plain)
    print(f"{sum(bool(rows[i]['reads_as_one']) for i in inline)} of {len(inline)} posts with inline tags read as "
          f"the same post without them")
    args.output.write_text(json.dumps({"package": str(Path(translate.__file__).parent), "rows": rows},
                                      indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
