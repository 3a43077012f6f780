"""Lines the Chinese reader misread: a word's 一 lent to the clock after it (万一九点 read 一九点), a class hour
said at night read as this morning's, a festival's outing told with how it felt read as the next one (days or
months after it), and 年前 with a feeling of now read as the last one. Lines that must not change are pinned
beside them."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.text.times import find_time_phrases

MONDAY = datetime(2024, 5, 6, 10)


def read(text: str, now: datetime) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%Y-%m-%d %H:%M}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("万一九点我还没到，你先走", [("九点", "2024-05-06 21:00")]),
        ("统一九点集合", [("九点", "2024-05-06 21:00")]),
        ("唯一八点有空", [("八点", "2024-05-06 20:00")]),
        ("万一十点还没到", [("十点", "2024-05-06 10:00")]),
        ("统一一点集合", [("一点", "2024-05-06 13:00")]),
        # unchanged: 一点 and 十一点 of their own, a weekday's 一, a bit (一点 after 有)
        ("我一点到", [("一点", "2024-05-06 13:00")]),
        ("十一点见", [("十一点", "2024-05-06 11:00")]),
        ("周一九点开会", [("周一九点", "2024-05-06 09:00")]),
        ("有一点累", []),
    ],
)
def test_the_one_of_a_word_before_a_clock_is_not_its_hour(said: str, reading: list[tuple[str, str]]) -> None:
    """万一九点我还没到 read 一九点: the 一 of 万一 (in case), 统一, 唯一 was taken for a digit of the hour."""
    assert read(said, MONDAY) == reading


DECEMBER_30 = datetime(2024, 12, 30, 10)
NOVEMBER_20 = datetime(2024, 11, 20, 10)  # 国庆 50 days gone
TUESDAY = datetime(2024, 11, 19, 10)
_TOLD = ["去约会，超开心", "去约会，好开心", "去约会，开心死了", "去约会，好幸福", "去爬山，好累", "去看展，有点失望"]
_TOLD += ["去聚餐，蛮无聊的", "去约会，有点尴尬", "去滑雪，挺难忘的", "去约会超开心"]
_AHEAD = ["去约会，好期待", "去约会，一定很开心", "去约会，会很开心", "去滑雪，应该很好玩"]
_AHEAD += ["去约会吧，肯定超开心", "去爬山，好期待"]


@pytest.mark.parametrize("outing", _TOLD)
def test_an_outing_told_with_how_it_felt_is_the_last(outing: str) -> None:
    """圣诞节去约会，超开心 said on 12-30 read next year's Christmas: 约会 was read as 会 (will), and a feeling with
    its degree (有点失望, 蛮无聊的) or its 死了 (开心死了) was no telling of how it went."""
    assert read("圣诞节" + outing, DECEMBER_30) == [("圣诞节", "2024-12-25 00:00")]
    assert read("国庆" + outing, NOVEMBER_20) == [("国庆", "2024-10-01 00:00")]
    assert read("周末" + outing, TUESDAY)[0][1] == "2024-11-16 00:00"


@pytest.mark.parametrize("outing", _AHEAD)
def test_an_outing_looked_forward_to_is_the_coming_one(outing: str) -> None:
    """Unchanged, or now so on 12-30 with Christmas five days gone: a line that looks ahead is the coming one."""
    assert read("圣诞节" + outing, DECEMBER_30) == [("圣诞节", "2025-12-25 00:00")]
    assert read("国庆" + outing, NOVEMBER_20) == [("国庆", "2025-10-01 00:00")]
    assert read("周末" + outing, TUESDAY)[0][1] == "2024-11-23 00:00"


FEBRUARY = datetime(2025, 2, 10, 10)  # Christmas seven weeks gone, 国庆 four months


@pytest.mark.parametrize("outing", _TOLD)
def test_an_outing_told_with_how_it_felt_months_on_is_the_last(outing: str) -> None:
    """圣诞节去爬山，好累 said in February read the coming Christmas: an outing told with how it felt was the last
    one only while that was the nearer of the two, days after it."""
    assert read("圣诞节" + outing, FEBRUARY) == [("圣诞节", "2024-12-25 00:00")]
    assert read("国庆" + outing, FEBRUARY) == [("国庆", "2024-10-01 00:00")]


@pytest.mark.parametrize("outing", _AHEAD)
def test_an_outing_looked_forward_to_months_ahead_is_the_coming_one(outing: str) -> None:
    assert read("圣诞节" + outing, FEBRUARY) == [("圣诞节", "2025-12-25 00:00")]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("国庆去云南玩，风景特别好", datetime(2025, 6, 4, 10), ("国庆", "2024-10-01 00:00")),
        ("春节回老家，被催婚", datetime(2024, 12, 20, 10), ("春节", "2024-02-10 00:00")),  # the next 40 days ahead
        ("元旦去爬山，好累", datetime(2025, 6, 4, 10), ("元旦", "2025-01-01 00:00")),
        # unchanged: a plan, the coming one days ahead (a feeling may look forward to it), something booked for it
        ("国庆去云南玩", datetime(2024, 12, 4, 10), ("国庆", "2025-10-01 00:00")),
        ("圣诞节去爬山，好累", datetime(2024, 12, 20, 10), ("圣诞节", "2024-12-25 00:00")),
        ("春节回老家，好开心", datetime(2025, 1, 20, 10), ("春节", "2025-01-29 00:00")),
        ("国庆去云南玩，风景特别好", datetime(2025, 9, 20, 10), ("国庆", "2025-10-01 00:00")),
        ("圣诞节去约会，订了餐厅，超贵", FEBRUARY, ("圣诞节", "2025-12-25 00:00")),
        ("圣诞节加班，好累", FEBRUARY, ("圣诞节", "2025-12-25 00:00")),  # no outing: left as it was
        # a feeling of what is ahead, or what the going costs: the nearer, the coming one months ahead
        ("春节回老家，好烦", datetime(2024, 11, 15, 10), ("春节", "2025-01-29 00:00")),
        ("圣诞节去约会，好紧张", datetime(2024, 11, 10, 10), ("圣诞节", "2024-12-25 00:00")),
        ("七夕去约会，好紧张", datetime(2025, 6, 20, 10), ("七夕", "2025-08-29 00:00")),
        ("国庆去三亚，机票好贵", datetime(2025, 8, 1, 10), ("国庆", "2025-10-01 00:00")),
        ("国庆去云南，太贵了", datetime(2025, 7, 15, 10), ("国庆", "2025-10-01 00:00")),
    ],
)
def test_an_outing_told_with_how_it_went_is_the_last_within_a_year(
    said: str, now: datetime, reading: tuple[str, str]
) -> None:
    assert read(said, now) == [reading]


@pytest.mark.parametrize(
    ("said", "day"),
    [("圣诞节我们去约会了", "2024-12-25"), ("圣诞节的约会取消了", "2024-12-25"), ("圣诞节会下雪", "2025-12-25")],
)
def test_a_festival_told_or_forecast_reads_as_before(said: str, day: str) -> None:
    assert read(said, DECEMBER_30) == [("圣诞节", f"{day} 00:00")]


def test_a_degree_with_no_feeling_tells_nothing_done() -> None:
    assert read("国庆去哈尔滨，有点远", NOVEMBER_20) == [("国庆", "2025-10-01 00:00")]


LATE = datetime(2024, 5, 6, 23)


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("九点上课，我先睡了", LATE, [("九点", "2024-05-07 09:00")]),
        ("九点上课睡觉被老师抓了", LATE, [("九点", "2024-05-06 09:00")]),  # asleep in today's class
        ("八点开会我睡觉去了", LATE, [("八点", "2024-05-07 08:00")]),
        ("九点上课，早点睡", LATE, [("九点", "2024-05-07 09:00")]),
        ("九点开会，我先睡了", LATE, [("九点", "2024-05-07 09:00")]),
        ("九点出发，明天见", LATE, [("九点", "2024-05-07 09:00"), ("明天", "2024-05-07 00:00")]),
        ("九点上班，晚安", datetime(2024, 5, 6, 20), [("九点", "2024-05-07 09:00")]),
        # unchanged: said to come, told done, nothing looking ahead, a day said, said before the late evening
        ("我九点要上班", LATE, [("九点", "2024-05-07 09:00")]),
        ("九点上课，我差点迟到", LATE, [("九点", "2024-05-06 09:00")]),
        ("九点开会了，先睡了", LATE, [("九点", "2024-05-06 21:00")]),
        ("我九点才到公司，累死了，先睡了", LATE, [("九点", "2024-05-06 09:00")]),
        ("我九点到家，先睡了", LATE, [("九点", "2024-05-06 21:00")]),
        ("九点上课", LATE, [("九点", "2024-05-06 09:00")]),
        ("今天九点上课，先睡了", LATE, [("今天九点", "2024-05-06 09:00")]),
        ("九点上课，我先睡了", datetime(2024, 5, 6, 1), [("九点", "2024-05-06 09:00")]),
    ],
)
def test_a_morning_doing_said_before_bed_is_tomorrows(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """九点上课，我先睡了 said at 23:00 read today's 09:00, gone 14 hours, and 九点开会，我先睡了 today's 21:00."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("九点上课我先睡了", LATE, [("九点", "2024-05-07 09:00")]),
        ("九点上班我先睡了", LATE, [("九点", "2024-05-07 09:00")]),
        ("八点开会我先睡了", LATE, [("八点", "2024-05-07 08:00")]),
        ("九点上课我去睡觉了", LATE, [("九点", "2024-05-07 09:00")]),
        ("九点考试我先睡了晚安", LATE, [("九点", "2024-05-07 09:00")]),
        # unchanged: told done before the going to bed, late, overslept, home in the evening, said in the morning
        ("九点上课了我先睡了", LATE, [("九点", "2024-05-06 09:00")]),
        ("九点上课我迟到了", LATE, [("九点", "2024-05-06 09:00")]),
        ("九点上课我睡过头了", LATE, [("九点", "2024-05-06 09:00")]),
        ("我九点到家我先睡了", LATE, [("九点", "2024-05-06 21:00")]),
        ("九点上课我迟到了", datetime(2024, 5, 6, 9, 30), [("九点", "2024-05-06 09:00")]),
        ("九点上课我先睡了", datetime(2024, 5, 6, 1), [("九点", "2024-05-06 09:00")]),
    ],
)
def test_a_morning_doing_said_before_bed_with_no_comma_is_tomorrows(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """九点上课我先睡了 said at 23:00 read today's 09:00 where 九点上课，我先睡了 read tomorrow's: the 了 of going to
    bed, in the class's clause for want of a comma, told the class done."""
    assert read(said, now) == reading


DECEMBER_10 = datetime(2024, 12, 10, 10)  # the 年前 of 2025-01-29 runs
MARCH_10 = datetime(2024, 3, 10, 10)  # 2024-02-10 a month gone


@pytest.mark.parametrize(
    ("said", "now", "days"),
    [
        ("年前忙死了", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        ("年前累死了", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        ("年前太忙了，没空", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        ("年前忙疯了", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        # unchanged: told done, the last 春节 a month gone, a plan
        ("年前我们去了三亚", DECEMBER_10, ("2024-01-11", "2024-02-10")),
        ("年前忙死了，我们去了三亚", DECEMBER_10, ("2024-01-11", "2024-02-10")),
        ("年前忙死了", MARCH_10, ("2024-01-11", "2024-02-10")),
        ("年前要把房子装修完", DECEMBER_10, ("2024-12-10", "2025-01-29")),
    ],
)
def test_a_state_of_now_keeps_the_new_year_running(said: str, now: datetime, days: tuple[str, str]) -> None:
    """年前忙死了 said in December read the last 年前 for its 了: a state of now tells none done."""
    (span,) = find_time_phrases(said, now)
    assert (f"{span.start:%Y-%m-%d}", f"{span.end:%Y-%m-%d}") == days


@pytest.mark.parametrize(
    ("said", "now", "days"),
    [
        ("年前一直在加班", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        ("年前一直很忙", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        ("年前我一直在出差，累死了", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        # unchanged: already running, the last 春节 a month gone, told done by 了 or 那时 or 当时
        ("年前都在出差", DECEMBER_10, ("2024-12-10", "2025-01-29")),
        ("年前一直在加班", MARCH_10, ("2024-01-11", "2024-02-10")),
        ("年前一直加班了一个月", DECEMBER_10, ("2024-01-11", "2024-02-10")),
        ("年前一直在加班，那时候天天熬夜", DECEMBER_10, ("2024-01-11", "2024-02-10")),
        ("年前一直在加班，当时好累", DECEMBER_10, ("2024-01-11", "2024-02-10")),
        ("年前一直在加班，我们去了三亚", DECEMBER_10, ("2024-01-11", "2024-02-10")),
        ("去年年前一直在加班", DECEMBER_10, ("2023-01-01", "2024-01-01")),  # 去年 read, no 年前 of its own
    ],
)
def test_a_doing_going_on_keeps_the_new_year_running(said: str, now: datetime, days: tuple[str, str]) -> None:
    """年前一直在加班 said in December read the last 年前 (January 2024): its 一直 was taken for a telling done,
    while it says the doing runs up to now, in the 年前 under way."""
    (span,) = find_time_phrases(said, now)
    assert (f"{span.start:%Y-%m-%d}", f"{span.end:%Y-%m-%d}") == days


FEBRUARY_2026 = datetime(2026, 2, 10, 20)


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("圣诞节我们去约会了", ("圣诞节", "2025-12-25 00:00")),
        ("圣诞节约会了", ("圣诞节", "2025-12-25 00:00")),
        ("圣诞节和男朋友约会了", ("圣诞节", "2025-12-25 00:00")),
        ("圣诞节那天我们约会了", ("圣诞节", "2025-12-25 00:00")),
        ("圣诞节约会去了迪士尼", ("圣诞节", "2025-12-25 00:00")),
        ("国庆我们去约会了", ("国庆", "2025-10-01 00:00")),
        ("十二月我们去约会了", ("十二月", "2025-12-01 00:00")),
        ("12月25号我们去约会了", ("12月25号", "2025-12-25 00:00")),
        ("十二月大约去了三次", ("十二月", "2025-12-01 00:00")),  # 大约: about, no booking
        # an arrangement made, a plan, a date called off or given up: the coming one, as before
        ("约好了圣诞节去滑雪", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节约了朋友吃饭", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节约好了去滑雪", ("圣诞节", "2026-12-25 00:00")),
        ("我约了朋友圣诞节吃饭", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节约好了一起约会", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节我们要去约会", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节订了餐厅约会", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节的约会取消了", ("圣诞节", "2026-12-25 00:00")),
        ("圣诞节不约会了", ("圣诞节", "2026-12-25 00:00")),
        ("十二月约了体检", ("十二月", "2026-12-01 00:00")),
    ],
)
def test_a_date_had_is_the_last_festival_an_arrangement_the_coming(said: str, reading: tuple[str, str]) -> None:
    """圣诞节我们去约会了 said in February read the coming Christmas: the 约 of 约会 (a date) was taken for one of
    an arrangement (约了朋友), whose 了 speaks of the days ahead."""
    assert read(said, FEBRUARY_2026) == [reading]


@pytest.mark.parametrize(
    ("said", "day"),
    [("周六我们去约会了", "2026-02-07"), ("周六约会了", "2026-02-07"), ("周六约了朋友吃饭", "2026-02-14")],
)
def test_a_date_had_is_the_last_weekday(said: str, day: str) -> None:
    assert read(said, datetime(2026, 2, 11, 20)) == [("周六", f"{day} 00:00")]
