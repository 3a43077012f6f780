"""English days a companion's user names loosely: a weekend by its tense, a day or part of a month, a clock after
tonight, weekends and fortnights counted. Each case is a reading a chat prompt showed wrong (helper, 2025-03)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.text.times import find_time_phrases

THURSDAY = datetime(2025, 3, 13, 9, 0)
SUNDAY = datetime(2025, 3, 16, 10, 0)
MONDAY = datetime(2025, 3, 10, 9, 0)


def _read(text: str, now: datetime = THURSDAY) -> list[tuple[str, str, str]]:
    return [(s.phrase, f"{s.start:%m-%d %H:%M}", f"{s.end:%m-%d %H:%M}") for s in find_time_phrases(text, now)]


def _days(text: str, now: datetime = THURSDAY) -> list[tuple[str, str, str]]:
    return [(s.phrase, f"{s.start:%m-%d}", f"{s.end:%m-%d}") for s in find_time_phrases(text, now)]


LAST_WEEKEND = ("03-08", "03-10")
COMING_WEEKEND = ("03-15", "03-17")


@pytest.mark.parametrize(
    ("text", "now", "days"),
    [
        # told in the past on a Thursday: the weekend just gone ("Liz watched Dune 2 over the weekend (2025-03-15～
        # 2025-03-16) … planned, now past", said a companion's prompt)
        ("Emma and I watched Dune 2 over the weekend", THURSDAY, LAST_WEEKEND),
        ("I went hiking on the weekend", THURSDAY, LAST_WEEKEND),
        ("I was busy this weekend", THURSDAY, LAST_WEEKEND),
        ("We had a great time this weekend", THURSDAY, LAST_WEEKEND),
        ("What did you do over the weekend?", THURSDAY, LAST_WEEKEND),
        ("We had a great time this weekend", MONDAY, ("03-08", "03-10")),
        # still the coming one: said of a time to come, or in no tense
        ("I'm going hiking over the weekend", THURSDAY, COMING_WEEKEND),
        ("this weekend I'll rest", THURSDAY, COMING_WEEKEND),
        ("I already booked a hotel for the weekend", THURSDAY, COMING_WEEKEND),
        ("We decided to go camping this weekend", THURSDAY, COMING_WEEKEND),
        ("Looking forward to a relaxed weekend", THURSDAY, COMING_WEEKEND),
        # on a Sunday this weekend is the one under way, whatever the tense
        ("I was busy this weekend", SUNDAY, ("03-15", "03-17")),
        ("We're having a great time this weekend", SUNDAY, ("03-15", "03-17")),
    ],
)
def test_a_weekend_told_in_the_past_is_the_one_gone(text: str, now: datetime, days: tuple[str, str]) -> None:
    assert [span[1:] for span in _days(text, now)] == [days]


@pytest.mark.parametrize("text", ["I started a weekend yoga class", "we hike every weekend", "a weekend away"])
def test_a_weekend_of_no_one_date(text: str) -> None:
    # was the coming weekend, or once told in the past the last one: neither is the yoga class's
    assert _days(text) == []
