"""English days read against another one said with them: a day before or after a date (the Sunday before 25 May
2023, as LoCoMo asks), a bare hour before the day it is on (at 8 tonight) or after it (tomorrow at 7), and a range
of days of a month (from the 1st to the 10th). Each was read as a part or none (helper, 2025-03)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.text.times import find_time_phrases, query_time_range

THURSDAY = datetime(2025, 3, 13, 9, 0)


def _days(text: str, now: datetime = THURSDAY) -> list[tuple[str, str, str]]:
    return [(s.phrase, f"{s.start:%Y-%m-%d}", f"{s.end:%Y-%m-%d}") for s in find_time_phrases(text, now)]


def _clocks(text: str, now: datetime = THURSDAY) -> list[tuple[str, str, str]]:
    return [(s.phrase, f"{s.start:%m-%d %H:%M}", f"{s.end:%m-%d %H:%M}") for s in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # were the coming Sunday and the date, two readings a question's range joined into years
        ("the Sunday before October 25, 2022", [("the Sunday before October 25, 2022", "2022-10-23", "2022-10-24")]),
        ("the Friday after July 4", [("the Friday after July 4", "2025-07-11", "2025-07-12")]),
        # a week or a weekend before a date is the one "last week" said on it means; a weekday the nearest one
        ("the week before 9 June 2023", [("the week before 9 June 2023", "2023-05-29", "2023-06-05")]),
        ("the weekend after July 4", [("the weekend after July 4", "2025-07-05", "2025-07-07")]),
        # April 10, 2023 is a Monday; "last" before it was read as the last weekend of when it was asked
        ("last weekend before April 10, 2023", [("last weekend before April 10, 2023", "2023-04-08", "2023-04-10")]),
        ("two days after 3 March", [("two days after 3 March", "2025-03-05", "2025-03-06")]),
        ("a week after 2023-05-01", [("a week after 2023-05-01", "2023-05-08", "2023-05-15")]),
        ("the day before 25 May 2023", [("the day before 25 May 2023", "2023-05-24", "2023-05-25")]),
        # no date: no day
        ("the day before my birthday", []),
    ],
)
def test_a_day_before_or_after_a_date(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _days(text) == expected


def test_a_question_reads_the_day_before_a_date() -> None:
    # LoCoMo asks this way; the question's range ran from 25 May 2023 to the coming Sunday of when it was asked
    span = query_time_range("What did Caroline do the Sunday before 25 May 2023?", datetime(2023, 10, 1, 12))
    assert span is not None
    assert (f"{span.start:%Y-%m-%d}", f"{span.end:%Y-%m-%d}") == ("2023-05-21", "2023-05-22")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a bare hour before its day: was the whole evening, the whole morning
        ("see you at 8 tonight", [("at 8 tonight", "03-13 20:00", "03-13 21:00")]),
        ("at 7 tomorrow morning", [("at 7 tomorrow morning", "03-14 07:00", "03-14 08:00")]),
        ("at 1 tonight", [("at 1 tonight", "03-14 01:00", "03-14 02:00")]),
        # a bare hour with a whole day, as 明天三点 reads (hours_zh.half_of_the_day, "after a day"): 1–6 the
        # afternoon's, 7–11 the morning's, 12 noon; was the whole day
        ("tomorrow at 7", [("tomorrow at 7", "03-14 07:00", "03-14 08:00")]),
        ("tomorrow at 3", [("tomorrow at 3", "03-14 15:00", "03-14 16:00")]),
        ("at 3 tomorrow", [("at 3 tomorrow", "03-14 15:00", "03-14 16:00")]),
        ("on Friday at 11", [("Friday at 11", "03-14 11:00", "03-14 12:00")]),
        ("tomorrow at 12", [("tomorrow at 12", "03-14 12:00", "03-14 13:00")]),
    ],
)
def test_a_bare_hour_and_its_day(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _clocks(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have to wake up at 5 tomorrow", [("at 5 tomorrow", "03-14 05:00", "03-14 06:00")]),
        ("Going to bed, up at 5 tomorrow", [("at 5 tomorrow", "03-14 05:00", "03-14 06:00")]),
        ("gotta get up tomorrow at 6", [("tomorrow at 6", "03-14 06:00", "03-14 07:00")]),
        # not one's waking: the afternoon's, as tomorrow at 5
        ("pick me up at 5 tomorrow", [("at 5 tomorrow", "03-14 17:00", "03-14 18:00")]),
        ("let's meet up at 5 tomorrow", [("at 5 tomorrow", "03-14 17:00", "03-14 18:00")]),
    ],
)
def test_a_bare_hour_one_wakes_at_is_the_mornings(text: str, expected: list[tuple[str, str, str]]) -> None:
    """I have to wake up at 5 tomorrow read 17:00 (since 67866bb a bare small hour on a whole day is the
    afternoon's; it was the whole day): waking is of the morning, as 明天六点起床 is."""
    assert _clocks(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # was only "from the 1st", one day
        ("I'm away from the 1st to the 10th", [("from the 1st to the 10th", "2025-04-01", "2025-04-11")]),
        ("I was away from the 1st to the 10th", [("from the 1st to the 10th", "2025-03-01", "2025-03-11")]),
        (
            "the shop is closed between the 20th and the 25th",
            [("between the 20th and the 25th", "2025-03-20", "2025-03-26")],
        ),
        ("we're in Rome from the 28th to the 3rd", [("from the 28th to the 3rd", "2025-03-28", "2025-04-04")]),
        (
            "from the 5th to the 9th of next month",
            [("from the 5th to the 9th of next month", "2025-04-05", "2025-04-10")],
        ),
        ("from the 5th till the 9th of June", [("from the 5th till the 9th of June", "2025-06-05", "2025-06-10")]),
        # a birth day is no day of this month: the range's start read it, and None broke it (TypeError)
        ("I was born from the 1st to the 10th", []),
    ],
)
def test_a_range_of_days_of_a_month(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _days(text) == expected
