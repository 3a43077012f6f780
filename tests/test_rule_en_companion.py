"""An English companion's month, as a user says it (issue 17's dogfooding): the facts read keep their object
without the chat around it, a name called first or a comma's clause after breaks no rule, a plan said of a
past booking or of "Jake and I" reads as English, and a time between "and" and "I" starts a new clause."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope, ScopeKind
from rule_lines import extract_private

SCOPE = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
SATURDAY = datetime(2025, 2, 15, 10, 5)


def facts(text: str, when: datetime = SATURDAY) -> list[str]:
    return [fact.description for fact in extract_private(SCOPE, (text,), when, "en").facts]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Also I hate cilantro, someone put it in my tacos today and I almost cried", "Mia hates cilantro"),
        ("My birthday is January 20th btw, so you can remember next year", "Mia's birthday is January 20th"),
        ("I'm allergic to penicillin actually, but cats are fine.", "Mia is allergic to penicillin"),
        ("I live in Boston now, at Emma's place in Somerville for the moment.", "Mia lives in Boston"),
        ("Also Kai, actually I'm 27, not 26.", "Mia is 27 years old"),
        (
            "I don't drink coffee anymore, it's been making my anxiety so much worse.",
            "Mia doesn't drink coffee anymore",
        ),
        ("Also I'm quitting coffee.", "Mia quit coffee"),
        ("Thank you, I live in Boston now.", "Mia lives in Boston"),
        ("Thank you very much, I live in Boston now.", "Mia lives in Boston"),  # as plain thanks (helper)
    ],
)
def test_the_fact_keeps_its_object_and_not_the_chat_around_it(said: str, fact: str) -> None:
    assert fact in facts(said)


def test_a_list_or_a_place_with_its_state_is_not_cut() -> None:
    assert "Mia likes cats, dogs and birds" in facts("I like cats, dogs and birds")
    assert "Mia lives in Portland, Oregon" in facts("I live in Portland, Oregon")


@pytest.mark.parametrize(
    ("said", "plan"),
    [
        ("I booked a vet appointment tomorrow at 9am.", "Mia booked a vet appointment tomorrow"),
        ("Jake and I are going to have dinner next Friday.", "Mia and Jake are going to have dinner next Friday"),
        ("I went to the gym and tomorrow I have a dentist appointment.", "Mia has a dentist appointment tomorrow"),
        ("I fly to Osaka next Monday", "Mia flies to Osaka next Monday"),
        # thanks said first hid the plan (helper)
        ("Thank you, I'm flying to Osaka next Monday.", "Mia is flying to Osaka next Monday"),
        ("Thanks, I fly to Osaka next Monday", "Mia flies to Osaka next Monday"),
        ("Thank you for the tips, I'm flying to Osaka next Monday.", "Mia is flying to Osaka next Monday"),
        ("Thank you so much, I'm flying to Osaka next Monday.", "Mia is flying to Osaka next Monday"),
        ("Thanks a lot, I fly to Osaka next Monday", "Mia flies to Osaka next Monday"),
        # need ends in -ed but is no past: it read "Mia need to"
        ("I need to finish the report by Friday", "Mia needs to finish the report"),
        ("I need to call my mom tonight", "Mia needs to call Mia's mom tonight"),
        ("I feed the cat at 7 tomorrow", "Mia feeds the cat"),
    ],
)
def test_a_plan_reads_as_english(said: str, plan: str) -> None:
    assert any(fact.startswith(plan) for fact in facts(said)), facts(said)


def test_a_plan_at_a_clock_time_is_dated_as_any_other() -> None:
    # the digits of 9am are a clock time, not a calendar day: read later, "tomorrow" must say which day
    assert "Mia booked a vet appointment tomorrow at 9am (2025-02-16 09:00)" in facts(
        "I booked a vet appointment tomorrow at 9am."
    )
