"""A bare weekday or weekend asked of or met at is one to come: "Are we still on for Friday?", "see you
Friday", "are you free Friday?" said on a Sunday were the Friday two days gone, and "see you at the weekend!"
said on a Monday the weekend just over. One told done (we went out Friday, how was Friday?) stays the one gone."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

SUNDAY = datetime(2024, 11, 10, 20, 0)
MONDAY = datetime(2024, 11, 4, 10, 0)
WEDNESDAY = datetime(2024, 11, 6, 9, 0)


def days(text: str, now: datetime) -> list[str]:
    return [f"{span.start:%m-%d}..{span.end - timedelta(seconds=1):%m-%d}" for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        ("Are we still on for Friday?", SUNDAY, "11-15..11-15"),
        ("see you Friday", SUNDAY, "11-15..11-15"),
        ("are you free Friday?", SUNDAY, "11-15..11-15"),
        ("Monday works for you?", WEDNESDAY, "11-11..11-11"),
        ("what should we do Saturday?", SUNDAY, "11-16..11-16"),
        ("see you at the weekend!", MONDAY, "11-09..11-10"),
        ("are you free over the weekend?", MONDAY, "11-09..11-10"),
        # told done, or recalled: the one gone, as before
        ("we went out Friday", SUNDAY, "11-08..11-08"),
        ("How was Friday?", SUNDAY, "11-08..11-08"),
        ("Did you go out Friday?", SUNDAY, "11-08..11-08"),
        ("Remember Friday?", SUNDAY, "11-08..11-08"),
        ("should we have gone Saturday?", SUNDAY, "11-09..11-09"),
        ("I ate gluten-free pizza Friday", SUNDAY, "11-08..11-08"),
        ("did you have fun over the weekend?", MONDAY, "11-02..11-03"),
        ("Anything fun over the weekend?", MONDAY, "11-02..11-03"),
    ],
)
def test_a_day_asked_of_is_to_come(text: str, now: datetime, read: str) -> None:
    assert days(text, now) == [read]


def test_the_event_of_a_day_asked_of_is_dated_ahead() -> None:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), ("Are we still on for Friday?",), SUNDAY, "en")
    assert [event.about for event in drafts.events] == ["2024-11-15"]
