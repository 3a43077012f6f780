"""Weeks and weekdays said after midnight, before the speaker's day turns: at 00:30 on a Monday (the speaker's
Sunday night) 下周要去出差 or "I have a trip next week" was dated the week after the one a few hours away, and
周一去出差了 the Monday now begun, a day the speaker has still ahead; a plan for the day now begun (明天要去出差 at
00:30) was stored as none, its day taken for one already running."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from huiyi.text.day_turn import DAY_TURNS_AT
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

LATE = datetime(2025, 9, 15, 0, 30)  # a Monday's small hours: the speaker's day is still Sunday the 14th
TURNED = datetime(2025, 9, 15, DAY_TURNS_AT, 0)
SUNDAY = datetime(2025, 9, 14, 23, 50)  # ten minutes before midnight: how the speaker's day reads them


def read(text: str, now: datetime = LATE) -> list[str]:
    return [f"{s.phrase} {s.start:%m-%d}~{s.end:%m-%d}" for s in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "late", "turned"),
    [
        ("下周要去出差", ["下周 09-15~09-22"], ["下周 09-22~09-29"]),
        ("下个星期要搬家", ["下个星期 09-15~09-22"], ["下个星期 09-22~09-29"]),
        ("下周一要开会", ["下周一 09-15~09-16"], ["下周一 09-22~09-23"]),
        ("下周末去爬山", ["下周末 09-20~09-22"], ["下周末 09-27~09-29"]),
        ("下下周去北京", ["下下周 09-22~09-29"], ["下下周 09-29~10-06"]),
        ("下周一到周三出差", ["下周一 09-15~09-16", "周三 09-17~09-18"], ["下周一 09-22~09-23", "周三 09-24~09-25"]),
        ("I have a trip next week", ["next week 09-15~09-22"], ["next week 09-22~09-29"]),
        ("next Monday I start", ["next Monday 09-15~09-16"], ["next Monday 09-22~09-23"]),
        ("the week after next", ["the week after next 09-22~09-29"], ["the week after next 09-29~10-06"]),
        # a weekday that is the calendar's today, told gone: the one a week before
        ("周一去出差了", ["周一 09-08~09-09"], ["周一 09-15~09-16"]),
        ("周一那天好累", ["周一 09-08~09-09"], ["周一 09-15~09-16"]),
        ("I went hiking on Monday", ["Monday 09-08~09-09"], ["Monday 09-15~09-16"]),
        # this week told or felt: the week just ended
        ("这周好累", ["这周 09-08~09-15"], ["这周 09-15~09-22"]),
        ("这周末过得很开心", ["这周末 09-13~09-15"], ["这周末 09-20~09-22"]),
        ("this week was rough", ["this week 09-08~09-15"], ["this week 09-15~09-22"]),
    ],
)
def test_a_week_said_before_the_day_turns_is_the_speakers(said: str, late: list[str], turned: list[str]) -> None:
    assert read(said) == late
    assert read(said, TURNED) == turned


@pytest.mark.parametrize(
    ("said", "late"),
    [
        # the day a few hours away, already read so
        ("周一要去出差", ["周一 09-15~09-16"]),
        ("周一要出差了", ["周一 09-15~09-16"]),
        ("周一的会开完了", ["周一 09-15~09-16"]),  # a thing of its day, as by day
        ("I'm busy Monday", ["Monday 09-15~09-16"]),
        ("I have a meeting this Monday", ["this Monday 09-15~09-16"]),
        ("这周要交报告", ["这周 09-15~09-22"]),  # looks ahead: the week now begun
        ("I'm busy this week", ["this week 09-15~09-22"]),  # English present looks ahead as often
        # last week is left as the calendar has it, as yesterday is
        ("上周去爬山了", ["上周 09-08~09-15"]),
        ("last weekend was fun", ["last weekend 09-13~09-15"]),
        ("周日去爬山了", ["周日 09-14~09-15"]),
        ("下周出差，周三回来", ["下周 09-15~09-22", "周三 09-17~09-18"]),
    ],
)
def test_near_misses_read_as_before(said: str, late: list[str]) -> None:
    assert read(said) == late


def test_only_a_monday_moves_next_week() -> None:
    tuesday = datetime(2025, 9, 16, 0, 30)
    assert read("下周要去出差", tuesday) == read("下周要去出差", datetime(2025, 9, 16, 12)) == ["下周 09-22~09-29"]
    assert read("周二去面试了", tuesday) == ["周二 09-09~09-10"]  # the calendar's today told gone, any day
    assert read("下周要去出差", SUNDAY) == read("下周要去出差")  # as the speaker's Sunday reads it


def test_a_plan_for_the_day_now_begun_is_stored() -> None:
    scope = Scope.of_person("bot", "木木")
    for said, shown in [
        ("下周要去出差", "木木下周（2025-09-15～2025-09-21）要去出差"),
        ("明天要去出差", "木木明天（2025-09-15）要去出差"),
        ("我周一要去出差", "木木周一（2025-09-15）要去出差"),
    ]:
        extraction = extract_private(scope, (said,), LATE)
        assert [fact.description for fact in extraction.facts] == [shown]
        assert [fact.time for fact in extraction.facts] == [datetime(2025, 9, 15)]
    [told] = extract_private(scope, ("周一去出差了",), LATE).events
    assert told.text == "木木说：周一（2025-09-08）去出差了。"
    assert extract_private(scope, ("今天好累",), LATE).facts == []
