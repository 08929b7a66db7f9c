"""The attention pass in chunks: the same weights as one batch whatever the chunking, each chunk within
its padded cells, a deadline that stops the pass between chunks, and the model handed over there."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tests.serve.conftest import served
from translate.data.tokenizer import Tokenizer
from translate.inference import translator as translator_module
from translate.inference.deadline import SearchTimeout, between_steps, deadline

TEXTS = ["the dog runs", "a cat", "the cat sleeps and the dog runs in the park every day", "hello", "a dog and a cat"]


@pytest.mark.parametrize("kind", ["soft", "multihead"])
def test_chunked_alignment_equals_one_batch(tiny_tokenizers: tuple[Tokenizer, Tokenizer], kind: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    translator = served("x", tiny_tokenizers, **{"model.attention.kind": kind}).translator
    targets = [[5 + i % 7 for i in range(3 + 2 * n)] for n in range(len(TEXTS))]
    whole = translator.align(TEXTS, targets)
    monkeypatch.setattr(translator_module, "ALIGN_CHUNK_CELLS", 1)  # a pair per chunk
    alone = translator.align(TEXTS, targets)
    assert [a.source_pieces for a in alone] == [a.source_pieces for a in whole]
    assert [a.target_pieces for a in alone] == [a.target_pieces for a in whole]
    for a, b in zip(alone, whole):
        np.testing.assert_allclose(a.weights, b.weights, atol=1e-5)
        assert (a.heads is None) == (b.heads is None) == (kind != "multihead")
        if b.heads is not None:
            np.testing.assert_allclose(a.heads, b.heads, atol=1e-5)


def test_chunks_hold_like_lengths_within_their_cells() -> None:
    sources, targets = [3, 50, 4, 49, 5], [4, 60, 5, 58, 6]
    chunks = translator_module._chunks_of_cells(sources, targets, 2 * 50 * 60)
    assert sorted(i for chunk in chunks for i in chunk) == [0, 1, 2, 3, 4]
    for chunk in chunks:
        assert max(sources[i] for i in chunk) * max(targets[i] for i in chunk) * len(chunk) <= 2 * 50 * 60 or len(chunk) == 1
    assert [0, 2, 4] in chunks and [3, 1] in chunks  # short with short, long with long
    assert translator_module._chunks_of_cells([100], [100], 10) == [[0]]  # one pair over the cells goes alone
    many = translator_module._chunks_of_cells([3] * 10, [5] * 10, 10**9, rows=20)  # decoder rows bound the time
    assert [len(chunk) for chunk in many] == [4, 4, 2]


def test_a_pass_past_its_deadline_stops_between_chunks_and_hands_over_there(
        tiny_tokenizers: tuple[Tokenizer, Tokenizer], monkeypatch: pytest.MonkeyPatch) -> None:
    translator = served("x", tiny_tokenizers).translator
    monkeypatch.setattr(translator_module, "ALIGN_CHUNK_CELLS", 1)
    handed: list[int] = []
    with between_steps(lambda: handed.append(1)):
        translator.align(TEXTS, [[5, 6, 7]] * len(TEXTS))
    assert len(handed) == len(TEXTS)  # once before each chunk
    with pytest.raises(SearchTimeout), deadline(time.monotonic() - 1):
        translator.align(TEXTS, [[5, 6, 7]] * len(TEXTS))
