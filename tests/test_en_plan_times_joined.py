"""What a plan's time takes with it when cut from the plan's object: a possessive day (at Friday's standup stored
"at 's standup"), the range it opens (from Monday to Friday stored "is working to"), a second day joined to it
(on Saturday and Sunday, said on a Sunday, stored "visit mom and Sunday"), and a trailing aside or a clause of
its own after it (has work Monday though, is off Monday so let's hang)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

SUNDAY = datetime(2024, 11, 10, 17, 0)
WEDNESDAY = datetime(2024, 11, 13, 10, 0)


def plans(text: str, said: datetime = WEDNESDAY) -> list[str]:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), said, "en")
    return [fact.object for fact in drafts.facts if fact.predicate == "plans"]


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I'm presenting at Friday's standup", "is presenting at the standup"),
        ("I have Friday's meeting", "has the meeting"),
        ("I'm presenting at next Friday's standup", "is presenting at the standup"),
    ],
)
def test_a_possessive_day_leaves_its_thing(text: str, planned: str) -> None:
    assert plans(text) == [planned]


@pytest.mark.parametrize(
    ("text", "said", "planned"),
    [
        ("I'm working from Monday to Friday", SUNDAY, "is working"),
        ("I'm working from Monday to Friday", WEDNESDAY, "is working"),
        ("I'm off Monday through Wednesday", SUNDAY, "is off"),
        ("I'm going to visit mom on Saturday and Sunday", SUNDAY, "is going to visit mom"),
        ("I'm going to visit mom on Saturday or Sunday", SUNDAY, "is going to visit mom"),
        ("I'm going to visit mom on Saturday and Sunday", WEDNESDAY, "is going to visit mom"),
    ],
)
def test_a_range_or_a_second_day_goes_with_the_time(text: str, said: datetime, planned: str) -> None:
    assert plans(text, said) == [planned]


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I have work Monday though", "has work"),
        ("I have work Monday anyway lol", "has work"),
        ("I'm off Monday haha", "is off"),
        ("I'm off Monday so let's hang", "is off"),
        ("I'm off Monday so i can sleep in", "is off"),
        ("I'm off Monday because my boss is away", "is off"),
    ],
)
def test_no_aside_nor_clause_of_its_own_is_planned(text: str, planned: str) -> None:
    assert plans(text, SUNDAY) == [planned]


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I'm working from home on Friday", "is working from home"),
        ("I'll stop by Friday", "will stop by"),
        ("I'm seeing Anna and Ben on Friday", "is seeing Anna and Ben"),
        ("I'm going to the gym tomorrow and on Friday", "is going to the gym"),
        ("I'm flying to Osaka on Friday to see Ken", "is flying to Osaka to see Ken"),
        ("I'm driving from Boston to Chicago on Friday", "is driving from Boston to Chicago"),
    ],
)
def test_what_is_planned_stays(text: str, planned: str) -> None:
    assert plans(text) == [planned]
