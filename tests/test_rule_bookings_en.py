"""A trip or an outing booked in English with a time to come is the speaker's plan: Flights to Lisbon are booked,
leaving Oct 2 at 7am and Got tickets for the Coldplay concert on the 14th stored only their event (and the 14th
read as the one gone, the getting told in the past), so "when do I fly to Lisbon" found no plan."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

SCOPE = Scope.of_person("bot", "Mumu")
START = datetime(2025, 9, 10, 10)  # a Wednesday


def plans(*texts: str) -> set[tuple[str, str, str, datetime | None]]:
    return {
        (fact.subject, fact.object, fact.description, fact.time)
        for fact in extract_private(SCOPE, texts, START, "en").facts
        if fact.predicate == "plans"
    }


@pytest.mark.parametrize(
    ("text", "obj", "description", "time"),
    [
        (
            "Flights to Lisbon are booked, leaving Oct 2 at 7am",
            "flights to Lisbon",
            "Mumu's flights to Lisbon are booked, leaving Oct 2 at 7am",
            datetime(2025, 10, 2, 7),
        ),
        (
            "Got tickets for the Coldplay concert on the 14th",
            "tickets for the Coldplay concert",
            "Mumu got tickets for the Coldplay concert on the 14th",
            datetime(2025, 9, 14),
        ),
        (
            "Just booked flights to Lisbon for Oct 2!",
            "flights to Lisbon",
            "Mumu booked flights to Lisbon for Oct 2",
            datetime(2025, 10, 2),
        ),
        (
            "The hotel's booked for next weekend",
            "hotel",
            "Mumu's hotel's booked for next weekend (2025-09-20～2025-09-21)",
            datetime(2025, 9, 20),
        ),
    ],
)
def test_a_booking_with_a_time_to_come_is_a_plan(text: str, obj: str, description: str, time: datetime) -> None:
    assert plans(text) == {("Mumu", obj, description, time)}


def test_a_booking_the_plan_rules_read_is_stored_once() -> None:
    assert plans("I booked a table at Nobu for Friday 8pm") == {
        (
            "Mumu",
            "booked a table at Nobu 8pm",
            "Mumu booked a table at Nobu for Friday (2025-09-12) 8pm",
            datetime(2025, 9, 12),
        )
    }


@pytest.mark.parametrize(
    "text",
    [
        "Flights are booked",  # no time
        "I booked the flights last week",  # the booking's time, gone by
        "My sister booked a table at Nobu for Friday",  # someone else's
        "Booked flights for my mom, she leaves Oct 2",
        "Our flights are booked, leaving Oct 2",  # whose?
        "Flights aren't booked yet, leaving Oct 2",  # not done
        "Did you book the flights for Oct 2?",  # a question
        "Flights are booked for Mom and Dad, they leave Friday",  # theirs
        "Tickets are booked for the kids, they fly Friday",
        "The hotel is booked for you, check-in Friday",
        "I had tickets to the show on Friday but I was sick",  # the show gone
        "I got tickets for the concert on Saturday, it was great",
    ],
)
def test_no_plan_without_the_speaker_booking_a_time_to_come(text: str) -> None:
    assert plans(text) == set()


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Got tickets for the concert on the 24th", datetime(2025, 9, 24)),  # was Aug 24
        ("We got tickets on Monday", datetime(2025, 9, 8)),  # the getting's day, gone by
        ("I went for a run on the 14th", datetime(2025, 8, 14)),
        # tickets had, or got and told how it went: the day gone, as before
        ("I had tickets to the show on Friday but I was sick", datetime(2025, 9, 5)),
        ("We had tickets for the game on Saturday but it got rained out", datetime(2025, 9, 6)),
        ("I got tickets for the concert on Saturday, it was great", datetime(2025, 9, 6)),
    ],
)
def test_a_day_a_thing_is_got_for_is_to_come(text: str, start: datetime) -> None:
    """A thing got for a day is for the day ahead, but one had for it, or whose sentence tells how it went, is of
    the day gone: I had tickets to the show on Friday but I was sick read the coming Friday, and a plan of it."""
    assert [span.start for span in find_time_phrases(text, START)] == [start]
