"""A bare clock of a plan or a working day: 我九点上线 said at 11:15 read 09:00, gone two hours, and 我九点上班到五点
said at 15:00 ran from 21:00 to 05:00. A clock told as done, a meeting agreed on and a night said read as before."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.text.times import find_time_phrases

MORNING = datetime(2025, 3, 5, 11, 15)  # a Wednesday
AFTERNOON = datetime(2025, 3, 5, 15, 0)


def read(text: str, now: datetime) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%m-%d %H:%M}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我九点上线", MORNING, [("九点", "03-05 21:00")]),
        ("我八点到", MORNING, [("八点", "03-05 20:00")]),
        ("我七点出门", MORNING, [("七点", "03-05 19:00")]),
        ("我三点过去", datetime(2025, 3, 5, 8), [("三点", "03-05 15:00")]),
        # said to come (要), or a stretch to come until it: tonight's, not tomorrow morning's
        ("我九点要上线", MORNING, [("九点", "03-05 21:00")]),
        ("我要加班到九点", MORNING, [("九点", "03-05 21:00")]),
        # unchanged: the morning's still ahead, told as done, a 是…的, 才, a meeting agreed on that is gone
        ("我九点上线", datetime(2025, 3, 5, 8), [("九点", "03-05 09:00")]),
        ("我九点就到了", MORNING, [("九点", "03-05 09:00")]),
        ("我九点到家了", MORNING, [("九点", "03-05 09:00")]),
        ("我九点起的", MORNING, [("九点", "03-05 09:00")]),
        ("我九点才到", MORNING, [("九点", "03-05 09:00")]),
        ("说好三点见", datetime(2025, 3, 5, 20, 30), [("三点", "03-05 15:00")]),
        ("我九点上线", datetime(2025, 3, 5, 22), [("九点", "03-05 21:00")]),
    ],
)
def test_a_bare_plan_whose_morning_hour_is_gone_is_the_evenings(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我九点上班到五点", AFTERNOON, [("九点", "03-05 09:00"), ("五点", "03-05 17:00")]),
        ("九点到五点", AFTERNOON, [("九点", "03-05 09:00"), ("五点", "03-05 17:00")]),
        ("营业时间十点到两点", datetime(2025, 3, 5, 22), [("十点", "03-05 10:00"), ("两点", "03-05 14:00")]),
        ("我九点上班到五点", datetime(2025, 3, 5, 8), [("九点", "03-05 09:00"), ("五点", "03-05 17:00")]),
        # unchanged: a night said, a sleep, a part of the day or a day said, an end after its start
        ("晚上九点到五点", AFTERNOON, [("晚上九点", "03-05 21:00"), ("五点", "03-06 05:00")]),
        ("我上夜班，九点到五点", AFTERNOON, [("九点", "03-05 21:00"), ("五点", "03-06 05:00")]),
        ("我十点睡到五点", AFTERNOON, [("十点", "03-05 22:00"), ("五点", "03-06 05:00")]),
        ("明天九点到五点", AFTERNOON, [("明天九点", "03-06 09:00"), ("五点", "03-06 17:00")]),
        ("两点到三点开会", AFTERNOON, [("两点", "03-05 14:00"), ("三点", "03-05 15:00")]),
    ],
)
def test_a_range_of_bare_hours_ending_on_a_smaller_one_is_a_days(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


def test_a_night_said_after_a_range_keeps_it_the_nights() -> None:
    assert read("九点到五点的夜班", AFTERNOON) == [("九点", "03-05 21:00"), ("五点", "03-06 05:00")]


def test_a_clock_that_starts_a_range_is_no_arrival() -> None:
    """十点 of 早十点到晚六点 read 22:00 once 到 was taken for an arrival: a range's 到 is followed by its end."""
    said = "客服工作时间改为早十点到晚六点"
    assert read(said, AFTERNOON) == [("十点", "03-05 10:00"), ("六点", "03-05 18:00")]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("我九点起的", [("九点", "03-05 09:00")]),
        ("我们九点多到的", [("九点", "03-05 09:00")]),
        # unchanged: a 的 of the clock itself tells no doing (the nine o'clock one)
        ("车是九点的", [("九点", "03-05 21:00")]),
    ],
)
def test_a_clock_a_shi_de_tells_done_is_not_the_one_ahead(said: str, reading: list[tuple[str, str]]) -> None:
    """Said at 15:00, 09:00 and 21:00 are as near as each other, and the one ahead was taken for a thing done."""
    assert read(said, AFTERNOON) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我今天九点上线", MORNING, [("今天九点", "03-05 21:00")]),
        ("今天九点要开会", MORNING, [("今天九点", "03-05 21:00")]),
        ("今天有事，九点要开会", MORNING, [("今天", "03-05 00:00"), ("九点", "03-05 21:00")]),
        # unchanged: told done, a part of the day said, another day, the morning's still ahead, a plan gone
        ("今天九点就到了", MORNING, [("今天九点", "03-05 09:00")]),
        ("我今天九点起的", MORNING, [("今天九点", "03-05 09:00")]),
        ("今天晚上九点", MORNING, [("今天晚上九点", "03-05 21:00")]),
        ("今天早上九点", MORNING, [("今天早上九点", "03-05 09:00")]),
        ("明天九点要开会", MORNING, [("明天九点", "03-06 09:00")]),
        ("今天九点要开会", datetime(2025, 3, 5, 8), [("今天九点", "03-05 09:00")]),
        ("今天三点见", datetime(2025, 3, 5, 20), [("今天三点", "03-05 15:00")]),
    ],
)
def test_a_clock_of_today_said_reads_by_its_case_as_a_bare_one(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我今天九点上线 said at 11:15 read 09:00, gone, while 我九点上线 read 21:00: 今天 said kept the morning's
    hour a day said has (后天七点见). A plan of today whose morning hour is gone is the evening's; never tomorrow's."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        # a later clause tells the going done: the morning's, as a 了 in the clock's own clause does
        ("我九点到公司，发现门锁了", [("九点", "03-05 09:00")]),
        ("我九点出门，结果堵车堵了两小时", [("九点", "03-05 09:00")]),
        ("我九点到，他十点才到", [("九点", "03-05 09:00"), ("十点", "03-05 10:00")]),
        ("九点开始下雨，到现在还没停", [("九点", "03-05 09:00")]),
        ("今天九点到公司，发现没带卡", [("今天九点", "03-05 09:00")]),
        ("今天九点去医院，排了两小时队", [("今天九点", "03-05 09:00")]),
        ("你今天九点到的吗", [("今天九点", "03-05 09:00")]),
        # a habit is no plan of today's
        ("我平时九点到公司", [("九点", "03-05 09:00")]),
        ("一般九点出门", [("九点", "03-05 09:00")]),
        # still plans: 到了 of what is to come, 刚好
        ("我九点到，到了给你打电话", [("九点", "03-05 21:00")]),
        ("我九点上线，刚好有空", [("九点", "03-05 21:00")]),
    ],
)
def test_a_going_told_done_later_in_its_sentence_or_of_habit_is_no_plan(
    said: str, reading: list[tuple[str, str]]
) -> None:
    """我九点到公司，发现门锁了 said at 11:15 read 21:00 (since ff9edea a going after a bare clock is a plan) though
    the sentence tells it done, and 我平时九点到公司 the same, though a habit is of no one day."""
    assert read(said, MORNING) == reading


def test_a_time_told_with_a_reminder_after_it_is_ahead_though_its_clause_ends_in_de() -> None:
    """电影是七点开始的，别迟到 said at 15:00 read 07:00 that morning (since 3e215e5 a 是…的 tells done): the
    reminder after it says the film is still to come, so it is 19:00 as before; 我们是九点开始的 stays 09:00."""
    assert read("电影是七点开始的，别迟到", AFTERNOON) == [("七点", "03-05 19:00")]
    assert read("电影是七点开始的，记得早点来", AFTERNOON) == [("七点", "03-05 19:00")]
    assert read("我们是九点开始的", AFTERNOON) == [("九点", "03-05 09:00")]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # a later clause tells the going done: said in the afternoon, 09:00 and 21:00 are as near, and the one
        # ahead was taken
        ("我九点到公司，发现门锁了", AFTERNOON, [("九点", "03-05 09:00")]),
        ("我九点出门，结果堵车堵了两小时", datetime(2025, 3, 5, 16), [("九点", "03-05 09:00")]),
        # someone not come yet tells the speaker is there already
        ("今天我九点到公司，老板还没来", datetime(2025, 3, 5, 12), [("今天", "03-05 00:00"), ("九点", "03-05 09:00")]),
        ("我八点到单位，同事都还没来呢", MORNING, [("八点", "03-05 08:00")]),
        ("我十点到的，你还没到", AFTERNOON, [("十点", "03-05 10:00")]),
        # unchanged: a 还没 of a condition is a plan's
        ("我九点到，你要是还没来就打电话", MORNING, [("九点", "03-05 21:00")]),
        ("我九点到，你还没来的话就先走", MORNING, [("九点", "03-05 21:00")]),
    ],
)
def test_a_going_told_done_after_it_is_the_one_begun(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """今天我九点到公司，老板还没来 said at noon read 21:00, still to come, though the boss not come yet tells the
    speaker arrived; and a going told done later in its sentence, said in the afternoon, took the 21:00 ahead."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    "now", [datetime(2025, 3, 5, 7, 30), datetime(2025, 3, 5, 12), AFTERNOON, datetime(2025, 3, 5, 22)]
)
@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("酒吧营业时间八点到两点", [("八点", "03-05 20:00"), ("两点", "03-06 02:00")]),
        ("我在酒吧上班，营业时间八点到两点", [("八点", "03-05 20:00"), ("两点", "03-06 02:00")]),
        ("KTV十点到两点", [("十点", "03-05 22:00"), ("两点", "03-06 02:00")]),
        ("夜店营业时间九点到三点", [("九点", "03-05 21:00"), ("三点", "03-06 03:00")]),
        ("我上夜班，九点到五点", [("九点", "03-05 21:00"), ("五点", "03-06 05:00")]),
        # unchanged: no night said, a working day's
        ("营业时间十点到两点", [("十点", "03-05 10:00"), ("两点", "03-05 14:00")]),
        ("我九点上班到五点", [("九点", "03-05 09:00"), ("五点", "03-05 17:00")]),
    ],
)
def test_a_range_of_bare_hours_ending_on_a_smaller_one_with_night_said_is_a_nights(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """酒吧营业时间八点到两点 read 08:00 to 14:00 said at any hour, and 我上夜班，九点到五点 09:00 to 17:00 said in the
    morning: an end before its start in the same half of the day, where a bar or a night shift is said, runs
    from the evening into the night after it."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    "now", [datetime(2025, 3, 5, 7, 30), datetime(2025, 3, 5, 12), AFTERNOON, datetime(2025, 3, 5, 22)]
)
@pytest.mark.parametrize(
    "said",
    ["我九点到五点上班，晚上回家做饭", "我九点到五点上班，下班去酒吧", "平时去酒吧，九点到五点上班"],
)
def test_a_night_or_a_bar_of_another_clause_leaves_a_working_day(said: str, now: datetime) -> None:
    """我九点到五点上班，晚上回家做饭 and …，下班去酒吧 read 21:00 to 05:00 the next day said at any hour: an
    evening, a night or a bar of another clause is not the range's, unless it is a night's work (我在酒吧上班)."""
    clocks = [reading for reading in read(said, now) if reading[0] in ("九点", "五点")]
    assert clocks == [("九点", "03-05 09:00"), ("五点", "03-05 17:00")]
