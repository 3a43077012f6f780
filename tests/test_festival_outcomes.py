"""What came of a festival's plan says which festival is meant: 国庆的票都卖完了 said in September was dated the
National Day a year gone (its 了 read as done), though what sells out is for the one to come; and 圣诞节约了她，去约会了
said in January was dated the Christmas eleven months ahead (its 约 read as an arrangement for one to come), though
去约会了 tells the date had."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from huiyi.text.times import find_time_phrases, query_time_range
from rule_lines import extract_private


def first_day(text: str, now: datetime) -> str:
    return f"{find_time_phrases(text, now)[0].start:%Y-%m-%d}"


SEPTEMBER = datetime(2025, 9, 10, 20)
IN_IT = datetime(2025, 10, 5, 20)
NOVEMBER = datetime(2025, 11, 10, 20)


@pytest.mark.parametrize(
    "text",
    ["国庆的票都卖完了", "国庆的酒店都满房了", "国庆的票售罄了", "国庆的高铁票没票了", "国庆的票一票难求"],
)
def test_what_sold_out_before_a_festival_is_for_the_coming_one(text: str) -> None:
    assert first_day(text, SEPTEMBER) == "2025-10-01"
    assert first_day(text, IN_IT) == "2025-10-01"  # the one running
    assert first_day(text, NOVEMBER) == "2025-10-01"  # the one gone


def test_what_sold_out_is_stored_with_the_coming_festival() -> None:
    extraction = extract_private(Scope.of_person("bot", "木木"), ("国庆的票都卖完了",), SEPTEMBER)
    assert [event.text for event in extraction.events] == ["木木说：国庆（2025-10-01）的票都卖完了。"]
    assert extraction.facts == []  # nobody's plan


@pytest.mark.parametrize(
    ("text", "now", "day"),
    [
        ("春节的火车票都卖光了", datetime(2026, 1, 10, 20), "2026-02-17"),
        ("十月的票都卖完了", SEPTEMBER, "2025-10-01"),  # a month, read by the same words
        ("周五票都卖完了", SEPTEMBER, "2025-09-12"),  # and a weekday (said on a Wednesday)
        # the nearer of the two: in December the coming Christmas, in January the one just gone
        ("圣诞节的票都卖完了", datetime(2025, 12, 10, 20), "2025-12-25"),
        ("圣诞节的票都卖完了", datetime(2026, 1, 5, 20), "2025-12-25"),
        ("平安夜的电影票都卖光了", datetime(2026, 1, 5, 20), "2025-12-24"),
        # near misses: the going told done is at the one gone, whatever sold out
        ("国庆的票都卖完了，最后没去成", SEPTEMBER, "2024-10-01"),
        ("国庆的票都卖完了，最后没去成", NOVEMBER, "2025-10-01"),
        ("国庆的票都卖完了，去不了了", SEPTEMBER, "2025-10-01"),  # can't go: still the coming one
        ("国庆去了云南", SEPTEMBER, "2024-10-01"),
        ("国庆的票买了", SEPTEMBER, "2025-10-01"),
        # sold out at a time gone, not for one: 那天, 上次, 的时候 say when it sold out
        ("国庆那天景区门票都卖光了", SEPTEMBER, "2024-10-01"),
        ("上次国庆票都卖光了", SEPTEMBER, "2024-10-01"),
        ("国庆的时候景区门票都卖光了", SEPTEMBER, "2024-10-01"),
    ],
)
def test_sold_out_and_near_misses(text: str, now: datetime, day: str) -> None:
    assert first_day(text, now) == day


JANUARY = datetime(2026, 1, 5, 20)


@pytest.mark.parametrize(
    ("text", "now", "day"),
    [
        ("圣诞节约了她，去约会了", JANUARY, "2025-12-25"),
        ("圣诞节订了餐厅，去吃了大餐，最后回家了", JANUARY, "2025-12-25"),
        # near misses
        ("圣诞节约了她，去约会了", datetime(2025, 12, 27, 20), "2025-12-25"),
        ("圣诞节约了她", datetime(2025, 12, 20, 20), "2025-12-25"),
        ("圣诞节去约会，好期待", datetime(2025, 12, 27, 20), "2026-12-25"),
        ("圣诞节约了她，要去约会了", datetime(2025, 12, 20, 20), "2025-12-25"),
        ("我订了春节的机票，结果航班取消了", datetime(2025, 2, 3, 10), "2025-01-29"),
        ("国庆回家的票买好了", SEPTEMBER, "2025-10-01"),
        ("国庆订了票，去了云南", NOVEMBER, "2025-10-01"),
        # the going done at a time of its own is not the festival's: 约了 her for the one ahead
        ("圣诞节约了她，昨天去看电影了", datetime(2025, 12, 20, 20), "2025-12-25"),
        ("圣诞节约了她，去看电影了", datetime(2025, 12, 20, 20), "2024-12-25"),  # told done before it: the last
    ],
)
def test_a_going_told_done_is_at_the_festival_gone(text: str, now: datetime, day: str) -> None:
    assert first_day(text, now) == day


def test_a_date_had_is_stored_with_the_christmas_gone() -> None:
    extraction = extract_private(Scope.of_person("bot", "木木"), ("圣诞节约了她，去约会了",), JANUARY)
    assert [event.text for event in extraction.events] == ["木木说：圣诞节（2025-12-25）约了她，去约会了。"]


def test_a_question_of_a_date_had_asks_of_the_christmas_gone() -> None:
    asked = query_time_range("圣诞节约了她，去约会了", JANUARY)
    assert asked is not None and f"{asked.start:%Y-%m-%d}" == "2025-12-25"
    planned = query_time_range("圣诞节打算去哪", JANUARY)  # a plan asked of: the coming one, as before
    assert planned is not None and f"{planned.start:%Y-%m-%d}" == "2026-12-25"
