"""Every surface handles text through the same stages in the same order: 50 texts (posts and everyday
sentences in both languages, with emoji, links, mentions, curly quotes, full-width digits, numbers,
several sentences and several lines) give identical translations through `translate text`,
`translate.load(...).translate` and the HTTP API (`POST /translate`, the released models, auto-detected)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import translate
from translate.cli.app import app as cli
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings

TEXTS = [
    "Where is the station?", "I can’t sleep, it’s 2 am again.", "The meeting is at 17:30.", "It costs $45.",
    "I passed my exam 🎉 Now I can relax.", "I love this place 🎉 so much!", "Good morning @anna! See https://example.org/x",
    "We’re going to Beijing tomorrow. Do you want to come?", "“Where is the station?” he asked.",
    "The train to Nanjing leaves at 8:15.", "My phone number is 138 1234 5678.", "Happy birthday! 🎂🎈",
    "He works in Beijing.", "We should protect the environment.", "Take Line 2 and get off at Xizhimen.",
    "I like tea.\nI like coffee too.", "First line.\n\nSecond paragraph, after a blank line.",
    "Don’t forget the `git pull` before you start.", "Check #travel and #food for more.",
    "There are 365 days in a year.", "I have a connecting flight to Chengdu.", "This coat costs 399 yuan.",
    "The store closes at 10 p.m.", "Is there a cheap hotel nearby?", "Thank you very very much!",
    "火车站在哪里？", "我喜欢茶。我也喜欢咖啡。", "我喜欢茶\n我也喜欢咖啡", "我女儿今天学会了骑自行车 👩\u200d👧🚲 我为她感到骄傲！",
    "会议在１７：３０开始。", "这件衣服９９块钱。", "请访问 https://example.org/page 了解详情。", "今天好冷 ❄️ #winter",
    "我明天要去北京开会。", "这个问题很难解决。", "他每天早上六点起床跑步。", "我们应该保护环境。",
    "@li 你好！今天有空吗？", "我用Python写代码。", "谢谢你的帮助！", "他说：“你好”。", "我的生日是3月12号。",
    "我们结婚25年了。", "这本书是我朋友送给我的生日礼物。", "请问附近有没有便宜的酒店？",
    "长城上都是人。", "山上都是雪。", "花都很漂亮。", "我不会说英语。", "他没有来。",
]


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Models.load(["en-zh", "zh-en"]), ServeSettings(burst=1000)),
                    base_url="http://localhost") as client:
        yield client


def test_fifty_texts_translate_alike_through_the_cli_the_python_api_and_http(http: TestClient) -> None:
    assert len(TEXTS) == 50
    python = translate.load().translate(TEXTS)
    served = [http.post("/translate", json={"q": text}).json()["translations"][0]["translation"] for text in TEXTS]
    result = CliRunner().invoke(cli, ["text", *TEXTS])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    printed = []
    for translation in python:  # a translation of several lines prints as several lines
        count = translation.count("\n") + 1
        printed.append("\n".join(lines[:count]))
        lines = lines[count:]
    assert lines == []
    differing = [(t, p, s, c) for t, p, s, c in zip(TEXTS, python, served, printed) if not p == s == c]
    assert differing == []
