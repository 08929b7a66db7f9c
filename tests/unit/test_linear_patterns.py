"""Every regular expression that reads user text is linear in it: a server runs them on each text of
each request, so one whose backtracking grows with the square of a run ("a-" * 500 through the URL
pattern cost 15 ms a text) lets one client hold every other.

Each module-level pattern of the modules that handle a request's text is run over adversarial inputs
(runs of one unit, after a prefix that opens a span) at two sizes 8x apart; linear work grows about 8x,
quadratic 64x. The bound (24x) sits between; the smaller size is large enough (several ms where it
matters) that timer noise cannot decide it, and each size keeps its fastest of three runs; a pair that grows
beyond the bound is measured again (three times in all), since a busy machine can slow one size alone."""

from __future__ import annotations

import importlib
import itertools
import re
import time

import pytest

MODULES = ("translate.inference.passthrough", "translate.data.normalize", "translate.data.quantities",
           "translate.data.repeats", "translate.data.shouting", "translate.inference.markup", "translate.inference.html_tree",
           "translate.inference.router", "translate.inference.glossary", "translate.data.dates", "translate.data.made_up", "translate.inference.notices", "translate.inference.standins",
           "translate.data.text", "translate.serve.body", "translate.serve.replies", "translate.serve.libretranslate")
UNITS = ("a-", "a", "A", "Ab ", "a.", "1,", "1.", "1:", "@a", "a@", ".", "www.", "`a", "#a", "1 ", "一", "嗯…", "http://",
         "a.b/", "- ", "a1-", "twenty ", "\u00a0", ". A", "。", "一 ", "(", "a(", "一(", "1:1", "\ufe0f", "\u200d😀", "😀 ", "``a", "`", "<!---->", "<!--a-->", "<a ", "&#",
         "1点", "一点", "1月", "May 1 ", "1 a", "the 1 ")
PREFIXES = ("", "(", "`", "``", "https://", "@", "#", "a@", "一", "1")
CHARACTERS = 1_000  # the smaller input; the larger is 8x
GROWTH_BOUND = 24.0


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    found = []
    for name in MODULES:
        module = importlib.import_module(name)
        found += [(f"{name}.{attr}", value) for attr, value in vars(module).items() if isinstance(value, re.Pattern)]
    return found


def _seconds(pattern: re.Pattern[str], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _match in pattern.finditer(text):
            pass
        best = min(best, time.perf_counter() - start)
    return best


def _growth(pattern: re.Pattern[str], small_text: str, large_text: str) -> tuple[float, float]:
    """(how many times longer the larger text takes, its seconds): measured again, up to three times in all,
    while it grows beyond the bound, since a busy machine can slow one size alone; a quadratic pattern grows
    about 64x every time."""
    growth = large = 0.0
    for _ in range(3):
        small, large = _seconds(pattern, small_text), _seconds(pattern, large_text)
        growth = large / max(small, 1e-6)
        if growth <= GROWTH_BOUND or large < 0.01:
            break
    return growth, large


def test_the_text_modules_hold_patterns() -> None:
    names = {name for name, _ in _patterns()}
    assert {"translate.inference.passthrough.SPAN", "translate.data.normalize._NEAR_HAN",
            "translate.data.quantities.NUMBER"} <= names


@pytest.mark.parametrize(("name", "pattern"), _patterns(), ids=[name for name, _ in _patterns()])
def test_pattern_is_linear_on_adversarial_runs(name: str, pattern: re.Pattern[str]) -> None:
    for unit, prefix in itertools.product(UNITS, PREFIXES):  # first a few units: an exponential pattern shows
        small, large = _seconds(pattern, prefix + unit * 16), _seconds(pattern, prefix + unit * 24)  # before it hangs
        assert large < 0.05 or large / max(small, 1e-6) < GROWTH_BOUND, (
            f"{name} grows {large / max(small, 1e-6):.0f}x from 16 to 24 of {prefix + unit!r}: exponential")
    worst = (0.0, "", 0.0)
    for unit, prefix in itertools.product(UNITS, PREFIXES):
        n = max(1, CHARACTERS // len(unit))
        growth, large = _growth(pattern, prefix + unit * n, prefix + unit * (8 * n))
        if large >= 0.01 and growth > worst[0]:  # under 10 ms at 8,000 characters: timer noise (quadratic: seconds)
            worst = (growth, repr(prefix + unit * 2) + "...", large)
    growth, text, large = worst
    assert growth <= GROWTH_BOUND, f"{name} grows {growth:.0f}x for 8x more of {text} ({large * 1000:.1f} ms)"


def test_the_exponential_comment_pattern_is_caught() -> None:
    """The document-start pattern html_tree once used: a repeated group of lazy comments."""
    old = re.compile(r"\A\s*(?:<!--.*?-->\s*)*<(?:!doctype|html|head|body)[\s>/]", re.IGNORECASE | re.DOTALL)
    small, large = _seconds(old, "<!---->" * 12), _seconds(old, "<!---->" * 18)
    assert large / small > GROWTH_BOUND


def test_the_quadratic_url_pattern_is_caught() -> None:
    """The check fails on a pattern that restarts inside a run: the old domain/path alternative."""
    old = re.compile(r"(?<![\w@.])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/")
    small, large = _seconds(old, "a-" * 500), _seconds(old, "a-" * 4_000)
    assert large / small > GROWTH_BOUND
