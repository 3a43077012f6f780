"""A capital that opens a sentence names nothing; telling so reads back from the capital, not the whole text."""

from __future__ import annotations

import doctest

from huiyi.flows.extract.rules import mentions


def test_doctests() -> None:
    assert doctest.testmod(mentions).failed == 0


def test_each_capital_of_a_long_line_is_checked_in_linear_time() -> None:
    # the text before each capital was searched again: 200 000 capitals took hours
    text = "NEAR( " * 200_000
    starts = [i for i in range(0, len(text), 6) if mentions._starts_sentence(text, i)]
    assert starts == [0]
    assert mentions._starts_sentence("I came. Then", 8)
    assert not mentions._starts_sentence("I came with Tom", 12)
