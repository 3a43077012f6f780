"""A bare hour of a doing that has its half of the day: arriving at work or school is the morning's, a bar, a
night out or dinner the evening's. 今天我九点到公司 said at noon read 21:00, and 我八点去酒吧 said at 07:30
read 08:00, each the nearer or the one ahead of the two."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope, ScopeKind
from huiyi.text.hours_zh import on_a_day_said
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")
EARLY, NOON, AFTERNOON, NIGHT = (
    datetime(2024, 12, 4, hour, minute) for hour, minute in ((7, 30), (12, 0), (15, 0), (22, 0))
)


def read(text: str, now: datetime) -> list[tuple[str, str]]:
    return [(span.phrase, f"{span.start:%m-%d %H:%M}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize("now", [NOON, AFTERNOON, NIGHT])
@pytest.mark.parametrize(
    ("said", "phrase"),
    [
        ("我九点到公司", "九点"),
        ("我八点半到的单位", "八点半"),
        ("我九点上班", "九点"),
        ("我平时九点到公司", "九点"),
        ("今天我九点到学校，门还没开", "九点"),
    ],
)
def test_an_arrival_at_work_or_school_is_the_mornings(said: str, phrase: str, now: datetime) -> None:
    [(found, when)] = [reading for reading in read(said, now) if reading[0] != "今天"]
    assert found == phrase and when.endswith(("09:00", "08:30"))
    assert when.startswith("12-04")


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # to come: the next morning one
        ("我九点要上班", NOON, [("九点", "12-05 09:00")]),
        ("我九点要上班", EARLY, [("九点", "12-04 09:00")]),
        ("明天九点到公司", NIGHT, [("明天九点", "12-05 09:00")]),
        ("今天八点到的公司", NOON, [("今天八点", "12-04 08:00")]),
        # a bar, a night out, dinner: the evening's
        ("我八点去酒吧", EARLY, [("八点", "12-04 20:00")]),
        ("我八点去酒吧", NIGHT, [("八点", "12-05 20:00")]),
        ("昨天八点去酒吧", NOON, [("昨天八点", "12-03 20:00")]),
        ("今天九点去KTV唱歌", EARLY, [("今天九点", "12-04 21:00")]),
        ("我六点吃晚饭", EARLY, [("六点", "12-04 18:00")]),
        ("晚饭九点吃的", NOON, [("九点", "12-03 21:00")]),
        ("我九点上夜班", EARLY, [("九点", "12-04 21:00")]),
        # unchanged: a part of the day said, a small hour of a bar, a doing of no half
        ("早上八点去酒吧", NOON, [("早上八点", "12-04 08:00")]),
        ("我三点才从酒吧出来", EARLY, [("三点", "12-04 03:00")]),
        ("我九点上线", NOON, [("九点", "12-04 21:00")]),
        ("我九点下班", AFTERNOON, [("九点", "12-04 21:00")]),
        ("我十点去公司加班", AFTERNOON, [("十点", "12-04 22:00")]),
        ("我九点去学校接孩子", AFTERNOON, [("九点", "12-04 21:00")]),
    ],
)
def test_a_doing_with_its_half_of_the_day_reads_that_half(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    assert read(said, now) == reading


def test_the_rules_date_an_arrival_told_at_noon_in_the_morning() -> None:
    """The reported line: the plan drawn from it was dated 21:00, ahead, though it tells the morning."""
    extraction = extract_private(SCOPE, ("今天我九点到公司，老板还没来",), NOON)
    about = [fact.about for fact in extraction.facts] + [event.about for event in extraction.events]
    assert "2024-12-04 21:00" not in about
    assert "今天我九点（2024-12-04 09:00）到公司" in extraction.events[0].text


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        # a night's work said before: its arrival is the evening's
        ("我上夜班，九点到单位", NOON, [("九点", "12-04 21:00")]),
        ("我在酒吧上班，九点上班", AFTERNOON, [("九点", "12-04 21:00")]),
        # a day said before in the clause: that day's
        ("昨天我九点到公司，老板还没来", AFTERNOON, [("昨天", "12-03 00:00"), ("九点", "12-03 09:00")]),
        ("昨天我们九点吃的晚饭", NOON, [("昨天", "12-03 00:00"), ("九点", "12-03 21:00")]),
        ("昨天晚会九点才结束", NIGHT, [("昨天", "12-03 00:00"), ("九点", "12-03 21:00")]),
    ],
)
def test_a_night_work_or_a_day_said_before_the_doing_is_kept(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我上夜班，九点到单位 at noon read 09:00 (it was 21:00, the one ahead), and 昨天我九点到公司，老板还没来 at 15:00
    today's 09:00, 昨天我们九点吃的晚饭 at noon tonight's 21:00: the doing's half was put on a day of its own."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我九点下班", EARLY, [("九点", "12-04 21:00")]),
        ("我六点下班", EARLY, [("六点", "12-04 18:00")]),
        ("我今天八点下班", NOON, [("今天八点", "12-04 20:00")]),
        ("我九点上班五点下班", EARLY, [("九点", "12-04 09:00"), ("五点", "12-04 17:00")]),
        ("我八点去公司接待客户", NOON, [("八点", "12-04 08:00")]),
        # a night's work ends in the morning (it read 20:00, the nearer); a bar's late at night
        ("我上夜班，八点下班", AFTERNOON, [("八点", "12-04 08:00")]),
        ("我在酒吧上班，九点下班", AFTERNOON, [("九点", "12-04 21:00")]),
    ],
)
def test_leaving_work_is_the_evenings(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """我九点下班 said at 07:30 read 09:00 and 我今天八点下班 08:00 at any hour (the nearer, the day's first): a bare
    hour of leaving work is the evening's, unless a night's work is said (我上夜班，八点下班)."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我们九点吃的晚饭", NOON, [("九点", "12-03 21:00")]),
        ("我们九点吃的晚饭", EARLY, [("九点", "12-03 21:00")]),
        ("我九点到的公司", EARLY, [("九点", "12-03 09:00")]),
        ("我九点坐的车", AFTERNOON, [("九点", "12-04 09:00")]),
        # unchanged: no doing told by the 的, a thing of that time
        ("九点多的车", AFTERNOON, [("九点", "12-04 21:00")]),
        ("九点场的电影", AFTERNOON, [("九点", "12-04 21:00")]),
    ],
)
def test_a_doing_told_done_with_its_object_after_the_de_is_the_one_begun(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我们九点吃的晚饭 said at noon read tonight's 21:00, still ahead, and 我九点坐的车 at 15:00 21:00: a 是…的 whose
    object comes after the 的 tells a thing done as one at the clause's end does (晚饭九点吃的)."""
    assert read(said, now) == reading


EVENING = datetime(2024, 12, 4, 18, 0)


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我九点才下班", EVENING, [("九点", "12-04 21:00")]),
        ("我九点才下班", NOON, [("九点", "12-04 21:00")]),
        ("今天八点才能下班", NOON, [("今天八点", "12-04 20:00")]),
        ("昨天我十点才下班", NOON, [("昨天", "12-03 00:00"), ("十点", "12-03 22:00")]),
    ],
)
def test_leaving_work_late_is_the_evenings(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """才下班 says work ended late: as 我九点下班 at 07:30 reads 21:00, so does 我九点才下班 at noon or at 18:00
    (the 才 of not until then is no morning's doing told done)."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("学校八点到十一点上课", AFTERNOON, [("八点", "12-04 08:00"), ("十一点", "12-04 11:00")]),
        ("我们九点到十一点半上课", NIGHT, [("九点", "12-04 09:00"), ("十一点半", "12-04 11:30")]),
        ("我九点要上课", AFTERNOON, [("九点", "12-05 09:00")]),
        # unchanged: an online class or tutoring, as often the evening's; a part of the day said
        ("我八点上网课", AFTERNOON, [("八点", "12-04 20:00")]),
        ("晚上七点到九点上课", NOON, [("晚上七点", "12-04 19:00"), ("九点", "12-04 21:00")]),
    ],
)
def test_school_hours_are_the_mornings(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """学校八点到十一点上课 said at 15:00 read 20:00 to 23:00, the nearer of each clock: class is of the morning,
    as arriving at school is."""
    assert read(said, now) == reading


def test_the_rules_date_school_hours_in_the_morning() -> None:
    extraction = extract_private(SCOPE, ("学校八点到十一点上课",), AFTERNOON)
    assert "八点（2024-12-04 08:00）到十一点（2024-12-04 11:00）上课" in extraction.events[0].text


FRIDAY_AFTERNOON = datetime(2024, 12, 6, 15, 0)


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("如果九点还没到公司，就帮我请假", AFTERNOON, [("九点", "12-05 09:00")]),
        ("要是八点半还没到学校就给我打电话", NIGHT, [("八点半", "12-05 08:30")]),
        ("如果九点还没到公司", FRIDAY_AFTERNOON, [("九点", "12-09 09:00")]),  # the next working morning
        ("我九点要上班", FRIDAY_AFTERNOON, [("九点", "12-09 09:00")]),
        # unchanged: said in the morning, still ahead; told, not set as a condition; a condition of no doing
        ("如果九点还没到公司", EARLY, [("九点", "12-04 09:00")]),
        ("我九点到公司", EARLY, [("九点", "12-04 09:00")]),
        ("我九点到公司", AFTERNOON, [("九点", "12-04 09:00")]),
        ("如果三点他还不来，就别等了", NOON, [("三点", "12-04 15:00")]),
    ],
)
def test_an_arrival_set_as_a_condition_is_the_next_working_morning(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """如果九点还没到公司 said in the afternoon read 09:00 that day, gone: a condition speaks of a time ahead, and
    arriving at the office of the next working morning."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我八点上课", datetime(2024, 12, 4, 19, 0), [("八点", "12-04 20:00")]),
        ("我七点上课", datetime(2024, 12, 4, 18, 30), [("七点", "12-04 19:00")]),
        ("夜校八点上课", AFTERNOON, [("八点", "12-04 20:00")]),
        ("我报了个夜校，八点上课", AFTERNOON, [("八点", "12-04 20:00")]),
        # unchanged: school's class, said before school is out, or told done
        ("学校八点到十一点上课", AFTERNOON, [("八点", "12-04 08:00"), ("十一点", "12-04 11:00")]),
        ("我们九点到十一点半上课", NIGHT, [("九点", "12-04 09:00"), ("十一点半", "12-04 11:30")]),
        ("我八点去学校上课", datetime(2024, 12, 4, 19, 0), [("八点", "12-04 08:00")]),
        ("我八点上课的", datetime(2024, 12, 4, 19, 0), [("八点", "12-04 08:00")]),
    ],
)
def test_a_class_at_night_school_or_still_ahead_in_the_evening_is_the_evenings(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我八点上课 said at 19:00 read 08:00 that morning, gone, and 夜校八点上课 08:00: a class is of the morning as
    school is, but not at night school, nor when its evening hour is still ahead after school is out."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("要是九点到公司就好了", AFTERNOON, [("九点", "12-04 09:00")]),
        ("如果当时九点到公司就不会迟到了", AFTERNOON, [("九点", "12-04 09:00")]),
        # unchanged: a condition ahead
        ("如果九点还没到公司，就帮我请假", AFTERNOON, [("九点", "12-05 09:00")]),
        ("如果三点他还不来，就别等了", NOON, [("三点", "12-04 15:00")]),
    ],
)
def test_a_condition_wished_undone_is_not_ahead(said: str, now: datetime, reading: list[tuple[str, str]]) -> None:
    """要是九点到公司就好了 said at 15:00 read tomorrow's 09:00: a condition wishing a thing gone otherwise (就好了,
    当时…就不会) speaks of the day told of, not of one to come."""
    assert read(said, now) == reading


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("我周末加班，九点要到公司", FRIDAY_AFTERNOON, [("周末", "12-07 00:00"), ("九点", "12-07 09:00")]),
        ("我们单休，我九点要上班", FRIDAY_AFTERNOON, [("九点", "12-07 09:00")]),
        # unchanged: no work of the weekend said, the next working morning
        ("我九点要上班", FRIDAY_AFTERNOON, [("九点", "12-09 09:00")]),
    ],
)
def test_one_who_works_the_weekend_comes_in_the_next_day(
    said: str, now: datetime, reading: list[tuple[str, str]]
) -> None:
    """我周末加班，九点要到公司 said on a Friday afternoon read Monday 09:00: the working morning to come skips the
    weekend only for one who does not say they work it (加班, 单休, 周末)."""
    assert read(said, now) == reading


def test_a_day_said_before_a_clock_is_looked_for_a_sentence_back() -> None:
    """Each clock looked back over every phrase of its text for a day it lies in: 九点上课我先睡了， said 6,000
    times took 4 s, four times what 3,000 took. A day said within 200 characters is still its day."""
    saturday = (datetime(2024, 11, 16), datetime(2024, 11, 17))
    five = (datetime(2024, 11, 16, 5), datetime(2024, 11, 16, 6))
    nine = (datetime(2024, 11, 13, 9), datetime(2024, 11, 13, 10))
    assert on_a_day_said(five, [(0, 2, saturday), (10, 12, nine)], 20)
    far_back = [(0, 2, saturday)] + [(at, at + 2, nine) for at in range(300, 1000, 10)]
    assert not on_a_day_said(five, far_back, 1000)
    assert read("周六一早五点要出发", datetime(2024, 11, 16, 15)) == [("周六", "11-16 00:00"), ("五点", "11-16 05:00")]
