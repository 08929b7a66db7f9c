"""Words in capitals for emphasis read in lower case (`translate.data.shouting`), against the bundled
training split's English."""

from __future__ import annotations

import pytest

from translate.data.shouting import unshouted


@pytest.mark.parametrize("text,read", [
    ("This is SO good.", "This is so good."), ("My cat did it AGAIN.", "My cat did it again."),
    ("I LOVE THIS PLACE!", "I love this place!"), ("DON'T DO THAT.", "Don't do that."),
    ("I LOVE BEIJING!", "I love Beijing!"),  # a whole sentence in capitals: a name capitalised
    ("I work at NASA.", "I work at NASA."), ("I watch TV.", "I watch TV."), ("OK, fine.", "OK, fine."),
    ("We live in the US.", "We live in the US."), ("The WHO said so.", "The WHO said so."),
    ("WOW", "WOW"),  # one word alone: no sentence to read it in
    ("I like tea.", "I like tea."),
])
def test_shouted_words_are_read_in_lower_case(text: str, read: str) -> None:
    assert unshouted(text) == read
