"""A bare small hour after a day (明天三点, 周五四点) is the afternoon's, on the rules path: jionlp read 03:00,
and a plan said so was dated to the night. A part of the day said, a morning hour, noon, midnight, a 24-hour
clock and a clock alone read as before; today's small hour is the afternoon's unless said in the night."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope, ScopeKind
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

WEDNESDAY = datetime(2024, 11, 13, 10, 0)
SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")


def read(text: str, now: datetime = WEDNESDAY) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%Y-%m-%d %H:%M}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("明天三点我要开会", [("明天三点", "2024-11-14 15:00")]),
        ("后天四点见", [("后天四点", "2024-11-15 16:00")]),
        ("周五三点开会", [("周五三点", "2024-11-15 15:00")]),
        # a weekday's numeral and the hour's: was 五六点, "five or six", 05:00
        ("周五六点见", [("周五六点", "2024-11-15 18:00")]),
        ("周四五点半开会", [("周四五点半", "2024-11-14 17:30")]),
        ("星期六七点起床", [("星期六七点", "2024-11-16 07:00")]),
        ("下周五3点半面试", [("下周五3点半", "2024-11-22 15:30")]),
        ("明天的事定了，时间还是三点", [("明天", "2024-11-14 00:00"), ("三点", "2024-11-14 15:00")]),
        # unchanged: a part of the day said, a morning hour, noon, midnight, a 24-hour clock, a clock alone, today
        ("明天凌晨三点的飞机", [("明天凌晨三点", "2024-11-14 03:00")]),
        ("明天下午三点开会", [("明天下午三点", "2024-11-14 15:00")]),
        ("明早六点出发", [("明早六点", "2024-11-14 06:00")]),
        # a small hour of an evening is in the night after it (jionlp read the 14th's 03:00, a day early)
        ("明天晚上三点", [("明天晚上三点", "2024-11-15 03:00")]),
        ("明天晚上两点还在加班", [("明天晚上两点", "2024-11-15 02:00")]),
        ("昨晚两点才睡", [("昨晚两点", "2024-11-13 02:00")]),
        ("明天晚上十二点", [("明天晚上十二点", "2024-11-15 00:00")]),
        ("后天七点见", [("后天七点", "2024-11-15 07:00")]),
        ("明天十二点吃饭", [("明天十二点", "2024-11-14 12:00")]),
        ("明天零点", [("明天零点", "2024-11-14 00:00")]),
        ("明天3:00", [("明天3:00", "2024-11-14 03:00")]),
        # minutes before the hour
        ("明天差一刻三点见", [("明天差一刻三点", "2024-11-14 14:45")]),
        ("差五分八点", [("差五分八点", "2024-11-13 07:55")]),
        ("明早差十分钟七点出发", [("明早差十分钟七点", "2024-11-14 06:50")]),
        ("三点开会", [("三点", "2024-11-13 15:00")]),
        # today's, said in the morning: the afternoon too (it was 03:00, gone seven hours)
        ("今天三点开会", [("今天三点", "2024-11-13 15:00")]),
    ],
)
def test_a_bare_small_hour_after_a_day_is_the_afternoons(said: str, reading: list[tuple[str, str]]) -> None:
    assert read(said) == reading


def test_today_s_small_hour_said_in_the_night_is_the_night_s() -> None:
    assert read("今天三点才睡", datetime(2024, 11, 13, 1, 30)) == [("今天三点", "2024-11-13 03:00")]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # was the 14th's 02:00, half an hour ahead: the night before the one under way
        ("昨晚两点才睡", datetime(2024, 11, 14, 1, 30), [("昨晚两点", "2024-11-13 02:00")]),
        # no day said, in the morning: last night's (was tonight's, 18 hours ahead)
        ("晚上两点了还不睡", datetime(2024, 11, 13, 8, 0), [("晚上两点", "2024-11-13 02:00")]),
        # unchanged: in the evening, tonight's
        ("晚上两点了还不睡", datetime(2024, 11, 13, 20, 30), [("晚上两点", "2024-11-14 02:00")]),
        ("今晚两点睡", datetime(2024, 11, 14, 1, 30), [("今晚两点", "2024-11-14 02:00")]),
    ],
)
def test_an_evening_s_small_hour_is_never_a_gone_night_ahead(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


def test_a_plan_at_a_bare_small_hour_after_a_day_is_dated_to_the_afternoon() -> None:
    found = extract_private(SCOPE, ("明天三点我要开会",), WEDNESDAY).facts
    assert [f.description for f in found if f.predicate == "计划"] == ["木木明天三点（2024-11-14 15:00）要开会"]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("我五点要去接孩子", [("五点", "2024-11-13 17:00")]),  # was 05:00, gone: a plan dated before it was said
        ("三点的会改到五点了", [("三点", "2024-11-13 15:00"), ("五点", "2024-11-13 17:00")]),
        ("会议推迟到四点", [("四点", "2024-11-13 16:00")]),
        # what was done stays; a morning hour to come is the morning's, tomorrow's once today's is gone
        ("五点就醒了", [("五点", "2024-11-13 05:00")]),
        ("我七点要起床", [("七点", "2024-11-14 07:00")]),
    ],
)
def test_a_small_hour_to_come_or_moved_to_is_the_afternoons(said: str, reading: list[tuple[str, str]]) -> None:
    assert read(said, datetime(2024, 11, 13, 10, 30)) == reading


def test_a_meeting_moved_to_a_bare_small_hour_is_a_plan_then() -> None:
    lines = ("我下午三点要开会", "三点的会改到五点了")
    found = extract_private(SCOPE, lines, datetime(2024, 11, 13, 10, 30)).facts
    assert "木木三点的会改到五点（2024-11-13 17:00）了" in [f.description for f in found]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # sleep and waking are the small hours' or the morning's: 明天六点起床 is not 18:00
        ("明天六点起床赶飞机", datetime(2024, 11, 13, 10, 30), [("明天六点", "2024-11-14 06:00")]),
        ("明天五点就要起床去机场", datetime(2024, 11, 13, 10, 30), [("明天五点", "2024-11-14 05:00")]),
        ("昨天三点才睡", datetime(2024, 11, 13, 10, 30), [("昨天三点", "2024-11-12 03:00")]),
        ("我今天五点就醒了", datetime(2024, 11, 13, 10, 30), [("今天五点", "2024-11-13 05:00")]),
        (
            "明天我六点要起床",
            datetime(2024, 11, 13, 20, 0),
            [("明天", "2024-11-14 00:00"), ("六点", "2024-11-14 06:00")],
        ),
        (
            "周六一早五点要出发",
            datetime(2024, 11, 13, 10, 30),
            [("周六", "2024-11-16 00:00"), ("五点", "2024-11-16 05:00")],
        ),
        # 起 of waking (五点就得起); an hour to come, gone today, is tomorrow's when nearer; an alarm set rings ahead
        (
            "我明天要早起，五点就得起",
            datetime(2024, 11, 13, 10, 30),
            [("明天", "2024-11-14 00:00"), ("五点", "2024-11-14 05:00")],
        ),
        ("我六点要起床", datetime(2024, 11, 13, 20, 0), [("六点", "2024-11-14 06:00")]),
        ("我七点要起床", datetime(2024, 11, 13, 20, 0), [("七点", "2024-11-14 07:00")]),
        ("我订了六点的闹钟", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-14 06:00")]),
        ("我七点就醒了", datetime(2024, 11, 13, 20, 0), [("七点", "2024-11-13 07:00")]),
        # unchanged: the afternoon's when nothing says night or morning; sleep at 十一点 is the night's
        ("明天三点我要开会", datetime(2024, 11, 13, 10, 30), [("明天三点", "2024-11-14 15:00")]),
        ("我十一点才睡", datetime(2024, 11, 13, 20, 0), [("十一点", "2024-11-13 23:00")]),
        ("闹钟六点没响", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-13 06:00")]),
        ("我们一起三点去", datetime(2024, 11, 13, 10, 30), [("三点", "2024-11-13 15:00")]),
        ("我五点要去接孩子", datetime(2024, 11, 13, 10, 30), [("五点", "2024-11-13 17:00")]),
        ("我五点要下班回家睡觉", datetime(2024, 11, 13, 10, 30), [("五点", "2024-11-13 17:00")]),
        (
            "明天午觉睡到三点",
            datetime(2024, 11, 13, 10, 30),
            [("明天", "2024-11-14 00:00"), ("三点", "2024-11-14 15:00")],
        ),
    ],
)
def test_a_small_hour_of_sleep_or_waking_stays_the_nights(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        # a bare 一点 or 两点 where the words around it say a time
        ("我两点要去开会", [("两点", "2024-11-13 14:00")]),
        ("两点见", [("两点", "2024-11-13 14:00")]),
        ("我们一点在门口集合", [("一点", "2024-11-13 13:00")]),
        ("我两点的飞机", [("两点", "2024-11-13 14:00")]),
        # unchanged: a bit, two points
        ("有一点累", []),
        ("吃了两点东西", []),
        ("这两点要注意", []),
        ("我有两点要求", []),
        ("还有一点要补充", []),
        ("我一点都不累", []),
        ("好一点了吗", []),
        ("再吃一点去睡", []),
        ("我有一点在意", []),
    ],
)
def test_a_bare_one_or_two_o_clock_is_read_where_its_words_say_a_time(
    said: str, reading: list[tuple[str, str]]
) -> None:
    assert read(said, datetime(2024, 11, 13, 10, 30)) == reading


def test_a_bare_hour_as_near_ahead_as_gone_is_the_one_ahead() -> None:
    assert read("两点见", datetime(2024, 6, 15, 8, 0)) == [("两点", "2024-06-15 14:00")]
    assert read("三点开会", datetime(2024, 6, 15, 9, 0)) == [("三点", "2024-06-15 15:00")]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("两点到三点开会", datetime(2024, 11, 13, 8), [("两点", "2024-11-13 14:00"), ("三点", "2024-11-13 15:00")]),
        ("下午两点到五点", datetime(2024, 11, 13, 8), [("下午两点", "2024-11-13 14:00"), ("五点", "2024-11-13 17:00")]),
        ("晚上八点到十点", datetime(2024, 11, 13, 8), [("晚上八点", "2024-11-13 20:00"), ("十点", "2024-11-13 22:00")]),
        ("十点到十二点", datetime(2024, 11, 13, 20), [("十点", "2024-11-13 22:00"), ("十二点", "2024-11-14 00:00")]),
        (
            "明天九点到三点考试",
            datetime(2024, 11, 13, 8),
            [("明天九点", "2024-11-14 09:00"), ("三点", "2024-11-14 15:00")],
        ),
        (
            "明天十一点到一点",
            datetime(2024, 11, 13, 8),
            [("明天十一点", "2024-11-14 11:00"), ("一点", "2024-11-14 13:00")],
        ),
    ],
)
def test_the_clock_that_ends_a_range_is_the_first_such_hour_after_its_start(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    # 两点到三点 read alone each: 14:00 to 03:00, a range that ends before it starts
    assert read(said, now) == reading


@pytest.mark.parametrize("now", [datetime.min, datetime.max])
def test_a_range_of_hours_at_the_ends_of_time_reads_without_error(now: datetime) -> None:
    # the end of a range is put on the hours after its start: at datetime.max there are none (OverflowError)
    assert isinstance(read("两点到三点开会，明天十一点到一点", now), list)


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("三点见", datetime(2024, 11, 13, 20, 30), [("三点", "2024-11-14 15:00")]),
        ("我两点要去开会", datetime(2024, 11, 13, 20, 30), [("两点", "2024-11-14 14:00")]),
        ("我们九点要出发", datetime(2024, 11, 13, 22, 0), [("九点", "2024-11-14 09:00")]),
        ("会议推迟到四点", datetime(2024, 11, 13, 20, 30), [("四点", "2024-11-14 16:00")]),
        # ahead today, or done: today's
        ("九点见", datetime(2024, 11, 13, 20, 0), [("九点", "2024-11-13 21:00")]),
        ("三点见了个客户", datetime(2024, 11, 13, 20, 0), [("三点", "2024-11-13 15:00")]),
        ("我三点开完会了", datetime(2024, 11, 13, 20, 0), [("三点", "2024-11-13 15:00")]),
    ],
)
def test_a_clock_to_come_whose_two_hours_are_gone_today_is_tomorrows(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """三点见 said at 20:30 read 15:00 that day, gone five hours before it was said."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我本来要三点去的", datetime(2024, 11, 13, 20, 30), [("三点", "2024-11-13 15:00")]),
        ("三点见的他", datetime(2024, 11, 13, 20, 30), [("三点", "2024-11-13 15:00")]),
        ("我们三点见面聊的", datetime(2024, 11, 13, 22, 0), [("三点", "2024-11-13 15:00")]),
        ("三点集合的，结果没人来", datetime(2024, 11, 13, 20, 30), [("三点", "2024-11-13 15:00")]),
        # still to come: the afternoon's at 10:30, tomorrow's when today's are gone
        ("我本来要五点去的", datetime(2024, 11, 13, 10, 30), [("五点", "2024-11-13 17:00")]),
        ("三点见面", datetime(2024, 11, 13, 20, 30), [("三点", "2024-11-14 15:00")]),
    ],
)
def test_a_clock_told_as_done_or_given_up_is_not_tomorrows(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我本来要三点去的 and 三点见的他 said at 20:30 read 15:00 of the next day: a plan given up, and a 是…的 of
    when it was done, are of the day they were said."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("我三点要去开会，结果取消了", [("三点", "2024-11-13 15:00")]),  # was tomorrow's: the plan is off
        ("三点改到四点了", [("三点", "2024-11-13 15:00"), ("四点", "2024-11-13 16:00")]),  # 四点 was tomorrow's
        ("会议推迟到四点", [("四点", "2024-11-14 16:00")]),  # a move still to come: tomorrow's, as before
    ],
)
def test_a_plan_called_off_or_a_move_told_done_is_on_the_day_it_was_said(
    said: str, reading: list[tuple[str, str]]
) -> None:
    """Said at 20:30, 我三点要去开会，结果取消了 read 15:00 tomorrow, and 三点改到四点了 put 三点 today and 四点
    tomorrow (helper's review)."""
    assert read(said, datetime(2024, 11, 13, 20, 30)) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("三点见", [("三点", "2025-03-05 15:00")]),
        ("我五点要去接孩子", [("五点", "2025-03-05 17:00")]),
        ("会议推迟到四点", [("四点", "2025-03-05 16:00")]),
        ("三点的会改到五点了", [("三点", "2025-03-05 15:00"), ("五点", "2025-03-05 17:00")]),  # both, not one
        # the night said, sleep or waking, a morning hour: as before
        ("凌晨三点见", [("凌晨三点", "2025-03-05 03:00")]),
        ("半夜三点见", [("半夜三点", "2025-03-05 03:00")]),
        ("我六点要起床", [("六点", "2025-03-05 06:00")]),
        ("七点见", [("七点", "2025-03-05 07:00")]),
    ],
)
def test_a_plan_at_a_small_hour_said_after_midnight_is_the_afternoons(
    said: str, reading: list[tuple[str, str]]
) -> None:
    """三点见 said at 00:30 read 03:00 that night: the nearer hour, though a meeting at 03:00 is said 凌晨三点."""
    assert read(said, datetime(2025, 3, 5, 0, 30)) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("昨天说好三点见", datetime(2025, 3, 5, 20, 30), [("昨天", "2025-03-04 00:00"), ("三点", "2025-03-05 15:00")]),
        ("约好三点见", datetime(2025, 3, 5, 20, 30), [("三点", "2025-03-05 15:00")]),
        ("我们约好了在三点碰头", datetime(2025, 3, 5, 20, 30), [("三点", "2025-03-05 15:00")]),
        ("说好了三点见", datetime(2025, 3, 5, 0, 30), [("三点", "2025-03-05 15:00")]),
        # its day said: that day's
        ("明天说好三点见", datetime(2025, 3, 5, 20, 30), [("明天", "2025-03-06 00:00"), ("三点", "2025-03-06 15:00")]),
        ("说好明天三点见", datetime(2025, 3, 5, 20, 30), [("明天三点", "2025-03-06 15:00")]),
    ],
)
def test_a_meeting_agreed_on_with_no_day_said_is_not_tomorrows(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """昨天说好三点见 said at 20:30 read 15:00 tomorrow: a meeting agreed on before may be one gone today, and read
    as one ahead it is a false reminder."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("听说好像三点要停电", [("三点", "2025-03-06 15:00")]),
        ("据说好像三点要开会", [("三点", "2025-03-06 15:00")]),
    ],
)
def test_said_and_good_that_agree_on_nothing_read_as_a_plan(said: str, reading: list[tuple[str, str]]) -> None:
    """听说好像三点要停电 said at 20:30 read 15:00 that afternoon, gone: its 说好 was taken for an agreement."""
    assert read(said, datetime(2025, 3, 5, 20, 30)) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("说好三点见，别迟到啊", [("三点", "2025-03-06 15:00")]),
        ("说好三点见，不见不散", [("三点", "2025-03-06 15:00")]),
        ("约好三点见，到时候我去接你", [("三点", "2025-03-06 15:00")]),
        # no reminder: an agreement told of, today's (3f17e22)
        ("我们说好三点见的，结果他没来", [("三点", "2025-03-05 15:00")]),
    ],
)
def test_a_meeting_agreed_on_with_a_reminder_after_is_ahead(said: str, reading: list[tuple[str, str]]) -> None:
    """说好三点见，别迟到啊 said at 20:30 read 15:00 that afternoon, gone: a reminder says the meeting is ahead."""
    assert read(said, datetime(2025, 3, 5, 20, 30)) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我六点要去赶飞机", datetime(2025, 3, 5, 5, 30), [("六点", "2025-03-05 06:00")]),
        ("等会三点要交接班", datetime(2025, 3, 5, 2, 30), [("三点", "2025-03-05 03:00")]),
        ("我五点要出门", datetime(2025, 3, 5, 4, 0), [("五点", "2025-03-05 05:00")]),
        # further ahead: the afternoon's (4f8e784)
        ("三点见", datetime(2025, 3, 5, 0, 30), [("三点", "2025-03-05 15:00")]),
        ("我五点要出门", datetime(2025, 3, 5, 3, 30), [("五点", "2025-03-05 17:00")]),
    ],
)
def test_a_plan_at_a_small_hour_within_the_hour_is_the_nights(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我六点要去赶飞机 said at 05:30 read 18:00 after 4f8e784: a plan said half an hour before its small hour is
    that hour's, not the afternoon's."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我要加班到三点", datetime(2025, 3, 5, 0, 30), [("三点", "2025-03-05 03:00")]),
        ("我还要写论文写到四点", datetime(2025, 3, 5, 0, 30), [("四点", "2025-03-05 04:00")]),
        ("我要加班到五点", datetime(2025, 3, 5, 10, 30), [("五点", "2025-03-05 17:00")]),
        ("我要加班到三点", datetime(2025, 3, 5, 20, 30), [("三点", "2025-03-06 15:00")]),  # as before 4f8e784
    ],
)
def test_a_stretch_to_come_until_a_small_hour_ends_at_the_nearer(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我要加班到三点 said at 00:30 read 15:00 after 4f8e784: overtime under way ends at the three ahead, 03:00."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("四点要起来", datetime(2025, 3, 5, 0, 30), [("四点", "2025-03-05 04:00")]),
        ("我们三点要去看日出", datetime(2025, 3, 5, 0, 30), [("三点", "2025-03-05 03:00")]),
        ("我们四点要出发去看日出", datetime(2025, 3, 5, 20, 30), [("四点", "2025-03-06 04:00")]),
        ("我明天五点就起来了", datetime(2025, 3, 5, 20, 30), [("明天五点", "2025-03-06 05:00")]),
        ("他三点要站起来发言", datetime(2025, 3, 5, 10, 0), [("三点", "2025-03-05 15:00")]),  # no waking
    ],
)
def test_getting_up_and_a_sunrise_are_the_mornings(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """四点要起来 and 三点要去看日出 said at 00:30 read 16:00 and 15:00 after 4f8e784: 起来 and 日出 are of the
    morning, as 起床 is."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("今天三点见", [("今天三点", "2025-03-05 15:00")]),
        ("今天三点要去接孩子", [("今天三点", "2025-03-05 15:00")]),
        ("周三三点见", [("周三三点", "2025-03-05 15:00")]),  # said on Wednesday
        ("今天有事，三点见", [("今天", "2025-03-05 00:00"), ("三点", "2025-03-05 15:00")]),
        # no plan, sleep, or within the hour: the night's, as before
        ("今天三点才睡", [("今天三点", "2025-03-05 03:00")]),
        ("今天三点的飞机", [("今天三点", "2025-03-05 03:00")]),
        ("今天一点要去值班", [("今天一点", "2025-03-05 01:00")]),
    ],
)
def test_todays_plan_at_a_small_hour_said_after_midnight_is_the_afternoons(
    said: str, reading: list[tuple[str, str]]
) -> None:
    """今天三点见 said at 00:30 read 03:00 while 三点见 read 15:00: today's plan is read as the bare one is."""
    assert read(said, datetime(2025, 3, 5, 0, 30)) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("五点的航班，四点要出门", [("五点", "2025-03-05 05:00"), ("四点", "2025-03-05 04:00")]),
        ("我三点下班，四点要去吃宵夜", [("三点", "2025-03-05 03:00"), ("四点", "2025-03-05 04:00")]),
        ("凌晨五点的飞机，四点要出门", [("凌晨五点", "2025-03-05 05:00"), ("四点", "2025-03-05 04:00")]),
        # sleep is no night's plan: the afternoon's
        ("我三点才睡，五点要去接孩子", [("三点", "2025-03-05 03:00"), ("五点", "2025-03-05 17:00")]),
    ],
)
def test_a_plan_beside_a_thing_of_the_night_ahead_is_the_nights(said: str, reading: list[tuple[str, str]]) -> None:
    """五点的航班，四点要出门 said at 00:30 left at 16:00 for a 05:00 flight after 4f8e784: a plan's small hour
    beside one of the night ahead is that night's."""
    assert read(said, datetime(2025, 3, 5, 0, 30)) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # going to bed at 8–11 is the evening's: 我十点要睡觉 at 15:00 read 10:00 tomorrow
        ("我十点要睡觉", datetime(2025, 3, 5, 15, 0), [("十点", "2025-03-05 22:00")]),
        ("我十一点要睡了", datetime(2025, 3, 5, 15, 0), [("十一点", "2025-03-05 23:00")]),
        ("我九点半要睡觉", datetime(2025, 3, 5, 15, 0), [("九点半", "2025-03-05 21:30")]),
        ("昨天十一点才睡", datetime(2025, 3, 5, 15, 0), [("昨天十一点", "2025-03-04 23:00")]),
        ("我十一点才睡", datetime(2025, 3, 5, 10, 0), [("十一点", "2025-03-04 23:00")]),
        ("我十点就睡了", datetime(2025, 3, 5, 23, 30), [("十点", "2025-03-05 22:00")]),
        # when sleep ends, or a nap, is not
        ("我睡到十点", datetime(2025, 3, 5, 15, 0), [("十点", "2025-03-05 10:00")]),
        ("我十点才睡醒", datetime(2025, 3, 5, 15, 0), [("十点", "2025-03-05 10:00")]),
    ],
)
def test_going_to_bed_at_eight_to_eleven_is_the_evenings(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # gone to bed already, told in the afternoon: last night's, not tonight's still ahead
        ("我十点就睡了", datetime(2025, 3, 5, 15, 0), [("十点", "2025-03-04 22:00")]),
        ("十点多睡的", datetime(2025, 3, 5, 15, 0), [("十点", "2025-03-04 22:00")]),
        ("我十一点睡的", datetime(2025, 3, 5, 15, 0), [("十一点", "2025-03-04 23:00")]),
        # back to sleep after waking is the morning's
        ("我十点睡了个回笼觉", datetime(2025, 3, 5, 15, 0), [("十点", "2025-03-05 10:00")]),
    ],
)
def test_a_bedtime_told_as_done_or_a_morning_nap_is_not_tonights(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


WEDNESDAY_AFTERNOON = datetime(2026, 12, 2, 15, 0)


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("四点要起来", WEDNESDAY_AFTERNOON, [("四点", "2026-12-03 04:00")]),
        ("我五点就得起", WEDNESDAY_AFTERNOON, [("五点", "2026-12-03 05:00")]),
        ("我六点要起床", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-14 06:00")]),
        ("我准备六点起床", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-14 06:00")]),
        # unchanged: still ahead today, given up, told as done, no plan
        ("四点要起来", datetime(2025, 3, 5, 0, 30), [("四点", "2025-03-05 04:00")]),
        ("我本来六点要起床的", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-13 06:00")]),
        ("我六点就起床了", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-13 06:00")]),
        ("闹钟六点没响", datetime(2024, 11, 13, 10, 30), [("六点", "2024-11-13 06:00")]),
        # a day said keeps its hour: 周六 said on that Saturday
        (
            "周六一早五点要出发",
            datetime(2024, 12, 28, 15, 0),
            [("周六", "2024-12-28 00:00"), ("五点", "2024-12-28 05:00")],
        ),
    ],
)
def test_a_waking_hour_to_come_already_gone_today_is_tomorrows(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """四点要起来 said at 15:00 read 04:00 that morning, gone: a plan's hour passed today is its next one (我七点要
    起床 at 10:30 already read tomorrow's; 我六点要起床 read today's only because 06:00 was the nearer)."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("我九点睡午觉", [("九点", "2026-12-02 09:00")]),
        ("我一点睡午觉", [("一点", "2026-12-02 13:00")]),
        ("两点午休", [("两点", "2026-12-02 14:00")]),
        ("我三点午睡", [("三点", "2026-12-02 15:00")]),
        ("十二点睡午觉", [("十二点", "2026-12-02 12:00")]),
    ],
)
def test_the_hour_of_a_nap_is_the_half_nearer_noon(said: str, reading: list[tuple[str, str]]) -> None:
    """我九点睡午觉 at 15:00 read 21:00, and 两点午休 no time at all: a midday nap is taken near noon."""
    assert read(said, WEDNESDAY_AFTERNOON) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        # 下午睡 and 上午睡 hold 午睡 but are no nap: a sleep of that part of the day (read 07:00 since 96d10b3)
        ("下午睡了一觉七点才醒", [("下午", "2026-12-02 13:00"), ("七点", "2026-12-02 19:00")]),
        ("下午睡觉八点才醒", [("下午", "2026-12-02 13:00"), ("八点", "2026-12-02 20:00")]),
        ("下午午睡到三点", [("下午", "2026-12-02 13:00"), ("三点", "2026-12-02 15:00")]),
    ],
)
def test_a_sleep_in_the_afternoon_is_no_nap(said: str, reading: list[tuple[str, str]]) -> None:
    assert read(said, WEDNESDAY_AFTERNOON) == reading


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("我十点睡到十一点", [("十点", "2026-12-02 22:00"), ("十一点", "2026-12-02 23:00")]),
        ("我十点睡到十点半", [("十点", "2026-12-02 22:00"), ("十点半", "2026-12-02 22:30")]),
        # unchanged: an end already after its start
        ("我两点开会到四点", [("两点", "2026-12-02 14:00"), ("四点", "2026-12-02 16:00")]),
    ],
)
def test_a_clock_a_doing_runs_until_comes_after_its_start(said: str, reading: list[tuple[str, str]]) -> None:
    """我十点睡到十一点 at 15:00 read 22:00 to 11:00 that morning, an end before its start."""
    assert read(said, WEDNESDAY_AFTERNOON) == reading
