"""Source spans projected onto a translation through attention: pieces found in their texts, target
words, the monotone assignment, and the cuts it gives on hand-made matrices."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translate.inference.projection import Aligned, assign, cuts, piece_offsets, proportional, words

SOURCE = "I like green tea."
SOURCE_PIECES = ["▁I", "▁like", "▁green", "▁tea", ".", "</s>"]
TARGET = "我喜欢绿茶。"
TARGET_PIECES = ["我喜欢", "绿", "茶", "。", "</s>"]
WEIGHTS = [[0.18, 0.41, 0.02, 0.02, 0.12, 0.26],  # the released en->zh model's attention on this sentence
           [0.00, 0.01, 0.92, 0.06, 0.00, 0.00],
           [0.01, 0.05, 0.23, 0.71, 0.01, 0.00],
           [0.03, 0.02, 0.05, 0.05, 0.36, 0.49],
           [0.01, 0.00, 0.00, 0.00, 0.02, 0.97]]
MATRIX = [Aligned(0, 6, 0, 5, WEIGHTS)]


def test_pieces_are_found_in_order_and_special_or_unspelled_ones_take_the_current_place() -> None:
    assert piece_offsets(SOURCE, SOURCE_PIECES) == [0, 2, 7, 13, 16, None]
    assert piece_offsets(TARGET, TARGET_PIECES) == [0, 3, 4, 5, None]
    # a byte piece and a piece the text does not spell (the digit was changed after the search)
    assert piece_offsets("at 9 am", ["▁at", "<0xE4>", "▁8", "▁am"]) == [0, 3, 3, 5]


def test_target_pieces_are_grouped_into_words_of_scripts_written_with_spaces() -> None:
    assert words(["▁gre", "en", "▁tea", ".", "</s>"]) == [[0, 1], [2], [3]]
    assert words(["我", "喜欢", "绿", "茶"]) == [[0], [1], [2], [3]]
    assert words(["▁Tom", "'", "s", "▁car"]) == [[0], [1], [2], [3]]


def test_the_assignment_is_monotone_maximal_and_gives_required_segments_a_word() -> None:
    scores = [[0.9, 0.1, 0.0], [0.2, 0.0, 0.8], [0.0, 0.9, 0.1]]
    assert assign(scores, [False, False, False]) == [0, 0, 1]  # 2.0: better than [0, 2, 2] (1.8), which crosses
    assert assign(scores, [False, False, True]) == [0, 2, 2]  # the last segment must get a word: 1.8
    assert assign([[1.0, 0.0]], [True, True]) == [0]  # fewer words than required segments: none required
    assert assign([], [True]) == []


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.data())
def test_the_assignment_is_the_best_of_all_monotone_ones(words_: int, segments: int, data: st.DataObject) -> None:
    scores = [[data.draw(st.sampled_from([0.0, 0.1, 0.5, 0.9])) for _ in range(segments)] for _ in range(words_)]
    required = [data.draw(st.booleans()) for _ in range(segments)]
    needed = required if sum(required) <= words_ else [False] * segments
    allowed = [a for a in itertools.product(range(segments), repeat=words_)
               if list(a) == sorted(a) and all(k in a for k in range(segments) if needed[k])]
    best = max(sum(scores[u][k] for u, k in enumerate(a)) for a in allowed)
    chosen = assign(scores, required)
    assert tuple(chosen) in allowed
    assert sum(scores[u][k] for u, k in enumerate(chosen)) == pytest.approx(best)


def test_cuts_follow_the_attention() -> None:
    # "I like <u>green</u> tea." -> the word that attends to "green" is cut out for it
    assert cuts(SOURCE, SOURCE_PIECES, TARGET, TARGET_PIECES, MATRIX, [7, 13], [False, True, False]) == [3, 4]
    # "<i>I like</i> green tea." -> "我喜欢" goes with "I like"
    assert cuts(SOURCE, SOURCE_PIECES, TARGET, TARGET_PIECES, MATRIX, [7], [True, False]) == [3]
    assert cuts(SOURCE, SOURCE_PIECES, TARGET, TARGET_PIECES, MATRIX, [], []) == []


def test_without_attention_the_cuts_are_proportional_or_the_boundaries_of_an_unchanged_text() -> None:
    assert proportional("ab cd", [3], "ABCDEFGHIJ") == [6]
    assert proportional("ab cd", [3], "ab cd") == [3]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_cuts_are_ordered_within_the_translation_and_at_word_starts(data: st.DataObject) -> None:
    rows, columns = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 8))
    target_pieces = [data.draw(st.sampled_from(["▁tea", "s", "▁green", "茶", "。", "▁a"])) for _ in range(rows)]
    target = "".join(target_pieces).replace("▁", " ").strip()
    source_pieces = [data.draw(st.sampled_from(["▁I", "▁like", "en", "我"])) for _ in range(columns)]
    source = "".join(source_pieces).replace("▁", " ").strip()
    weights = [[data.draw(st.floats(0, 1)) for _ in range(columns)] for _ in range(rows)]
    boundaries = sorted(data.draw(st.lists(st.integers(0, len(source)), max_size=4)))
    required = [data.draw(st.booleans()) for _ in range(len(boundaries) + 1)]
    found = cuts(source, source_pieces, target, target_pieces, [Aligned(0, columns, 0, rows, weights)], boundaries, required)
    assert len(found) == len(boundaries)
    assert found == sorted(found) and all(0 <= c <= len(target) for c in found)
    starts = {o for o in piece_offsets(target, target_pieces) if o is not None} | {len(target)}
    assert set(found) <= starts


@pytest.mark.parametrize("required", [[True, True, True], [False, True, False]])
def test_a_required_segment_is_not_left_empty_while_words_remain(required: list[bool]) -> None:
    found = cuts(SOURCE, SOURCE_PIECES, TARGET, TARGET_PIECES, MATRIX, [2, 7], required)
    parts = [TARGET[a:b] for a, b in zip([0, *found], [*found, len(TARGET)])]
    assert "".join(parts) == TARGET
    assert all(part for part, needed in zip(parts, required) if needed), parts
