"""Day words said after midnight, before the speaker's day turns (04:00): a companion bot's users chat late, and
at 00:40 明天早上九点面试，好紧张 or "I have an interview tomorrow at 9am" was dated a day late, the calendar's
tomorrow; 今天好累 said then was dated the day about to begin, and 今晚 the evening after it."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder
from huiyi.text.day_turn import DAY_TURNS_AT
from huiyi.text.times import find_time_phrases, query_time_range
from rule_lines import extract_private

LATE = datetime(2024, 11, 3, 0, 40)  # a Sunday's small hours: the speaker's day is still Saturday the 2nd
TURNED = datetime(2024, 11, 3, DAY_TURNS_AT, 0)


def read(text: str, now: datetime = LATE) -> list[tuple[str, str, str]]:
    return [(s.phrase, f"{s.start:%m-%d %H:%M}", f"{s.end:%m-%d %H:%M}") for s in find_time_phrases(text, now)]


def starts(text: str, now: datetime = LATE) -> list[str]:
    return [start for _, start, _ in read(text, now)]


@pytest.mark.parametrize(
    ("said", "late", "turned"),
    [
        ("明天早上九点面试，好紧张", ["11-03 09:00"], ["11-04 09:00"]),
        ("明早九点开会", ["11-03 09:00"], ["11-04 09:00"]),
        ("明天三点开会，早点睡", ["11-03 15:00"], ["11-04 15:00"]),  # the afternoon's, as said by day
        ("明晚去看电影", ["11-03 18:00"], ["11-04 18:00"]),
        ("明天要交报告", ["11-03 00:00"], ["11-04 00:00"]),
        ("后天去北京", ["11-04 00:00"], ["11-05 00:00"]),
        # a clock put on tomorrow from elsewhere in the message goes with it
        ("明天的会定了，时间还是九点", ["11-03 00:00", "11-03 09:00"], ["11-04 00:00", "11-04 09:00"]),
        ("明天去爬山，早上八点集合", ["11-03 00:00", "11-03 08:00"], ["11-04 00:00", "11-04 08:00"]),
        ("I have an interview tomorrow at 9am", ["11-03 09:00"], ["11-04 09:00"]),
        ("I have an interview at 9am tomorrow", ["11-03 09:00", "11-03 00:00"], ["11-04 09:00", "11-04 00:00"]),
        ("tomorrow morning I have a test", ["11-03 06:00"], ["11-04 06:00"]),
        ("I'll see you at noon tomorrow", ["11-03 12:00", "11-03 00:00"], ["11-04 12:00", "11-04 00:00"]),
        ("The day after tomorrow I fly to Rome", ["11-04 00:00"], ["11-05 00:00"]),
    ],
)
def test_tomorrow_said_before_the_day_turns_is_the_day_now_begun(said: str, late: list[str], turned: list[str]) -> None:
    assert starts(said) == late
    assert starts(said, TURNED) == turned
    assert starts(said, datetime(2024, 11, 2, 23, 50)) == late  # ten minutes before midnight: as before


@pytest.mark.parametrize(
    "said",
    [
        "今天好累",
        "今天被老板骂了",
        "今天早上起晚了",
        "Today was rough",
        "this morning I overslept",
        "今天下午三点开了会",
    ],
)
def test_today_told_before_the_day_turns_is_the_day_just_ended(said: str) -> None:
    assert [start[:5] for start in starts(said)] == ["11-02"]
    assert [start[:5] for start in starts(said, TURNED)] == ["11-03"]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        # a clock to come later in the day cannot be in the past
        ("今天下午三点开会", ["11-03 15:00"]),
        ("今天有事，三点见", ["11-03 00:00", "11-03 15:00"]),
        ("today at 3pm I have a meeting", ["11-03 15:00"]),
        # a clause looking ahead
        ("今天要去面试", ["11-03 00:00"]),
        ("I have work today", ["11-03 00:00"]),
        # already the night going on
        ("今天凌晨两点才睡", ["11-03 02:00"]),
    ],
)
def test_today_to_come_before_the_day_turns_keeps_the_calendars_day(said: str, reading: list[str]) -> None:
    assert starts(said) == reading


def test_tonight_before_the_day_turns_is_the_night_going_on() -> None:
    assert read("今晚又失眠了") == [("今晚", "11-02 18:00", "11-03 04:00")]
    assert read("tonight I can't sleep") == [("tonight", "11-02 18:00", "11-03 04:00")]
    assert read("this evening was fun") == [("this evening", "11-02 18:00", "11-03 04:00")]
    assert read("今晚又失眠了", TURNED) == [("今晚", "11-03 18:00", "11-04 00:00")]
    # an hour of the evening to come, and one of the night under way, stay
    assert starts("今晚八点开会") == ["11-03 20:00"]
    assert starts("今晚两点才睡", datetime(2024, 11, 3, 3, 0)) == ["11-03 02:00"]


def test_yesterday_and_a_clock_alone_read_as_before() -> None:
    assert read("昨天去了公园") == [("昨天", "11-02 00:00", "11-03 00:00")]
    assert read("yesterday I went to the park") == [("yesterday", "11-02 00:00", "11-03 00:00")]
    assert starts("九点开会") == ["11-03 09:00"]
    assert starts("earlier today I went out") == ["11-02 00:00"]


def test_a_plan_said_after_midnight_is_stored_for_the_day_now_begun() -> None:
    [event] = extract_private(
        Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木"), ("明天早上九点面试，好紧张",), LATE
    ).events
    assert (event.time, event.about) == (datetime(2024, 11, 3, 9), "2024-11-03 09:00")
    assert "（2024-11-03 09:00）" in event.text
    english = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
    said = extract_private(english, ("I have an interview tomorrow at 9am",), LATE, "en")
    assert [fact.about for fact in said.facts if fact.keyword == "plan"] == ["2024-11-03 09:00"]
    [told] = extract_private(english, ("Today was rough, my boss yelled at me",), LATE, "en").events
    assert told.about == "2024-11-02"


def test_a_question_asked_after_midnight_reads_its_time_words_alike(tmp_path: Path) -> None:
    asked = datetime(2024, 11, 3, 0, 50)
    for question in ("我明天几点面试", "When is my interview tomorrow?"):
        span = query_time_range(question, asked)
        assert span is not None and (span.start, span.end) == (datetime(2024, 11, 3), datetime(2024, 11, 4))
    # today asked of is the day to come, unless the question asks what was done
    for question, day in (
        ("我今天几点面试", 3),
        ("今天有什么安排", 3),
        ("今天我们聊了什么", 2),
        ("what did I do today?", 2),
    ):
        span = query_time_range(question, asked)
        assert span is not None and span.start == datetime(2024, 11, day), question
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: asked) as memory:
        lines = [
            ("m1", datetime(2024, 11, 2, 21, 0), "明天早上九点面试，好紧张"),
            ("m2", datetime(2024, 10, 20, 21, 0), "明天下午去面试"),
        ]
        memory.add(
            [{"id": i, "text": text, "time": when} for i, when, text in lines], agent="bot", person="u1", index=True
        )
        found = memory.recall("我明天几点面试", agent="bot", person="u1", explain=True, limit=5)
    assert found.info["time_span"][:2] == ["2024-11-03T00:00:00", "2024-11-04T00:00:00"]
    timed = {source for hit in found.hits if "time" in found.info["bonuses"].get(hit.id, {}) for source in hit.sources}
    assert timed == {"m1"}  # the interview of the 3rd, not the one asked of a fortnight before


@pytest.mark.parametrize("minutes", [0, 30, 119])  # 04:00, 04:30, 05:59: the day has turned
def test_tonights_small_hour_said_after_the_day_turns_is_the_night_ahead(minutes: int) -> None:
    # 今晚两点的飞机 at 05:00 was the 02:00 three hours gone: times_zh kept its own cut-off at six, while 今晚 alone
    # read the evening ahead from DAY_TURNS_AT
    turned = datetime(2024, 11, 3, DAY_TURNS_AT) + timedelta(minutes=minutes)
    assert starts("今晚两点的飞机", turned) == ["11-04 02:00"]
    assert starts("昨晚两点才睡", turned) == ["11-03 02:00"]  # yesterday's night: the one just gone
    assert starts("今晚两点的飞机", datetime(2024, 11, 3, 3, 30)) == ["11-03 02:00"]  # before: the night going on
