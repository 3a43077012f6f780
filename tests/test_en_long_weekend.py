"""A long or three-day weekend is Saturday through Monday (a four-day one Friday through Monday): "we're going
camping this long weekend" was dated Saturday–Sunday only, as a plain weekend is. A long weekend said as a length
(a long weekend away) is still no date, and a plain weekend is still two days."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

WEDNESDAY = datetime(2024, 11, 6, 20, 0)


def days(text: str, now: datetime = WEDNESDAY) -> list[str]:
    return [f"{span.start:%m-%d}..{span.end - timedelta(seconds=1):%m-%d}" for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("we're going camping this long weekend", ["11-09..11-11"]),
        ("we're going camping over the 3-day weekend", ["11-09..11-11"]),
        ("I'm planning a trip for the three day weekend", ["11-09..11-11"]),
        ("we went camping over the long weekend", ["11-02..11-04"]),
        ("it's a four-day weekend for us", ["11-08..11-11"]),
        # not a long one, or no one weekend: as before
        ("I'm going hiking this weekend", ["11-09..11-10"]),
        ("we're going away for a long weekend", []),
        ("nothing beats a three day weekend", []),
    ],
)
def test_a_long_weekend_runs_through_monday(text: str, read: list[str]) -> None:
    assert days(text) == read


def test_a_plan_for_the_long_weekend_is_dated_through_monday() -> None:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), ("I'm going camping this long weekend",), WEDNESDAY, "en")
    (plan,) = [fact for fact in drafts.facts if fact.predicate == "plans"]
    assert (plan.object, plan.about) == ("is going camping", "2024-11-09～2024-11-11")
    assert plan.description == "Mumu is going camping this long weekend (2024-11-09～2024-11-11)"
