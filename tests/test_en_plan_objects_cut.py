"""A plan's object without the time phrase said in it, nor the word that only led to that phrase: "I need to
finish the report by Friday" stored the plan "need to finish the report by", and "I'm working on Saturday"
"is working on". A particle the time takes none after stays (sign in tomorrow, stop by tomorrow)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

SUNDAY = datetime(2024, 11, 10, 17, 0)


def plans(text: str) -> list[str]:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), SUNDAY, "en")
    return [fact.object for fact in drafts.facts if fact.predicate == "plans"]


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I need to finish the report by Friday", "needs to finish the report"),
        ("I'm meeting Anna for lunch on Tuesday", "is meeting Anna for lunch"),
        ("I'm staying home until Friday", "is staying home"),
        ("I'm working on Saturday", "is working"),
        ("I'm going to the gym tomorrow and on Friday", "is going to the gym"),
        ("I'm going to pick him up on Friday", "is going to pick him up"),
        # the word is the verb's, not the time's: it stays
        ("I'm going to sign in tomorrow", "is going to sign in"),
        ("I'll stop by tomorrow", "will stop by"),
        ("I'll pick up my sister at 5 tomorrow", "will pick up Mumu's sister"),
    ],
)
def test_a_plan_keeps_no_word_that_led_to_its_time(text: str, planned: str) -> None:
    assert plans(text) == [planned]


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        # no weekday is led to by in, at or over: the word is the verb's (it stayed before the cut)
        ("I'm moving in Saturday", "is moving in"),
        ("I'll come over Friday", "will come over"),
        ("I'm sleeping in Saturday", "is sleeping in"),
        ("I'll be around Friday", "will be around"),
        ("I'll be done around Friday", "will be done"),
        # led to by on: the on goes, the particle stays
        ("I'm moving in on Saturday", "is moving in"),
    ],
)
def test_a_particle_before_a_weekday_stays(text: str, planned: str) -> None:
    assert plans(text) == [planned]
