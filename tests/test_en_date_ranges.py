"""A range of dates said with their months is one span through its last day, and one over a New Year ends in
the next year: I'm off from Dec 28 to Jan 3, said on 10 December, read Dec 28 and the January 3 gone (two
spans, the second eleven months back)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

DECEMBER = datetime(2024, 12, 10, 15, 0)
JANUARY = datetime(2025, 1, 2, 15, 0)
FEBRUARY = datetime(2025, 2, 2, 15, 0)


def days(text: str, now: datetime = DECEMBER) -> list[str]:
    return [f"{s.start:%Y-%m-%d}..{s.end - timedelta(seconds=1):%Y-%m-%d}" for s in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        ("I'm off from Dec 28 to Jan 3", DECEMBER, "2024-12-28..2025-01-03"),
        ("Dec 30 - Jan 2", DECEMBER, "2024-12-30..2025-01-02"),
        ("between Dec 28 and Jan 3 I'm away", DECEMBER, "2024-12-28..2025-01-03"),
        ("we'll be in Tokyo from 28 Dec to 3 Jan", DECEMBER, "2024-12-28..2025-01-03"),
        ("off Dec 28th through the 3rd", DECEMBER, "2024-12-28..2025-01-03"),
        ("Dec 28, 2024 – Jan 3, 2025", DECEMBER, "2024-12-28..2025-01-03"),
        ("Dec 28 - Jan 3, 2026", DECEMBER, "2025-12-28..2026-01-03"),
        # said in the January it ends in: the one under way; told done in February: the one gone
        ("I'm off from Dec 28 to Jan 3", JANUARY, "2024-12-28..2025-01-03"),
        ("I was off from Dec 28 to Jan 3", FEBRUARY, "2024-12-28..2025-01-03"),
        ("I'll be off from Dec 28 to Jan 3", FEBRUARY, "2025-12-28..2026-01-03"),
        # within one year: one span too, of the year a date alone is of (said in December, looking ahead or
        # telling nothing done, the coming May's: years_en), and this year's when told done
        ("I'm off from May 3 to May 7", DECEMBER, "2025-05-03..2025-05-07"),
        ("I'm off May 3-7", DECEMBER, "2025-05-03..2025-05-07"),
        ("3-5 June", DECEMBER, "2025-06-03..2025-06-05"),
        ("I was off May 3-7", DECEMBER, "2024-05-03..2024-05-07"),
    ],
)
def test_a_range_of_dates_is_one_span(text: str, now: datetime, read: str) -> None:
    assert days(text, now) == [read]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # two dates, not a range: as before, each of the year a date alone is of (Jan 3 said in December with
        # nothing told done: the coming one, years_en)
        ("Dec 28 and Jan 3", ["2024-12-28..2024-12-28", "2025-01-03..2025-01-03"]),
        ("Dec 28 to Dec 3", ["2024-12-28..2024-12-28", "2024-12-03..2024-12-03"]),
        # a count or a clock after the last number is no day
        ("Jan 10 - 2 meetings", ["2025-01-10..2025-01-10"]),
        ("May 3 - 5 pm", ["2025-05-03..2025-05-03"]),
        ("it may 3 to 5 hours", ["2025-05-03..2025-05-03"]),
        ("open 9-5 Mar 3", ["2025-03-03..2025-03-03"]),
        # a move: the day given up and the one it went to
        ("I moved the party from Dec 28 to Dec 30", ["2024-12-28..2024-12-28", "2024-12-30..2024-12-30"]),
        # a range of days of a month (month_days_en): as before
        ("from the 28th to the 3rd", ["2024-12-28..2025-01-03"]),
    ],
)
def test_what_is_no_range_of_dates_reads_as_before(text: str, read: list[str]) -> None:
    assert days(text) == read


def test_the_event_of_a_range_over_new_year_shows_it_whole() -> None:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), ("I'm off from Dec 28 to Jan 3",), DECEMBER, "en")
    assert [event.text for event in drafts.events] == [
        "Mumu said: I'm off from Dec 28 to Jan 3 (2024-12-28～2025-01-03)."
    ]
    assert [(fact.object, fact.about) for fact in drafts.facts if fact.predicate == "plans"] == [
        ("is off", "2024-12-28～2025-01-03")
    ]
