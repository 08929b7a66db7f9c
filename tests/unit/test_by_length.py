"""BLEU by source length: the groups and their scores."""

from __future__ import annotations

import pytest

from translate.evaluation.by_length import bleu_by_length, by_length_markdown, length_buckets, source_length


def sentence(words: int) -> str:
    return " ".join(f"w{i}" for i in range(words))


def test_groups_cover_every_sentence_once_in_length_order_and_about_equal_sizes() -> None:
    lengths = [3, 1, 8, 5, 2, 7, 4, 6] * 2  # 16 sentences, 8 distinct lengths
    buckets = length_buckets([sentence(n) for n in lengths], "en", count=4)
    assert [(b.low, b.high, len(b.indices)) for b in buckets] == [(1, 2, 4), (3, 4, 4), (5, 6, 4), (7, 8, 4)]
    assert sorted(i for b in buckets for i in b.indices) == list(range(16))
    assert all(b.low <= lengths[i] <= b.high for b in buckets for i in b.indices)
    assert [b.label for b in buckets] == ["1–2", "3–4", "5–6", "7–8"]


def test_a_length_is_never_split_between_groups() -> None:
    lengths = [6] * 10 + [1, 2, 9]  # the quartiles fall inside the run of 6s
    buckets = length_buckets([sentence(n) for n in lengths], "en", count=4)
    assert [(b.low, b.high, len(b.indices)) for b in buckets] == [(1, 6, 12), (9, 9, 1)]
    assert [b.label for b in buckets] == ["1–6", "9"]


def test_chinese_sources_are_measured_in_characters() -> None:
    assert source_length("我 喜欢茶。", "zh") == 5 and source_length("I like tea.", "en") == 3
    buckets = length_buckets(["你好", "我喜欢喝茶", "他", "谢谢你们"], "zh", count=2)
    assert [(b.low, b.high) for b in buckets] == [(1, 2), (4, 5)]


def test_each_group_is_scored_as_its_own_corpus_and_seeds_are_averaged() -> None:
    refs = ["a b c d", "e f g h", "i j k l m n o p q", "r s t u v w x y z"]
    buckets = length_buckets(refs, "en", count=2)
    perfect_short = [refs[0], refs[1], "zz", "zz"]
    assert bleu_by_length([perfect_short], refs, buckets, "en") == pytest.approx([100.0, 0.0])
    assert bleu_by_length([perfect_short, refs], refs, buckets, "en") == pytest.approx([100.0, 50.0])
    table = by_length_markdown(buckets, {"additive": [100.0, 50.0]}, "words")
    assert "| mechanism | 4 words (2) | 9 words (2) |" in table and "| additive | 100.00 | 50.00 |" in table
