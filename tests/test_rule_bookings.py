"""A trip booked with a time to come is the speaker's plan: 云南的机票订好了，10月2号早上七点的飞机 stored only its
event, so 我哪天去云南来着 found no plan."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

SCOPE = Scope.of_person("bot", "木木")
START = datetime(2025, 9, 20, 10)  # a Saturday


def plans(*texts: str) -> set[tuple[str, str, str, datetime | None]]:
    return {
        (fact.subject, fact.object, fact.description, fact.time)
        for fact in extract_private(SCOPE, texts, START, "zh").facts
        if fact.predicate == "计划"
    }


@pytest.mark.parametrize(
    ("text", "obj", "description", "time"),
    [
        (
            "云南的机票订好了，10月2号早上七点的飞机",
            "飞机去云南",
            "木木10月2号早上七点（2025-10-02 07:00）的飞机去云南，机票已订好",
            datetime(2025, 10, 2, 7),
        ),
        (
            "去成都的高铁票抢到了，下周六出发",
            "高铁去成都",
            "木木下周六（2025-09-27）的高铁去成都，高铁票已订好",
            datetime(2025, 9, 27),
        ),
        ("酒店订好了，下周五入住", "酒店", "木木下周五（2025-09-26）的酒店已订好", datetime(2025, 9, 26)),
        ("国庆回家的票买好了", "回家", "木木国庆（2025-10-01）回家，票已订好", datetime(2025, 10, 1)),
        # a place with a character a person's word has (学, 公) is still a place: whose is read by kin words
        (
            "回学校的车票买好了，下周六出发",
            "回学校",
            "木木下周六（2025-09-27）回学校，车票已订好",
            datetime(2025, 9, 27),
        ),
    ],
)
def test_a_booked_trip_with_a_time_to_come_is_a_plan(text: str, obj: str, description: str, time: datetime) -> None:
    assert plans(text) == {("木木", obj, description, time)}


@pytest.mark.parametrize(
    "text",
    [
        "机票订好了",  # no time
        "上周订好了机票",  # the booking's time, gone by
        "我妈的机票订好了，10月2号的飞机",  # someone else's
        "帮我妈订了机票，10月2号的飞机",
        "我们的机票订好了，10月2号的飞机",  # whose?
        "我男朋友的机票订好了，10月2号的飞机",
        "同事的车票买好了，下周六出发",
        "机票还没订，10月2号的飞机",  # not done
        "机票订好了吗，10月2号的飞机",  # a question
        "彩票买了，明天开奖",  # no trip
    ],
)
def test_no_plan_without_the_speaker_booking_a_trip_to_come(text: str) -> None:
    assert plans(text) == set()


def test_a_plan_said_with_its_booking_is_stored_once() -> None:
    assert plans("我下周一飞大阪，机票订好了") == {
        ("木木", "飞大阪", "木木下周一（2025-09-22）飞大阪", datetime(2025, 9, 22))
    }
