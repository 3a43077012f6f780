"""A plan that moves a time takes the "to" that led to the new time with it: I'm moving my meeting to Friday stored
"is moving Mumu's meeting to" (plans_en._MOVED_TO); a "to" of the object stays (going to the gym). And the time a
move gives up (from Monday to Friday: Monday) is neither the plan's nor the event's."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

WEDNESDAY = datetime(2024, 11, 13, 10, 0)


def plans(text: str) -> list[tuple[str, str]]:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), WEDNESDAY, "en")
    return [(f.object, f"{f.time:%m-%d}") for f in drafts.facts if f.predicate == "plans"]


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I'm moving my meeting to Friday", [("is moving Mumu's meeting", "11-15")]),
        ("I'm pushing the call to next Monday", [("is pushing the call", "11-18")]),
        ("I'm going to postpone the party to Saturday", [("is going to postpone the party", "11-16")]),
        ("I'll reschedule my dentist appointment to Friday", [("will reschedule Mumu's dentist appointment", "11-15")]),
        ("I'm changing my flight to tomorrow", [("is changing Mumu's flight", "11-14")]),
        ("I'm putting the dinner off to Saturday", [("is putting the dinner off", "11-16")]),
        ("I'm bumping the review back to Friday", [("is bumping the review back", "11-15")]),
    ],
)
def test_the_to_of_a_moved_time_goes_with_it(text: str, planned: list[tuple[str, str]]) -> None:
    assert plans(text) == planned


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I'm going to the gym on Friday", [("is going to the gym", "11-15")]),
        ("I'm flying from Boston to Chicago on Friday", [("is flying from Boston to Chicago", "11-15")]),
        ("I'm moving to Boston on Friday", [("is moving to Boston", "11-15")]),
        ("I'm going to the movies Friday", [("is going to the movies", "11-15")]),
    ],
)
def test_a_to_of_the_object_stays(text: str, planned: list[tuple[str, str]]) -> None:
    assert plans(text) == planned


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I'm moving my meeting from Monday to Friday", [("is moving Mumu's meeting", "11-15")]),
        ("I'm pushing the call from tomorrow to Friday", [("is pushing the call", "11-15")]),
        ("I'm putting the dinner off from Friday to Saturday", [("is putting the dinner off", "11-16")]),
        ("Emma is moving her party from Saturday to Sunday", [("is moving her party", "11-17")]),
        ("I'm moving the party from Dec 28 to Dec 30", [("is moving the party", "12-30")]),
        # no time it went to, a moving of one's own, a span or a trip: as before
        ("I'm moving my meeting from Monday", [("is moving Mumu's meeting", "11-18")]),
        ("I'm moving from Monday to Friday", [("is moving", "11-18")]),
        ("I'm working from Monday to Friday", [("is working", "11-18")]),
        # what it is moved to said before from: a span (days from Monday to Friday)
        ("I'm switching to days from Monday to Friday", [("is switching to days", "11-18")]),
        ("I'm flying from Boston to Chicago on Friday", [("is flying from Boston to Chicago", "11-15")]),
    ],
)
def test_a_plan_moved_from_one_time_to_another_is_of_the_new_one(text: str, planned: list[tuple[str, str]]) -> None:
    """I'm moving my meeting from Monday to Friday, said on a Wednesday, was a plan of Monday: the time a move
    gives up is no longer the meeting's."""
    assert plans(text) == planned


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("I'm moving my meeting from Monday to Friday", datetime(2024, 11, 15)),
        ("I moved my meeting from Monday to Friday", datetime(2024, 11, 15)),
        ("the meeting was moved from Monday to Friday", WEDNESDAY),  # told done: when it was told
        ("I'm moving my meeting from Monday", datetime(2024, 11, 18)),
    ],
)
def test_the_event_of_a_move_is_not_of_the_time_given_up(text: str, when: datetime) -> None:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), WEDNESDAY, "en")
    assert [event.time for event in drafts.events] == [when]
