"""What has been so since a day began on the one gone, whatever tense it is told in: "I'm off since Monday", said
on a Tuesday, read next Monday once I'm off came to say a time to come, and "I'm off work since Friday", said on a
Thursday, tomorrow. A since that gives a reason (since Monday is a holiday) is no such day."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

TUESDAY = datetime(2024, 11, 5, 19, 0)
THURSDAY = datetime(2024, 11, 7, 9, 0)


def days(text: str, now: datetime) -> list[str]:
    return [f"{span.start:%m-%d}..{span.end - timedelta(seconds=1):%m-%d}" for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        ("I'm off since Monday", TUESDAY, "11-04..11-04"),
        ("I'm off work since Monday", TUESDAY, "11-04..11-04"),
        ("I'm feeling much better since Monday", TUESDAY, "11-04..11-04"),
        ("I'm off work since Friday", THURSDAY, "11-01..11-01"),
        # a reason, or a time to come without since: as before
        ("since Monday is a holiday, let's go hiking", TUESDAY, "11-11..11-11"),
        ("I'm off Monday", TUESDAY, "11-11..11-11"),
        ("I'm off work on Friday", THURSDAY, "11-08..11-08"),
    ],
)
def test_a_day_since_is_gone(text: str, now: datetime, read: str) -> None:
    assert days(text, now) == [read]


def test_being_off_since_a_day_is_no_plan() -> None:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), ("I'm off work since Monday",), TUESDAY, "en")
    assert [fact.object for fact in drafts.facts if fact.predicate == "plans"] == []
