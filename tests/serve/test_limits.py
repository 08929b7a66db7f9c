"""Pure parts of the server: rate limiting, API keys, settings, the `--limit` parser, the detector."""

from __future__ import annotations

import pytest
import typer

from translate.cli.serve import parse_limits
from translate.data.cleaning import detect_language
from translate.errors import ConfigError
from translate.serve.limits import RateLimiter, key_matches, retry_after
from translate.serve.settings import ServeSettings, read_api_key


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_allows_a_burst_then_the_rate_per_client() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.acquire("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("a") == pytest.approx(0.5)  # empty: one token comes in 1/rate seconds
    assert limiter.acquire("b") == 0.0  # another client has its own bucket
    clock.now += 0.5
    assert limiter.acquire("a") == 0.0
    assert limiter.acquire("a") > 0
    clock.now += 100  # refills up to the burst, not beyond
    assert [limiter.acquire("a") for _ in range(4)][-1] > 0


def test_token_bucket_forgets_full_buckets_when_it_tracks_too_many_clients() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=1.0, burst=2, clock=clock, max_clients=3)
    for client in "abc":
        limiter.acquire(client)
    clock.now += 10  # all refilled
    limiter.acquire("d")
    assert len(limiter._buckets) == 1


def test_retry_after_is_whole_seconds_and_at_least_one() -> None:
    assert [retry_after(s) for s in (0.01, 1.0, 1.2)] == ["1", "1", "2"]


def test_api_key_from_either_header_and_compared_exactly() -> None:
    assert key_matches("", {})
    assert key_matches("s3cret", {"x-api-key": "s3cret"})
    assert key_matches("s3cret", {"authorization": "Bearer s3cret"})
    assert not key_matches("s3cret", {})
    assert not key_matches("s3cret", {"x-api-key": "s3cre"})
    assert not key_matches("s3cret", {"authorization": "Basic s3cret"})


def test_api_key_file_and_environment(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TRANSLATE_API_KEY", " from-env ")
    assert read_api_key(None) == "from-env"
    key = tmp_path / "key"
    key.write_text("from-file\n")
    assert read_api_key(key) == "from-file"
    key.write_text("\n")
    with pytest.raises(ConfigError, match="key.*empty"):
        read_api_key(key)
    with pytest.raises(ConfigError, match="missing.*cannot read"):
        read_api_key(tmp_path / "missing")


def test_settings_refuse_nonsense_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match="max_chars must be positive"):
        ServeSettings(max_chars=0)
    with pytest.raises(ConfigError, match="port"):
        ServeSettings(port=70000)
    assert ServeSettings(batch_wait_ms=0).batch_wait_ms == 0


def test_limit_option_parses_typed_values_and_names_bad_ones() -> None:
    assert parse_limits(["rate=50", "max_chars=2000", "timeout_s=2.5"]) == {"rate": 50.0, "max_chars": 2000, "timeout_s": 2.5}
    with pytest.raises(typer.BadParameter, match="expected NAME=VALUE with NAME one of max_body_bytes"):
        parse_limits(["speed=3"])
    with pytest.raises(typer.BadParameter, match="max_chars takes a int"):
        parse_limits(["max_chars=lots"])


@pytest.mark.parametrize("text,lang", [
    ("Where is the station?", "en"), ("火车站在哪里？", "zh"), ("我用Python写代码", "zh"),
    ("I love 北京", "en"), ("123", "en"), ("", "en"), ("他說：「好」", "zh"), ("OK，好的", "zh")])
def test_one_detector_picks_the_language_by_the_share_of_han_letters(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def test_a_costly_request_takes_several_tokens_and_never_more_than_the_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=2.0, burst=6, clock=clock)
    assert limiter.acquire("a", 5) == 0.0 and limiter.acquire("a") == 0.0
    assert limiter.acquire("a", 5) == pytest.approx(2.5)  # 5 tokens at 2 per second
    clock.now += 100
    assert limiter.acquire("a", 50) == 0.0  # capped at the burst: possible once the bucket is full
    assert limiter.acquire("a") > 0
