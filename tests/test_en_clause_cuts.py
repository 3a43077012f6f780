"""English clause cuts (…, and I …; … but …) find the same places, and a long run of spaces costs linear time."""

from __future__ import annotations

import pytest

from huiyi.flows.extract.rules.en_clauses import EN_AND_I, EN_OBJECT_CUT
from huiyi.flows.extract.rules.objects import trim_en


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("I love tea, and I play chess", ["I love tea", "I play chess"]),
        ("I moved   and now I'm happy", ["I moved", "I'm happy"]),
        ("tea and cake", ["tea and cake"]),
        ("I run so my knees hurt", ["I run", "my knees hurt"]),
    ],
)
def test_and_i_splits_where_it_did(text: str, parts: list[str]) -> None:
    assert EN_AND_I.split(text) == parts


@pytest.mark.parametrize(
    ("value", "cut"),
    [
        ("green tea but not coffee", "green tea"),
        ("jazz   so much", "jazz"),
        ("tennis", "tennis"),
        ("butter", "butter"),
        # a comma before a clause of its own: what follows is no part of the object
        ("St. Mary's hospital, night shifts are killing me", "St. Mary's hospital"),
        ("Denver, it's freezing", "Denver"),
        ("Austin, Texas", "Austin, Texas"),
        ("cats, dogs and rabbits", "cats, dogs and rabbits"),
    ],
)
def test_object_cut_drops_what_follows(value: str, cut: str) -> None:
    assert EN_OBJECT_CUT.sub("", value) == cut


def test_a_long_run_of_spaces_returns() -> None:
    # searched from every space of the run, 20 000 spaces took 21 s in the cut and 9 s in the split;
    # these 200 000 would take half an hour
    text = "I really love green tea" + " " * 200_000 + "ok"
    assert EN_OBJECT_CUT.sub("", text) == text
    assert EN_AND_I.split(text) == [text]


@pytest.mark.parametrize(
    ("value", "trimmed"), [("Toronto btw", "Toronto"), ("green tea lol", "green tea"), ("Lol Cafe", "Lol Cafe")]
)
def test_a_chat_filler_after_the_object_is_no_part_of_it(value: str, trimmed: str) -> None:
    assert trim_en(value) == trimmed
