"""An English date said without a year is of the year its clause's tense says: I'll be in Paris Jan 3, said on
10 December, read the January eleven months gone (and so did I'm off Jan 5-10, see you Jan 3, my exam is on Jan 8,
in January); now a date far gone in a clause that looks ahead or tells nothing done is next year's, one told done
stays this year's, and one still to come told done (I was in Paris Dec 3, said in January) is last year's."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

DECEMBER = datetime(2024, 12, 10, 15, 0)
JANUARY = datetime(2025, 1, 10, 15, 0)
JUNE = datetime(2024, 6, 20, 15, 0)


def days(text: str, now: datetime = DECEMBER, asked: bool = False) -> list[str]:
    """Each span's first and last day (one day: that day alone)."""
    read = []
    for span in find_time_phrases(text, now, asked=asked):
        first, last = f"{span.start:%Y-%m-%d}", f"{span.end - timedelta(seconds=1):%Y-%m-%d}"
        read.append(first if first == last else f"{first}..{last}")
    return read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # looking ahead
        ("I'll be in Paris Jan 3", ["2025-01-03"]),
        ("see you Jan 3", ["2025-01-03"]),
        ("I'm flying to Lisbon on June 3", ["2025-06-03"]),
        ("My flight is on the 3rd of January", ["2025-01-03"]),
        # telling nothing done: the nearer of the two
        ("my exam is on Jan 8", ["2025-01-08"]),
        ("Jan 3", ["2025-01-03"]),
        ("Project due Jan 15", ["2025-01-15"]),
        # a range of dates, as a date alone
        ("I'm off Jan 5-10", ["2025-01-05..2025-01-10"]),
        ("Visiting my parents Jan 2-4", ["2025-01-02..2025-01-04"]),
        ("From Jan 5 to Jan 10 I'm in Berlin", ["2025-01-05..2025-01-10"]),
        ("I'm off from the 3rd to the 5th of January", ["2025-01-03..2025-01-05"]),
        # the day a move went to is ahead; the one it gave up still to come this year stays
        ("moved the party from Dec 28 to Jan 3", ["2024-12-28", "2025-01-03"]),
        # a month, or a part of one
        ("I'm going to Tokyo in January", ["2025-01-01..2025-01-31"]),
        ("in January I'll start a new job", ["2025-01-01..2025-01-31"]),
        ("I'll be back in mid-January", ["2025-01-11..2025-01-20"]),
        ("I'm away until January", ["2025-01-01..2025-01-31"]),
    ],
)
def test_a_date_far_gone_said_ahead_or_with_nothing_done_is_next_years(text: str, read: list[str]) -> None:
    assert days(text) == read


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        # told done: this year's, as before
        ("I was in Paris Jan 3", DECEMBER, ["2024-01-03"]),
        ("we met on Jan 3", DECEMBER, ["2024-01-03"]),
        ("Jan 3 was fun", DECEMBER, ["2024-01-03"]),
        ("I was off Jan 5-10", DECEMBER, ["2024-01-05..2024-01-10"]),
        ("I was in Tokyo in January", DECEMBER, ["2024-01-01..2024-01-31"]),
        # a few weeks gone, telling nothing done: still the one gone
        ("the party is on Nov 20", DECEMBER, ["2024-11-20"]),
        # a week gone, even said ahead: a slip, or the day talked of
        ("I'll send you the notes from Dec 3", DECEMBER, ["2024-12-03"]),
        # half a year gone, telling nothing done: the one gone is as near
        ("my exam is on Jan 8", JUNE, ["2024-01-08"]),
        # after since, or remembered: gone whatever the clause says
        ("sick since January", DECEMBER, ["2024-01-01..2024-01-31"]),
        ("I'll never forget Jan 3", DECEMBER, ["2024-01-03"]),
        # a year said, or where the month lies: as said
        ("I'll be in Paris Jan 3, 2024", DECEMBER, ["2024-01-03"]),
        ("I'll be in Paris next January", DECEMBER, ["2025-01-01..2025-01-31"]),
        # still to come this year, telling nothing done or looking ahead: as before
        ("see you Dec 28", DECEMBER, ["2024-12-28"]),
        ("I'll be in Paris Dec 28", JANUARY, ["2025-12-28"]),
        # still to come, but arranged for, not done (the arranging is): as before
        ("we booked the venue for Dec 3", JANUARY, ["2025-12-03"]),
        ("I signed up for the marathon on March 3", JANUARY, ["2025-03-03"]),
        ("I moved the party from Dec 28 to Dec 30", DECEMBER, ["2024-12-28", "2024-12-30"]),
    ],
)
def test_a_date_told_done_or_near_reads_as_before(text: str, now: datetime, read: list[str]) -> None:
    assert days(text, now) == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("I was in Paris Dec 3", ["2024-12-03"]),
        ("we met on Dec 28", ["2024-12-28"]),
        ("I was off from Dec 20 to Dec 23", ["2024-12-20..2024-12-23"]),
    ],
)
def test_a_date_still_to_come_told_done_is_last_years(text: str, read: list[str]) -> None:
    assert days(text, JANUARY) == read


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        # asked of the past, or bare: as before
        ("what did I do on Jan 3?", DECEMBER, ["2024-01-03"]),
        ("what happened on jan 3", DECEMBER, ["2024-01-03"]),
        ("where was I Jan 3?", DECEMBER, ["2024-01-03"]),
        ("restaurant on Jan 3?", DECEMBER, ["2024-01-03"]),
        ("trip Jan 5-10", DECEMBER, ["2024-01-05..2024-01-10"]),
        ("what did I do in January?", DECEMBER, ["2024-01-01..2024-01-31"]),
        # asked ahead: the coming one
        ("am I free on Jan 3?", DECEMBER, ["2025-01-03"]),
        # asked of the past, of a date still to come this year: the one gone (was the coming December's)
        ("what did I do on Dec 3?", JANUARY, ["2024-12-03"]),
    ],
)
def test_a_query_moves_its_date_only_when_clearly_meant(text: str, now: datetime, read: list[str]) -> None:
    assert days(text, now, asked=True) == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a month with its day said is that day (since Jan 3 read all January: its month outran the date)
        ("sick since Jan 3", ["2024-01-03"]),
        ("I've been sick since Jan. 3rd", ["2024-01-03"]),
        ("I'm away until Jan 3", ["2025-01-03"]),
        ("the notes of Dec 3", ["2024-12-03"]),
        ("home since Jan 3-5", ["2024-01-03..2024-01-05"]),
        # a month alone, or with its year: as before
        ("sick since January", ["2024-01-01..2024-01-31"]),
        ("since January, 2024", ["2024-01-01..2024-01-31"]),
        ("in Jan 2024", ["2024-01-01..2024-01-31"]),
    ],
)
def test_a_month_with_its_day_said_is_the_day(text: str, read: list[str]) -> None:
    assert days(text) == read


def test_a_plan_of_a_date_far_gone_is_stored_of_next_year() -> None:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), ("I'll be in Paris Jan 3",), DECEMBER, "en")
    assert [event.text for event in drafts.events] == ["Mumu said: I'll be in Paris Jan 3 (2025-01-03)."]
    assert [(fact.object, fact.about) for fact in drafts.facts if fact.predicate == "plans"] == [
        ("will be in Paris", "2025-01-03")
    ]


@pytest.mark.parametrize(
    ("unit", "read"),
    [
        ("I'll be in Paris Jan 3 ", "2025-01-03"),
        ("I'm off Jan 5-10 ", "2025-01-05..2025-01-10"),
        ("in January ", "2025-01-01..2025-01-31"),
        ("was Jan 3 ", "2024-01-03"),
    ],
)
def test_thousands_of_dates_in_one_line_are_each_read(unit: str, read: str) -> None:
    # each date reads its clause, at most tense_en.REACH characters either side: not the whole line
    assert set(days(unit * 3000)) == {read}
