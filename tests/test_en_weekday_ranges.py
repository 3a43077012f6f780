"""A range of weekdays is one span from its first day to the first of its last day after it: from Monday to
Friday, said on a Wednesday, dated Friday the 15th but Monday the 18th; Mon–Fri and Monday-Friday next week were
no time at all (weekdays_en.weekday_range)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

SUNDAY = datetime(2024, 11, 10, 17, 0)
WEDNESDAY = datetime(2024, 11, 13, 10, 0)


def read(text: str, now: datetime = WEDNESDAY) -> list[str]:
    return [f"{s.phrase}: {s.start:%m-%d}..{s.end:%m-%d}" for s in find_time_phrases(text, now)]


def plans(text: str, said: datetime = WEDNESDAY) -> list[tuple[str, str]]:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), said, "en")
    return [(f.object, f"{f.time:%m-%d}") for f in drafts.facts if f.predicate == "plans"]


@pytest.mark.parametrize(
    ("text", "now", "spans"),
    [
        ("I'm working from Monday to Friday", WEDNESDAY, ["Monday to Friday: 11-18..11-23"]),
        ("I'm working from Monday to Friday", SUNDAY, ["Monday to Friday: 11-11..11-16"]),
        ("I'm off Monday through Wednesday", WEDNESDAY, ["Monday through Wednesday: 11-18..11-21"]),
        ("I'm off next Thursday to Tuesday", WEDNESDAY, ["next Thursday to Tuesday: 11-21..11-27"]),
        ("we're away Friday to Monday", WEDNESDAY, ["Friday to Monday: 11-15..11-19"]),
        ("Monday to Friday was rough", WEDNESDAY, ["Monday to Friday: 11-04..11-09"]),
    ],
)
def test_a_range_ends_after_it_starts(text: str, now: datetime, spans: list[str]) -> None:
    assert read(text, now) == spans


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("I'm working Monday-Friday next week", ["Monday-Friday next week: 11-18..11-23"]),
        ("I'm working Mon–Fri", ["Mon–Fri: 11-18..11-23"]),
        ("I'm working mon-fri this week", ["mon-fri this week: 11-11..11-16"]),
        ("off Sat-Sun", ["Sat-Sun: 11-16..11-18"]),
        ("I'm working Monday–Friday", ["Monday–Friday: 11-18..11-23"]),
    ],
)
def test_a_dashed_range_is_read_as_one(text: str, spans: list[str]) -> None:
    assert read(text) == spans


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("I work from 9 to 5", []),
        ("Monday was fun", ["Monday: 11-11..11-12"]),
        ("I sat to sun myself", []),  # no abbreviation alone, nor a lowercase one joined by a word
        ("I'm seeing him Monday and Friday", ["Monday: 11-18..11-19", "Friday: 11-15..11-16"]),
        # a move from one day to another is two days, not a span
        ("I'm moving my meeting from Monday to Friday", ["Monday: 11-18..11-19", "Friday: 11-15..11-16"]),
    ],
)
def test_what_is_no_range_stays(text: str, spans: list[str]) -> None:
    assert read(text) == spans


@pytest.mark.parametrize(
    ("text", "said", "planned"),
    [
        ("I'm working from Monday to Friday", WEDNESDAY, [("is working", "11-18")]),
        ("I'm working Monday-Friday next week", WEDNESDAY, [("is working", "11-18")]),
        ("I'm working Mon–Fri", WEDNESDAY, [("is working", "11-18")]),
        ("I'm off Monday through Wednesday", SUNDAY, [("is off", "11-11")]),
        ("I'm flying from Boston to Chicago on Friday", WEDNESDAY, [("is flying from Boston to Chicago", "11-15")]),
    ],
)
def test_a_planned_range_is_dated_by_its_first_day(text: str, said: datetime, planned: list[tuple[str, str]]) -> None:
    assert plans(text, said) == planned


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I'm off from Nov 20 to Nov 22", [("is off", "11-20")]),
        ("I'm off from the 20th to the 22nd", [("is off", "11-20")]),
        ("I'm traveling from November 20th through November 24th", [("is traveling", "11-20")]),
    ],
)
def test_a_range_of_dates_goes_with_the_time(text: str, planned: list[tuple[str, str]]) -> None:
    assert plans(text) == planned
