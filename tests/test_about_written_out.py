"""A memory's time words are read against its time; a plan's time is the day it is about, so a relative
phrase whose date extraction wrote after it (下周三（2024-11-06）) would name a week later if read again."""

from __future__ import annotations

from datetime import date, datetime

from huiyi.model import MemoryItem, MemoryKind, Scope, ScopeKind
from huiyi.recall import timerange


def _fact(text: str, time: datetime) -> MemoryItem:
    scope = Scope(agent="a", kind=ScopeKind.PERSON, key="p")
    return MemoryItem(id=f"f{len(text)}", scope=scope, kind=MemoryKind.FACT, text=text, time=time)


def test_a_phrase_followed_by_its_written_date_names_that_date_only() -> None:
    plan = _fact("木木下周三（2024-11-06）要去面试", datetime(2024, 11, 6))
    days = {start.date() for start, _ in timerange.about(plan)}
    assert days == {date(2024, 11, 6)}  # not 11-13, 下周三 read against the plan's own day


def test_an_english_span_written_after_its_phrase_names_no_month_after_it() -> None:
    plan = _fact("Nate has got a gaming tournament next month (2022-05-01～2022-05-31)", datetime(2022, 5, 1))
    assert {start.date() for start, _ in timerange.about(plan)} == {date(2022, 5, 1), date(2022, 5, 31)}  # no June


def test_a_phrase_with_no_date_after_it_is_still_read() -> None:
    event = _fact("木木下周三要去面试", datetime(2024, 10, 30))
    assert date(2024, 11, 6) in {start.date() for start, _ in timerange.about(event)}


def test_a_part_of_a_day_written_by_its_date_names_that_part_of_the_date() -> None:
    # 明晚（2024-11-15）: the date alone is written (5c9f525), but the memory is of the evening, not the whole day
    event = _fact("小满说：明晚（2024-11-15）带一盒去烧烤", datetime(2024, 11, 14, 18))
    assert timerange.about(event) == [(datetime(2024, 11, 15, 18), datetime(2024, 11, 16))]
    morning = _fact("江橘说：我帮你挂个早上（2024-11-14）的号", datetime(2024, 11, 13, 19))
    assert timerange.about(morning) == [(datetime(2024, 11, 14, 6), datetime(2024, 11, 14, 10))]


def test_an_english_part_of_a_day_written_by_its_date_names_that_part() -> None:
    # English writes a space before its date (tomorrow evening (2025-03-19)): it was read as the whole day
    plan = _fact("Liz is meeting Jake tomorrow evening (2025-03-19)", datetime(2025, 3, 19, 18))
    assert timerange.about(plan) == [(datetime(2025, 3, 19, 18), datetime(2025, 3, 20))]
    event = _fact("Liz said: Last night (2025-03-17) was amazing", datetime(2025, 3, 18, 19, 30))
    assert timerange.about(event) == [(datetime(2025, 3, 17, 18), datetime(2025, 3, 18))]


def test_each_phrase_is_read_where_it_is_said() -> None:
    # the first 晚上 has no date after it and is the evening said; the second is the one written (reviewer's find)
    event = _fact("木木说：晚上吃饭，晚上（2024-11-14）看电影", datetime(2024, 11, 13, 9))
    assert timerange.about(event) == [
        (datetime(2024, 11, 13, 18), datetime(2024, 11, 14)),
        (datetime(2024, 11, 14, 18), datetime(2024, 11, 15)),
    ]
