"""A plan for this month or this year said while it runs (finish the course this month, said on the 10th; 我今年要去
日本) made no plan, as only spans starting after it was said were kept: now its days from tomorrow are its date,
as a period's end, a weekend or a week already begun have (plans.to_come, _PERIOD_END)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

TENTH = datetime(2024, 11, 10, 10, 0)
LAST_DAY = datetime(2024, 11, 30, 10, 0)


def plans(text: str, said: datetime = TENTH) -> list[tuple[str, str, str]]:
    language = "en" if text.isascii() else "zh"
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), said, language)
    return [
        (f.object, f"{f.time:%Y-%m-%d}", f.description)
        for f in drafts.facts
        if f.predicate in ("plans", "计划") and f.time is not None
    ]


@pytest.mark.parametrize(
    ("text", "planned", "day"),
    [
        ("I'm going to finish the course this month", "is going to finish the course", "2024-11-11"),
        ("I'm going to travel to Japan this year", "is going to travel to Japan", "2024-11-11"),
        ("我这个月要把课程学完", "要把课程学完", "2024-11-11"),
        ("我本月要搬家", "要搬家", "2024-11-11"),
        ("我今年要去日本", "要去日本", "2024-11-11"),
    ],
)
def test_a_month_or_year_under_way_keeps_its_days_to_come(text: str, planned: str, day: str) -> None:
    assert [(obj, at) for obj, at, _ in plans(text)] == [(planned, day)]


def test_the_days_left_are_shown() -> None:
    assert [shown for _, _, shown in plans("我今年要去日本")] == ["Mumu今年（2024-11-11～2024-12-31）要去日本"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("I finished the course this month", TENTH),  # told done: no plan
        ("我这个月已经把课程学完了", TENTH),
        ("I'm going to finish the course this month", LAST_DAY),  # no day of it left
        ("我这个月要把课程学完", LAST_DAY),
    ],
)
def test_no_plan_when_done_or_no_day_is_left(text: str, said: datetime) -> None:
    assert plans(text, said) == []
