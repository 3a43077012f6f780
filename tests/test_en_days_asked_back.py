"""A day asked of in a question that tells nothing done is most often one to come (see test_en_days_asked), but
not one asked of as what came of it (are you still sore from Saturday?, better since Monday?), of how it went
(Good weekend?, Busy Saturday?, Wasn't Friday amazing?), beside a question of the one gone (How about Saturday?
Did you have fun?, When was the party? Friday?), nor a meeting one was glad of (so good to see you Friday!):
those, said on a Sunday or a Monday, read the one gone as they did before asking was read ahead."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.text.times import find_time_phrases

SUNDAY = datetime(2024, 11, 10, 20, 0)
MONDAY = datetime(2024, 11, 4, 10, 0)


def days(text: str, now: datetime) -> list[str]:
    return [f"{span.start:%m-%d}..{span.end - timedelta(seconds=1):%m-%d}" for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        ("are you still sore from Saturday?", SUNDAY, "11-09..11-09"),
        ("is your back better since Monday?", SUNDAY, "11-04..11-04"),
        ("Hey how's your ankle after Saturday?", SUNDAY, "11-09..11-09"),
        ("is that the pic from Saturday?", SUNDAY, "11-09..11-09"),
        ("Wasn't Friday amazing?", SUNDAY, "11-08..11-08"),
        ("Busy Saturday?", SUNDAY, "11-09..11-09"),
        ("Good weekend?", MONDAY, "11-02..11-03"),
        ("anything fun at the weekend?", MONDAY, "11-02..11-03"),
        ("How about Saturday? Did you have fun?", SUNDAY, "11-09..11-09"),
        ("What about Saturday, did you go?", SUNDAY, "11-09..11-09"),
        ("Friday?? what happened", SUNDAY, "11-08..11-08"),
        ("Oh the party? Saturday? How was it?", SUNDAY, "11-09..11-09"),
        ("When was the party? Friday?", SUNDAY, "11-08..11-08"),
        ("so good to see you Friday!", SUNDAY, "11-08..11-08"),
        # asked ahead, as in test_en_days_asked
        ("When's the party? Friday?", SUNDAY, "11-15..11-15"),
        ("How about Saturday? I'm free", SUNDAY, "11-16..11-16"),
        ("are you free from Friday?", SUNDAY, "11-15..11-15"),
        ("see you Friday, how was your day?", SUNDAY, "11-15..11-15"),
        ("free at the weekend?", MONDAY, "11-09..11-10"),
    ],
)
def test_a_day_asked_of_as_gone_stays_gone(text: str, now: datetime, read: str) -> None:
    assert days(text, now) == [read]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # about leads to no meeting (let's not talk about Friday), and a bare day asked before a telling of it
        ("let's not talk about Friday", "11-08..11-08"),
        ("let's just forget about Friday", "11-08..11-08"),
        ("Saturday morning? I was asleep lol", "11-09..11-09"),
        # ahead, as before
        ("Let's catch up Friday!", "11-15..11-15"),
        ("Friday night? I'm going to a concert", "11-15..11-15"),
        ("How about Friday?", "11-15..11-15"),
    ],
)
def test_a_day_talked_about_or_told_after_is_gone(text: str, read: str) -> None:
    assert days(text, SUNDAY) == [read]
