"""English weekdays said on a given day, read by one rule in the Monday–Sunday weeks that "next week" and
"last week" already mean:

* ``next Friday`` is the Friday of next week (said on a Monday, ``next Wednesday`` is nine days away, not
  two), ``the week after next`` / ``the weekend after next`` / ``Friday after next`` a week later still;
* ``this Friday``, ``on Friday`` and a bare ``the weekend`` are this week's; one already over, in a clause
  that says it is still to come (will, going to, I'm seeing…), is the coming one, as 我周一要去体检 is;
* ``the coming Friday`` is the first after today; ``last Friday`` the latest before today (as before);
* ``in two weeks`` is the Monday–Sunday week two weeks ahead, as ``two weeks ago`` is the one two back.

Each is dated against the message's own time in the configured zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.text.times import find_time_phrases

MONDAY = datetime(2024, 11, 4, 20, 0)
WEDNESDAY = datetime(2024, 11, 6, 20, 0)
SATURDAY = datetime(2024, 11, 9, 20, 0)


def days(text: str, now: datetime) -> list[str]:
    return [f"{span.start:%m-%d}..{span.end - timedelta(seconds=1):%m-%d}" for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        ("I have a test next Wednesday", MONDAY, "11-13..11-13"),
        # a day something was moved to is to come, whatever tense the move is told in
        ("The meeting was moved to Monday", WEDNESDAY, "11-11..11-11"),
        ("my dentist appointment got moved to Monday", WEDNESDAY, "11-11..11-11"),
        ("I waited until Monday", WEDNESDAY, "11-04..11-04"),
        ("dinner next Friday", MONDAY, "11-15..11-15"),
        ("dinner next Friday", SATURDAY, "11-15..11-15"),
        ("next Monday", SATURDAY, "11-11..11-11"),
        ("next Sunday", MONDAY, "11-17..11-17"),
        ("the party is this Friday", MONDAY, "11-08..11-08"),
        ("I'm seeing the dentist on Friday", MONDAY, "11-08..11-08"),
        ("I'm seeing the dentist on Friday", SATURDAY, "11-15..11-15"),
        ("I'll call mom on Monday", WEDNESDAY, "11-11..11-11"),
        ("we're going out this Friday", SATURDAY, "11-15..11-15"),
        ("I went hiking on Monday", WEDNESDAY, "11-04..11-04"),
        ("I was going to call on Monday", WEDNESDAY, "11-04..11-04"),
        ("the coming Friday", SATURDAY, "11-15..11-15"),
        ("this coming Wednesday", MONDAY, "11-06..11-06"),
        ("last Friday was fun", MONDAY, "11-01..11-01"),
        ("last Friday was fun", SATURDAY, "11-08..11-08"),
        ("I'm moving in two weeks", WEDNESDAY, "11-18..11-24"),
        ("we're going camping the weekend after next", MONDAY, "11-23..11-24"),
        ("we're going camping next weekend", MONDAY, "11-16..11-17"),
        ("I'm going camping over the weekend", MONDAY, "11-09..11-10"),
        ("what did you do over the weekend", MONDAY, "11-02..11-03"),
        ("the week after next I fly to Rome", WEDNESDAY, "11-18..11-24"),
        ("Friday after next", MONDAY, "11-22..11-22"),
        # a schedule said in the present: the coming one
        ("They did bloodwork, results come back Monday.", WEDNESDAY, "11-11..11-11"),
        ("the essay is due Monday", WEDNESDAY, "11-11..11-11"),
        ("I saw him Monday", WEDNESDAY, "11-04..11-04"),
        # an English word in a Chinese line reads as the Chinese 周末 would (times_zh's rules)
        ("这个weekend一起去爬山吧", MONDAY, "11-09..11-10"),
        ("weekend有空吗", MONDAY, "11-09..11-10"),
        ("上个weekend去哪了", MONDAY, "11-02..11-03"),
        ("weekend去爬山了", MONDAY, "11-02..11-03"),  # 了: it happened, as 周末去爬山了 reads
        ("上上个weekend去哪了", MONDAY, "10-26..10-27"),
        ("下下个weekend见", MONDAY, "11-23..11-24"),
        # and the Chinese word itself: free then is a time to come (周末有空吗 on a Monday)
        ("周末有空吗", MONDAY, "11-09..11-10"),
        ("周末去爬山了", MONDAY, "11-02..11-03"),
    ],
)
def test_english_weekdays_follow_one_rule(text: str, now: datetime, read: str) -> None:
    assert days(text, now) == [read]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("I have work Monday", "11-11..11-11"),
        ("I've got practice on Tuesday", "11-12..11-12"),
        ("I have class Friday", "11-15..11-15"),
        # told done, or no round one goes to: the one gone, as before
        ("I had work Monday", "11-04..11-04"),
        ("I have the photos from Friday", "11-08..11-08"),
    ],
)
def test_a_round_one_has_on_a_day_gone_is_next_weeks(text: str, read: str) -> None:
    """I have work Monday, said on a Saturday, read the Monday five days gone: what I have a test on Monday
    reads, work, school, class or practice one has reads too."""
    assert days(text, SATURDAY) == [read]


SUNDAY = datetime(2024, 11, 10, 21, 0)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("my interview is on Monday", "11-11..11-11"),
        ("the party is Friday", "11-15..11-15"),
        ("my birthday's on Thursday", "11-14..11-14"),
        ("I'm off Monday", "11-11..11-11"),
        ("I'm off work on Tuesday", "11-12..11-12"),
        # told in the past: the one gone, as before
        ("the game was Monday", "11-04..11-04"),
        ("I was off Monday", "11-04..11-04"),
        ("Monday's meeting was rough", "11-04..11-04"),
    ],
)
def test_what_is_on_a_day_gone_is_next_weeks(text: str, read: str) -> None:
    """my interview is on Monday, said on a Sunday, read the Monday six days gone, as did I'm off Monday: what
    is on a day, or a day one is off, told in the present, is still to be, as Monday is my boss's birthday is."""
    assert days(text, SUNDAY) == [read]


def test_next_wednesday_said_on_a_monday_in_the_zone_is_next_weeks(tmp_path: Path) -> None:
    # Sunday 20:00 UTC is Monday 04:00 in Shanghai: the day it was said is the zone's
    said = datetime(2024, 11, 3, 20, 0, tzinfo=UTC)
    config = Config(worker={"enabled": False}, recall={"reinforce": False}, timezone="Asia/Shanghai")
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: MONDAY) as memory:
        memory.add(
            [{"text": "I have a driving test next Wednesday, so nervous", "time": said}],
            agent="Ava",
            person="Sam",
            index=True,
        )
        memory.flush(agent="Ava", person="Sam")
        events = memory.memories(agent="Ava", person="Sam", kinds=["event"])
    assert [event.text for event in events] == [
        "Sam said: I have a driving test next Wednesday (2024-11-13), so nervous."
    ]
    assert events[0].time == datetime(2024, 11, 13)


@pytest.mark.parametrize(
    "text",
    [
        "The funny thing is Monday I went to the doctor",
        "the thing is Monday we had a fight",
        "the problem is Monday I forgot my keys",
        "what's crazy is Monday I ran into my ex",
    ],
)
def test_an_is_that_leads_to_a_telling_is_no_day_ahead(text: str) -> None:
    """What is on a day is ahead (my interview is on Monday), but an is that leads to a telling (the funny thing
    is Monday I went to the doctor), said on a Tuesday, is of the Monday gone."""
    assert [span.start for span in find_time_phrases(text, datetime(2024, 11, 5, 19))] == [datetime(2024, 11, 4)]


@pytest.mark.parametrize(
    ("text", "now", "read"),
    [
        ("Monday can't come soon enough", WEDNESDAY, "11-11..11-11"),
        ("Friday can't come soon enough", SATURDAY, "11-15..11-15"),
        ("Friday cannot get here fast enough", SUNDAY, "11-15..11-15"),
        ("counting down to Monday", WEDNESDAY, "11-11..11-11"),
        ("I'm counting down the days till Monday", WEDNESDAY, "11-11..11-11"),
        ("the countdown to Friday is on", SATURDAY, "11-15..11-15"),
        ("can not wait for Monday", WEDNESDAY, "11-11..11-11"),
        ("the weekend can't come soon enough", WEDNESDAY, "11-09..11-10"),
        # still ahead this week: as before
        ("Friday can't come soon enough", WEDNESDAY, "11-08..11-08"),
        # a countdown told done, or no wish at all: the one gone, as before
        ("we counted down to Monday", WEDNESDAY, "11-04..11-04"),
        ("Monday came too soon", WEDNESDAY, "11-04..11-04"),
        ("I couldn't wait for Monday to end", WEDNESDAY, "11-04..11-04"),
        ("The countdown on Saturday was amazing", WEDNESDAY, "11-02..11-02"),  # a countdown held, not awaited
    ],
)
def test_a_day_wished_to_come_is_the_coming_one(text: str, now: datetime, read: str) -> None:
    """Monday can't come soon enough, said on a Wednesday, read the Monday two days gone: a wish for a day to
    arrive (can't wait for, can't come soon enough, counting down to) is of the one ahead."""
    assert days(text, now) == [read]
