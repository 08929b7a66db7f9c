"""End to end in a real headless Chromium (Debian's chromium + chromium-driver, driven by Selenium):
the released model behind a real uvicorn server on a free loopback port, the page used by keyboard
only at 375 px width, then by mouse. Skipped, saying why, only where the browser cannot start."""

from __future__ import annotations

import math
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.conftest import live_server, served
from translate.data.tokenizer import Tokenizer
from translate.serve.app import create_app
from translate.serve.models import Models
from translate.serve.settings import ServeSettings

pytestmark = pytest.mark.slow  # seconds each: `pytest -m "not slow"` skips them in the inner loop

CHROMIUM, DRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARTIFACTS = Path(os.environ.get("TRANSLATE_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))
SENTENCE = "Where is the train station?"


@pytest.fixture(scope="module")
def server(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> Iterator[str]:
    """The released models, and a tiny untrained multi-head one (for the head selector)."""
    multi = served("multi", tiny_tokenizers, **{"model.attention.kind": "multihead"})
    app = create_app(Models([*Models.load(["en-zh", "zh-en"]).by_name.values(), multi]), ServeSettings())
    with live_server(app) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    selenium = pytest.importorskip("selenium", reason="selenium is a test extra: pip install -e '.[test]'")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip(f"no browser: install Debian's chromium and chromium-driver (bash scripts/setup.sh --browser); "
                    f"looked for {CHROMIUM} and {DRIVER}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}", "--window-size=375,812"):
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    except selenium.common.exceptions.WebDriverException as exc:
        pytest.skip(f"chromium could not start here: {exc.msg}")
    driver.set_window_size(375, 812)
    yield driver
    driver.quit()


def _wait(condition: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the page")


def _text(driver: Any, selector: str) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return str(found[0].text) if found else ""


def _tab_to(driver: Any, selector: str, limit: int = 80) -> Any:
    """Press Tab until the focused element matches `selector` (keyboard only)."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(limit):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        if driver.execute_script("return document.activeElement.matches(arguments[0])", selector):
            return driver.switch_to.active_element
    raise AssertionError(f"Tab never reached {selector}")


def test_keyboard_only_at_phone_width_then_hover_highlights_the_attended_source(server: str, browser: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server + "/")
    assert browser.execute_script("return window.innerWidth") <= 375
    for control in browser.find_elements(By.CSS_SELECTOR, "textarea, select, input"):
        assert browser.find_elements(By.CSS_SELECTOR, f"label[for='{control.get_attribute('id')}']"), control.get_attribute("id")
    # keyboard only: the text box has focus; type, Enter translates
    assert browser.switch_to.active_element.get_attribute("id") == "source-text"
    browser.switch_to.active_element.send_keys(SENTENCE, Keys.ENTER)
    result = _wait(lambda: _text(browser, "#results .result"))
    expected = httpx.post(server + "/translate", json={"q": SENTENCE, "n_best": 3, "attention": True}).json()["translations"][0]
    assert result == expected["translation"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#heatmap td.cell")) == (
        len(expected["target_pieces"]) * len(expected["source_pieces"]))
    weights = expected["attention"][0]["weights"]
    # Tab to a target piece: focus lights up the source piece it attended to most
    focused = _tab_to(browser, ".piece.tgt")
    row = int(focused.get_attribute("data-index"))
    lit = [int(b.get_attribute("data-index")) for b in browser.find_elements(By.CSS_SELECTOR, ".piece.src.lit")]
    assert max(range(len(weights[row])), key=weights[row].__getitem__) in lit
    # Tab on to the second alternative and choose it with Enter
    _tab_to(browser, ".alternative[aria-pressed='false']").send_keys(Keys.ENTER)
    chosen = _wait(lambda: browser.find_elements(By.CSS_SELECTOR, ".alternative[aria-pressed='true']"))
    assert chosen[0].text.startswith(expected["alternatives"][1]["translation"])
    focus = browser.switch_to.active_element  # the keyboard stays on the choice, not back at the page's top
    assert "alternative" in focus.get_attribute("class") and focus.get_attribute("aria-pressed") == "true"
    # the mouse: hover the target piece with the sharpest attention; its argmax source lights up
    browser.find_elements(By.CSS_SELECTOR, ".alternative")[0].click()
    row = max(range(len(weights) - 1), key=lambda r: max(weights[r]))
    target = _wait(lambda: browser.find_elements(By.CSS_SELECTOR, f".piece.tgt[data-index='{row}']"))[0]
    ActionChains(browser).move_to_element(target).perform()
    column = max(range(len(weights[row])), key=weights[row].__getitem__)
    source = browser.find_element(By.CSS_SELECTOR, f".piece.src[data-index='{column}']")
    assert "lit" in source.get_attribute("class") and "active" in target.get_attribute("class")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "serve-phone.png"))


def test_chinese_output_is_drawn_with_a_cjk_font(server: str, browser: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.set_window_size(900, 1000)
    browser.get(server + "/")
    browser.find_element(By.ID, "source-text").send_keys("I would like a cup of tea.")
    browser.find_element(By.ID, "translate").click()
    _wait(lambda: _text(browser, "#results .result"))
    assert "en → zh" in browser.find_element(By.ID, "status").text
    assert "Detected: English (100 %)." in browser.find_element(By.ID, "status").text  # direction on auto
    has_cjk = browser.execute_async_script(
        "const done = arguments[0]; document.fonts.ready.then(() => done("
        "document.fonts.check('16px \"Translate CJK\"', '茶') || document.fonts.check('16px \"Noto Sans CJK SC\"', '茶')))")
    assert has_cjk
    pieces = browser.find_elements(By.CSS_SELECTOR, ".piece.tgt")
    ActionChains(browser).move_to_element(pieces[min(3, len(pieces) - 1)]).perform()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "serve-desktop.png"))
    browser.set_window_size(375, 812)


def test_multi_head_models_get_a_head_selector_that_redraws_the_heatmap(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server + "/")
    _wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#model option")) == 4)  # "for the direction" + 3 models
    Select(browser.find_element(By.ID, "model")).select_by_value("multi")
    browser.find_element(By.ID, "source-text").send_keys("the dog runs")
    browser.find_element(By.ID, "translate").click()
    _wait(lambda: "model multi" in _text(browser, "#status"))
    expected = httpx.post(server + "/translate", json={"q": "the dog runs", "model": "multi", "n_best": 3,
                                                       "attention": True}).json()["translations"][0]
    heads = expected["attention"][0]["heads"]
    head_menu = Select(browser.find_element(By.ID, "head"))
    assert browser.find_element(By.ID, "head-row").is_displayed() and len(head_menu.options) == len(heads) + 1

    def drawn() -> list[float]:
        return [float(c.get_attribute("style").split("--w:")[1].strip(" ;"))
                for c in browser.find_elements(By.CSS_SELECTOR, "#heatmap td.cell")]

    flat = [w for row in expected["attention"][0]["weights"] for w in row]
    assert drawn() == pytest.approx(flat, abs=1e-4)
    head_menu.select_by_value("1")
    assert drawn() == pytest.approx([w for row in heads[1] for w in row], abs=1e-4)


DELAY_FIRST_POST = """
window.__posts = 0;
const original = window.fetch;
window.fetch = (url, options) => {
  if (!String(url).endsWith("/translate")) return original(url, options);
  window.__posts += 1;
  if (window.__posts > 1) return original(url, options);
  return new Promise((resolve, reject) => {  // the first reply comes 1.5 s late (unless aborted)
    options.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
    setTimeout(() => original(url, options).then(resolve, reject), 1500);
  });
};
"""


def test_only_the_latest_reply_is_shown_and_enter_again_sends_nothing(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server + "/")
    browser.execute_script(DELAY_FIRST_POST)
    box = browser.find_element(By.ID, "source-text")
    box.send_keys("Good morning.", Keys.ENTER)
    for _ in range(5):  # Enter while the same request is on its way
        box.send_keys(Keys.ENTER)
    assert browser.execute_script("return window.__posts") == 1
    box.clear()
    box.send_keys(SENTENCE, Keys.ENTER)  # a newer request: the first is aborted, its reply never shown
    _wait(lambda: _text(browser, "#status").startswith("Translated"))
    expected = httpx.post(server + "/translate", json={"q": SENTENCE, "n_best": 3, "attention": True}).json()
    assert _text(browser, "#results .result") == expected["translations"][0]["translation"]
    time.sleep(2)  # by now the first, delayed reply would have arrived
    assert _text(browser, "#results .result") == expected["translations"][0]["translation"]
    assert browser.execute_script("return window.__posts") == 2
    assert "en → zh" in _text(browser, "#status")


def test_counter_swap_clear_address_and_dark_mode(server: str, browser: Any) -> None:
    from urllib.parse import quote

    from selenium.webdriver.common.by import By

    browser.get(f"{server}/?q={quote(SENTENCE)}&source=en&target=zh")  # a shared address translates at once
    _wait(lambda: _text(browser, "#status").startswith("Translated"))
    box = browser.find_element(By.ID, "source-text")
    assert box.get_attribute("value") == SENTENCE and _text(browser, "#counter") == f"{len(SENTENCE)} / 1000"
    chinese = _text(browser, "#results .result")
    browser.find_element(By.ID, "swap").click()  # the translation, translated back
    _wait(lambda: "zh → en" in _text(browser, "#status"))
    assert box.get_attribute("value") == chinese
    assert browser.find_element(By.ID, "direction").get_attribute("value") == "zh-en"
    assert "source=zh" in browser.current_url and "target=en" in browser.current_url
    browser.find_element(By.ID, "clear").click()
    assert box.get_attribute("value") == "" and not browser.find_element(By.ID, "output").is_displayed()
    assert browser.find_element(By.ID, "direction").get_attribute("value") == "auto"  # English typed next is English
    assert _text(browser, "#counter") == "0 / 1000" and "?" not in browser.current_url
    assert browser.switch_to.active_element.get_attribute("id") == "source-text"
    browser.execute_script("const b = arguments[0]; b.value = 'x'.repeat(1001); b.dispatchEvent(new Event('input'));", box)
    assert "over" in browser.find_element(By.ID, "counter").get_attribute("class")
    browser.find_element(By.ID, "translate").click()  # refused on the page, not cut silently
    assert "limit is 1000" in _text(browser, "#status")
    light = browser.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        dark = browser.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
        assert (light, dark) == ("rgb(251, 251, 252)", "rgb(13, 17, 23)")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_the_heatmap_is_one_tab_stop_with_arrow_keys_and_byte_pieces_merged(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    text = "I like 𝄞 tea."  # the clef is four byte pieces (<0xF0> <0x9D> <0x84> <0x9E>) for the model (an emoji
    # would pass through unread)
    browser.get(server + "/")
    browser.find_element(By.ID, "source-text").send_keys(text, Keys.ENTER)
    _wait(lambda: _text(browser, "#status").startswith("Translated"))
    expected = httpx.post(server + "/translate", json={"q": text, "attention": True}).json()["translations"][0]
    assert "<0xF0>" in expected["source_pieces"]
    assert "never saw in training (𝄞)" in _text(browser, "#status")  # and the page says so
    labels = [b.text for b in browser.find_elements(By.CSS_SELECTOR, ".piece.src")]
    assert "𝄞" in labels and not any(label.startswith("<0x") for label in labels)
    assert len(labels) == len(expected["source_pieces"]) - 3  # four byte pieces drawn as one column
    row_sums = browser.execute_script(
        "return [...document.querySelectorAll('#heatmap tbody tr')].map(r => [...r.querySelectorAll('td.cell')]"
        ".reduce((a, c) => a + Number(c.style.getPropertyValue('--w')), 0));")
    assert row_sums == pytest.approx([1.0] * len(row_sums), abs=2e-3)  # merging keeps each row a distribution
    stops = browser.execute_script("return [...document.querySelectorAll('#heatmap .piece')].filter(b => b.tabIndex >= 0).length")
    assert stops == 1
    first = _tab_to(browser, ".piece.tgt")
    first.send_keys(Keys.ARROW_DOWN)
    assert browser.switch_to.active_element.get_attribute("data-index") == "1"
    browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)  # across into the source pieces
    focus = browser.switch_to.active_element
    assert "src" in focus.get_attribute("class") and "active" in focus.get_attribute("class")
    focus.send_keys(Keys.END)
    assert browser.switch_to.active_element.get_attribute("data-index") == str(len(labels) - 1)


def test_the_heatmap_has_a_coverage_row_with_unattended_source_pieces_marked(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    text = "I have a connecting flight to Chengdu."  # the released en-zh model leaves "I have" unattended
    browser.get(server + "/")
    browser.find_element(By.ID, "source-text").send_keys(text, Keys.ENTER)
    _wait(lambda: _text(browser, "#status").startswith("Translated"))
    expected = httpx.post(server + "/translate", json={"q": text, "attention": True}).json()["translations"][0]
    [block] = expected["alternatives"][0]["attention"]
    assert any(block["unattended"]), "a sentence the released model translates whole: pick one it drops a word of"
    cells = browser.execute_script(
        "return [...document.querySelectorAll('#heatmap tfoot td.coverage')]"
        ".map(c => [c.textContent, c.classList.contains('unattended'), c.title]);")
    assert len(cells) == len(expected["source_pieces"])  # one per source piece (no byte pieces here)
    assert [marked for _, marked, _ in cells] == block["unattended"]
    for (shown, marked, title), received in zip(cells, block["coverage"]):
        assert shown == "!" if marked else float(shown) == pytest.approx(received, abs=0.051)
        assert f"received {received:.2f}"[:-1] in title  # the exact sum on hover
    assert "Last row" in _text(browser, "#heatmap caption")


def test_the_api_reference_works_offline(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server + "/docs")
    _wait(lambda: "POST /translate" in _text(browser, "#reference"))
    fields = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#schema-TranslateRequest tbody tr")]
    assert any(f.startswith("q *") for f in fields) and any(f.startswith("glossary") for f in fields)
    assert any(f.startswith("beam") and "≤ 10" in f for f in fields)
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert loaded and all(url.startswith(server) for url in loaded)  # nothing from another origin


WATCH_THE_MAIN_THREAD = """
window.__gap = 0;  // the longest the main thread was held: the longest pause between 10 ms timer ticks
let last = performance.now();
setInterval(() => { const now = performance.now(); window.__gap = Math.max(window.__gap, now - last); last = now; }, 10);
const original = window.fetch;
window.fetch = async (url, options) => {
  const reply = await original(url, options);
  if (String(url).endsWith("/translate")) window.__replied = performance.now();
  return reply;
};
new MutationObserver(() => { if (document.querySelector("#results .result")) window.__shown ??= performance.now(); })
  .observe(document.getElementById("results"), { childList: true });
"""


def test_a_995_character_paragraph_shows_one_sentence_at_a_time_without_long_tasks(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    paragraph = ("我明天要去北京看我的朋友。" * 80)[:995]
    browser.get(server + "/")
    browser.execute_script(WATCH_THE_MAIN_THREAD)
    browser.execute_script("const box = document.getElementById('source-text'); box.value = arguments[0]; "
                           "box.dispatchEvent(new Event('input'));", paragraph)
    browser.find_element(By.ID, "translate").click()
    _wait(lambda: _text(browser, "#status").startswith("Translated"), timeout=60)
    shown_after_ms = browser.execute_script("return window.__shown - window.__replied")
    assert shown_after_ms < 2000, shown_after_ms
    expected = httpx.post(server + "/translate", json={"q": [paragraph], "source": "zh", "target": "en", "beam": 5,
                                                       "n_best": 3, "attention": True}, timeout=120).json()
    blocks = expected["translations"][0]["alternatives"][0]["attention"]
    sentences = Select(browser.find_element(By.ID, "sentence"))
    assert browser.find_element(By.ID, "sentence-row").is_displayed() and len(sentences.options) == len(blocks) > 70

    def cells_of(block: dict[str, Any]) -> int:
        return (block["target_end"] - block["target_start"]) * (block["source_end"] - block["source_start"])

    assert len(browser.find_elements(By.CSS_SELECTOR, "#heatmap td.cell")) == cells_of(blocks[0])  # one sentence only
    sentences.select_by_value("5")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#heatmap td.cell")) == cells_of(blocks[5])
    browser.find_elements(By.CSS_SELECTOR, ".alternative")[1].click()
    _wait(lambda: browser.find_elements(By.CSS_SELECTOR, ".alternative[aria-pressed='true']")[0].text ==
          expected["translations"][0]["alternatives"][1]["translation"])
    held_ms = browser.execute_script("return window.__gap")
    assert held_ms <= 200, f"the main thread was held for {held_ms:.0f} ms"
    browser.execute_script("const end = performance.now() + 300; while (performance.now() < end) {}")
    _wait(lambda: browser.execute_script("return window.__gap") >= 290, timeout=5)  # the watch would see one
    assert "⏎" in _text(browser, "#heatmap")  # the end of the sentence is a mark, not a word
    assert "</s>" not in _text(browser, "#heatmap")


def test_the_address_names_what_was_translated_a_word_list_and_the_width_of_a_phone(server: str, browser: Any) -> None:
    from urllib.parse import parse_qs, urlparse

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server + "/")
    _wait(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#model option")) > 1)
    labels = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#model option")]
    assert "English → Chinese" in labels and "Chinese → English" in labels and "multi: English → Chinese" in labels
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 375  # no sideways scroll
    browser.execute_script(DELAY_FIRST_POST)
    box = browser.find_element(By.ID, "source-text")
    box.send_keys("Good morning.", Keys.ENTER)
    box.send_keys(" Edited while the reply was on its way.")  # the first reply comes 1.5 s late
    _wait(lambda: _text(browser, "#status").startswith("Translated"))
    assert parse_qs(urlparse(browser.current_url).query)["q"] == ["Good morning."]
    words = "\n".join(f"word{i}" for i in range(100))  # a word list of 100 lines
    browser.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", box, words)
    browser.find_element(By.ID, "translate").click()
    _wait(lambda: "Translated 100 line(s)" in _text(browser, "#status"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#results .result")) == 100


def test_the_compare_view_shows_two_runs_of_a_study_side_by_side(tiny_study: Path, both_directions: Models,
                                                                  browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from translate.serve.study import Study

    models = Models(list(both_directions.by_name.values()), Study(tiny_study))
    with live_server(create_app(models, ServeSettings())) as url:
        browser.get(url + "/")
        _wait(lambda: browser.find_element(By.ID, "compare").is_displayed())
        boxes = browser.find_elements(By.CSS_SELECTOR, "#compare-runs input[type=checkbox]")
        labels = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#compare-runs label")]
        assert labels == ["additive · seed 1 · 12.50", "dot · seed 1 · 10.25"]
        for box in boxes:
            box.click()
        browser.find_element(By.ID, "compare-text").send_keys("the dog runs", Keys.ENTER)
        _wait(lambda: _text(browser, "#compare-status") == "Compared 2 runs.")
        expected = httpx.post(url + "/study/translate", json={"q": "the dog runs", "runs": ["additive-seed1", "dot-seed1"]}
                              ).json()["translations"]
        panels = browser.find_elements(By.CSS_SELECTOR, "#compare-results article")
        assert [p.find_element(By.CSS_SELECTOR, ".compare-translation").text.replace(" ", "") for p in panels] == [
            t["translation"].replace(" ", "") for t in expected]
        units = [[c for c in t["translation"] if c.strip()] if t["target"] == "zh" else t["translation"].split()
                 for t in expected]
        for i, (panel, t) in enumerate(zip(panels, expected)):
            assert len(panel.find_elements(By.CSS_SELECTOR, "td.cell")) == len(t["target_pieces"]) * len(t["source_pieces"])
            others = [set(u) for j, u in enumerate(units) if j != i]
            assert [m.text for m in panel.find_elements(By.CSS_SELECTOR, "mark.diff")] == [
                u for u in units[i] if any(u not in other for other in others)]  # what another run does not say
            weights = t["attention"][0]["weights"]
            entropy = sum(-sum(w * math.log2(w) for w in row if w > 0) for row in weights) / len(weights)
            assert f"Attention entropy {entropy:.2f} bits" in panel.find_element(By.CSS_SELECTOR, ".entropy").text
            assert len(panel.find_elements(By.CSS_SELECTOR, "tfoot td.coverage")) == len(t["source_pieces"])
        assert "shared by every panel" in _text(browser, "#compare-scale")
        assert [row.text.split()[0] for row in browser.find_elements(By.CSS_SELECTOR, "#study-table tbody tr")] == [
            "additive", "dot"]
        assert browser.find_element(By.CSS_SELECTOR, "#study-figures img").get_attribute("src").startswith("blob:")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 375


def test_a_committed_study_without_weights_shows_where_its_runs_disagree(both_directions: Models, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    from translate.serve.study import Study

    study = Study(Path(__file__).resolve().parents[2] / "docs" / "compare-converged-en-zh")
    with live_server(create_app(Models(list(both_directions.by_name.values()), study), ServeSettings())) as url:
        browser.get(url + "/")
        _wait(lambda: browser.find_element(By.ID, "testset").is_displayed())
        boxes = browser.find_elements(By.CSS_SELECTOR, "#compare-runs input[type=checkbox]")
        assert len(boxes) == 38 and not any(box.is_enabled() for box in boxes)  # nothing to translate with
        assert "no weights" in browser.find_element(By.CSS_SELECTOR, "#compare-runs label").text
        mechanisms = browser.find_element(By.ID, "testset-mechanisms").get_attribute("value")
        _wait(lambda: _text(browser, "#testset-status").startswith("20 of 1961"))
        expected = httpx.get(url + "/study/testset", params={"mechanism": mechanisms, "limit": 20}).json()
        rows = browser.find_elements(By.CSS_SELECTOR, "#testset-table tbody tr")
        assert len(rows) == 20
        cells = rows[0].find_elements(By.TAG_NAME, "td")
        first = expected["rows"][0]
        assert [c.text for c in cells[:3]] == [str(first["line"]), first["source"], first["reference"]]
        assert cells[3].text == f"{first['translations'][0]['translation']} (chrF {first['translations'][0]['chrf']:.1f})"
        field = browser.find_element(By.ID, "testset-mechanisms")
        field.clear()
        field.send_keys("dot")
        browser.find_element(By.ID, "testset-go").click()
        _wait(lambda: "3 runs" in _text(browser, "#testset-status"))
        headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#testset-table thead th")]
        assert headers == ["line", "source", "reference", "dot-seed1", "dot-seed2", "dot-seed3"]
