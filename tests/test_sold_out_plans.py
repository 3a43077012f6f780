"""What is told sold out is nobody's plan: "I tried but flights are all booked for Christmas" stored "Mia tried but
flights are all booked for Christmas" as Mia's plan, and 我发现国庆的票都被抢光了 木木's; the speaker's own
bookings (I booked flights for Christmas, 我订了国庆回家的高铁票) stay plans, and so does a plan beside the sold
out (I booked flights for Christmas before they sold out, 我国庆去云南，酒店都订满了)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

NOVEMBER = datetime(2025, 11, 20, 20)
SEPTEMBER = datetime(2025, 9, 20, 10)


def plans(text: str, language: str) -> list[str]:
    scope = Scope.of_person("bot", "Mia" if language == "en" else "木木")
    extraction = extract_private(scope, (text,), NOVEMBER if language == "en" else SEPTEMBER, language)
    return [fact.description for fact in extraction.facts if fact.predicate in ("plans", "计划")]


CHRISTMAS = "for Christmas (2025-12-25)"


@pytest.mark.parametrize(
    "text",
    [
        "Flights are all booked for Christmas",
        "I tried but flights are all booked for Christmas",
        "I checked and the flights are all booked for Christmas",
        "I'm flying home but flights are all booked for Christmas",
        "I'm flying home for Christmas but flights are all booked",
        "I wanted to book the inn for Christmas, but it's fully booked.",
        "I looked, all booked for Christmas",
        "I found the flights all booked for Christmas",
        "I heard flights are all booked for Christmas",
        "I think flights are booked up for Christmas",
        "I checked, tickets are sold out for Friday",
        "Emma is flying home for Christmas but flights are all booked",
        "I'm all booked for Christmas",
    ],
)
def test_nothing_sold_out_is_a_plan(text: str) -> None:
    assert plans(text, "en") == []


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        ("I booked flights for Christmas", [f"Mia booked flights {CHRISTMAS}"]),
        ("I booked flights for Christmas before they sold out", [f"Mia booked flights {CHRISTMAS}"]),
        ("I booked flights for Christmas, but hotels are all full", [f"Mia booked flights {CHRISTMAS}"]),
        ("I got the last room for Christmas, everything else is full", [f"Mia got the last room {CHRISTMAS}"]),
        ("I'm flying home for Christmas, my flights are all booked", [f"Mia is flying home {CHRISTMAS}"]),
        ("I'm going to the sold out show on Friday", ["Mia is going to the sold out show on Friday (2025-11-21)"]),
        ("I'm going to the concert on Friday, it's sold out", ["Mia is going to the concert on Friday (2025-11-21)"]),
        ("The gym is full on Monday, so I'm going Tuesday", ["Mia is going Tuesday (2025-11-25)"]),
        (
            "I'm off to Rome on Monday, and I wanted to book the inn for Christmas but it's full",
            ["Mia is off to Rome on Monday (2025-11-24)"],
        ),
    ],
)
def test_a_plan_beside_what_is_sold_out_stays(text: str, plan: list[str]) -> None:
    assert plans(text, "en") == plan


@pytest.mark.parametrize(
    "text",
    ["我发现国庆的票都被抢光了", "我想订国庆的机票结果都订满了", "我查了国庆的机票都卖光了", "我国庆回家的票买不到了"],
)
def test_nothing_sold_out_is_a_plan_in_chinese(text: str) -> None:
    assert plans(text, "zh") == []


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        ("我订了国庆回家的高铁票", ["木木订了国庆（2025-10-01）回家的高铁票"]),
        ("我国庆去云南，酒店都订满了", ["木木国庆（2025-10-01）去云南"]),
        ("我下周六要去抢票", ["木木下周六（2025-09-27）要去抢票"]),
    ],
)
def test_a_plan_beside_what_is_sold_out_stays_in_chinese(text: str, plan: list[str]) -> None:
    assert plans(text, "zh") == plan
