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


@pytest.mark.parametrize("text", ["just a long weekend", "we're going away for a long weekend", "a 3-day weekend"])
def test_a_long_weekend_said_as_a_length_is_no_date(text: str) -> None:
    # "Nice, how long?" "just a long weekend", said on a Friday, showed (2025-06-14 to 2025-06-15)
    assert _days(text) == []


def test_the_long_weekend_is_still_one() -> None:
    # and it runs through Monday (times_en._longer_weekend)
    assert [span[1:] for span in _days("what are you doing this long weekend")] == [("03-15", "03-18")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the whole next month was read, with no day
        ("I start on the 15th of next month", [("the 15th of next month", "04-15", "04-16")]),
        ("next month on the 15th", [("next month on the 15th", "04-15", "04-16")]),
        ("it was the 3rd of last month", [("the 3rd of last month", "02-03", "02-04")]),
        # a day of a month with none named was no time: this month's, the next one's when said of a time to come
        # and already past, the last one's when told done and still to come
        ("my exam is on the 20th", [("on the 20th", "03-20", "03-21")]),
        ("my exam was on the 5th", [("on the 5th", "03-05", "03-06")]),
        ("I'll be back on the 5th", [("on the 5th", "04-05", "04-06")]),
        ("the party was on the 20th", [("on the 20th", "02-20", "02-21")]),
        ("I need it by the 21st", [("by the 21st", "03-21", "03-22")]),
        # an ordinal naming no day
        ("this is my 5th time here", []),
        ("a book on the 20th century", []),
        ("his 20th birthday", []),
        ("we're celebrating his 15th anniversary", []),
        ("she finished on the 5th lap", []),
        # the day the speaker was born on is a birthday, no day of one month (read 02-15 since 53e6c75)
        ("I was born on the 15th", []),
        ("we were born on the 20th", []),
    ],
)
def test_a_day_of_a_month(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _days(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # early = days 1–10, mid = 11–20, late and the end = 21 to the month's last day
        ("I'm moving mid-April", [("mid-April", "04-11", "04-21")]),
        ("I'm moving in mid April", [("in mid April", "04-11", "04-21")]),
        ("early next month", [("early next month", "04-01", "04-11")]),
        ("rent is due at the end of the month", [("the end of the month", "03-21", "04-01")]),
        ("by the end of next month", [("by the end of next month", "04-21", "05-01")]),
        ("late May", [("late May", "05-21", "06-01")]),
        ("in early June", [("in early June", "06-01", "06-11")]),
        ("at the beginning of February 2024", [("the beginning of February 2024", "02-01", "02-11")]),
        ("the middle of last month", [("the middle of last month", "02-11", "02-21")]),
    ],
)
def test_a_part_of_a_month(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _days(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the clock after tonight or a part of a day needs no am/pm: tonight at 8 read all evening
        ("tonight at 8", [("tonight at 8", "03-13 20:00", "03-13 21:00")]),
        ("See you tonight at 8.", [("tonight at 8", "03-13 20:00", "03-13 21:00")]),
        ("tonight at 1:30", [("tonight at 1:30", "03-14 01:30", "03-14 01:31")]),  # was 13:30
        ("let's meet this evening at 7", [("this evening at 7", "03-13 19:00", "03-13 20:00")]),
        ("tomorrow morning at 7", [("tomorrow morning at 7", "03-14 07:00", "03-14 08:00")]),
        ("tonight at 12", [("tonight at 12", "03-14 00:00", "03-14 01:00")]),
        ("tomorrow at 7pm", [("tomorrow at 7pm", "03-14 19:00", "03-14 20:00")]),
        ("tonight at 8 o'clock", [("tonight at 8 o'clock", "03-13 20:00", "03-13 21:00")]),
    ],
)
def test_a_bare_clock_after_a_part_of_a_day(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I met her two weekends ago", [("two weekends ago", "03-01", "03-03")]),
        ("a weekend ago", [("a weekend ago", "03-08", "03-10")]),
        ("a couple of weekends ago", [("a couple of weekends ago", "02-22", "03-03")]),
        # a fortnight is two weeks, read as "in two weeks" is: the Mon–Sun week it lands in, as "in three days" is
        # that day and "in a month" that month (was the one day 14 days on)
        ("in a fortnight", [("in a fortnight", "03-24", "03-31")]),
        ("in two weeks", [("in two weeks", "03-24", "03-31")]),
        ("a fortnight ago", [("a fortnight ago", "02-24", "03-03")]),
        ("a couple of fortnights ago", [("a couple of fortnights ago", "01-27", "02-17")]),
    ],
)
def test_weekends_and_fortnights_counted(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _days(text) == expected


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I saw him on Friday", "03-07"),  # was 03-14, tomorrow
        ("We went to the beach on Saturday", "03-08"),
        ("I saw him on Monday", "03-10"),
        ("I'll see him on Monday", "03-17"),
        ("I'll see him on Friday", "03-14"),
        ("the party is on Saturday", "03-15"),
        ("I moved my dentist appointment to Friday", "03-14"),  # what was moved is still to come
    ],
)
def test_a_weekday_told_done_is_the_one_gone(text: str, day: str) -> None:
    assert [span[1] for span in _days(text)] == [day]


@pytest.mark.parametrize(
    ("text", "now", "days"),
    [
        # the present perfect tells of what is done (was the coming weekend, the coming Friday)
        ("I've been busy this weekend", THURSDAY, LAST_WEEKEND),
        ("We have just finished the garden over the weekend", THURSDAY, LAST_WEEKEND),
        ("She's been to the lake on the weekend", THURSDAY, LAST_WEEKEND),
        ("I have finished it on Friday", THURSDAY, ("03-07", "03-08")),
        ("What have you done over the weekend?", THURSDAY, LAST_WEEKEND),
        ("I've been looking forward to this weekend", THURSDAY, COMING_WEEKEND),
        # have got is have, have to a time to come
        ("I've got a wedding this weekend", THURSDAY, COMING_WEEKEND),
        ("I have to work this weekend", THURSDAY, COMING_WEEKEND),
        ("I've got a dentist appointment on Friday", THURSDAY, ("03-14", "03-15")),
    ],
)
def test_the_present_perfect_tells_it_done(text: str, now: datetime, days: tuple[str, str]) -> None:
    assert [span[1:] for span in _days(text, now)] == [days]


@pytest.mark.parametrize(
    ("text", "now", "days"),
    [
        # asking how it went is of the weekend gone (was the coming one on a Thursday)
        ("Anything fun over the weekend?", THURSDAY, LAST_WEEKEND),
        ("Hey! Anything exciting over the weekend?", THURSDAY, LAST_WEEKEND),
        ("How was your weekend?", THURSDAY, LAST_WEEKEND),
        ("How was your weekend?", MONDAY, ("03-08", "03-10")),
        # asking of plans is of the coming one (was the last one on a Monday)
        ("Any plans for the weekend?", MONDAY, ("03-15", "03-17")),
        ("Any plans for the weekend?", THURSDAY, COMING_WEEKEND),
        ("Anything fun planned over the weekend?", THURSDAY, COMING_WEEKEND),
        ("Doing anything fun over the weekend?", THURSDAY, COMING_WEEKEND),
    ],
)
def test_asking_how_a_weekend_went_or_what_is_planned(text: str, now: datetime, days: tuple[str, str]) -> None:
    assert [span[1:] for span in _days(text, now)] == [days]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        # a past verb that leads to a proposal, a hope or what is so now: the day is still the coming one (each read
        # the one gone, 03-07 or 03-08～09 or 02-15, since 8aeb926)
        ("I was thinking we could go on Friday", "03-14"),
        ("I was wondering if you're free Friday", "03-14"),
        ("I was told the meeting is on Friday", "03-14"),
        ("I was hoping to see you on Saturday", "03-15"),
        ("I was thinking we could go camping this weekend", "03-15"),
        ("I was wondering if you're free on the 15th", "03-15"),
    ],
)
def test_a_past_verb_of_a_proposal_or_a_hope_keeps_the_day_to_come(text: str, day: str) -> None:
    assert [span[1] for span in _days(text)] == [day]


@pytest.mark.parametrize(
    ("text", "day"),
    [("I won the tournament on Friday", "03-07"), ("I can't believe we won on Saturday", "03-08")],
)
def test_a_past_told_with_no_proposal_is_still_the_one_gone(text: str, day: str) -> None:
    assert [span[1] for span in _days(text)] == [day]


def test_a_present_verb_after_the_day_leaves_it_told_done() -> None:
    assert [span[1:] for span in _days("We had a great time this weekend which is rare")] == [LAST_WEEKEND]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("the deadline is end of next week", ("03-20", "03-24")),
        ("I'll send it by the end of the week", ("03-13", "03-17")),
        ("let's meet early next week", ("03-17", "03-20")),
        ("it got busy mid last week", ("03-05", "03-07")),
    ],
)
def test_a_part_of_a_week_is_its_days(text: str, days: tuple[str, str]) -> None:
    # "end of next week", said of a deadline on a Monday, showed the whole week (2025-06-23 to 2025-06-29)
    assert [span[1:] for span in _days(text)] == [days]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("I've been invited to a party on Saturday", ("03-15", "03-16")),
        ("We've been invited to their wedding this weekend", COMING_WEEKEND),
        ("I've invited everyone to my party on Saturday", ("03-15", "03-16")),
        ("I've been asked to give a talk on Friday", ("03-14", "03-15")),
        ("I've been planning a picnic on Saturday", ("03-15", "03-16")),
        ("I've been preparing for my interview on Friday", ("03-14", "03-15")),
        ("Ugh I've been so nervous about Friday", ("03-14", "03-15")),
        ("I've taken Friday off", ("03-14", "03-15")),
    ],
)
def test_the_present_perfect_of_a_thing_toward_a_day_ahead_keeps_it_ahead(text: str, days: tuple[str, str]) -> None:
    """Since 4c1894f the present perfect told its day done, so I've been invited to a party on Saturday, said on
    a Thursday, read the Saturday gone: an invitation, what one has been doing or feeling toward a day, and a
    day taken off are of the day ahead (the present perfect names no day gone: *I've seen him on Friday)."""
    assert [span[1:] for span in _days(text, THURSDAY)] == [days]


@pytest.mark.parametrize("text", ["It's a long weekend so we're going to the lake", "we have a long weekend coming up"])
def test_a_long_weekend_that_is_here_is_the_coming_one(text: str) -> None:
    # "It's a long weekend so we're going to the lake" lost the lake trip's date with 5a6b4a0; through Monday
    assert [span[1:] for span in _days(text)] == [("03-15", "03-18")]
