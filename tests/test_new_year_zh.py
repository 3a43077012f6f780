"""年前 and 年后 are the time before and after the coming Spring Festival: 年前要把房子装修完 and 年后换工作 were read
as no time at all, and stored no plan (rules path, no LLM)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope, ScopeKind
from huiyi.text.times import find_time_phrases
from rule_lines import extract_private

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")
DECEMBER = datetime(2024, 12, 4, 15, 0)  # the coming 春节 is 2025-01-29, the last 2024-02-10
AFTER_SPRING = datetime(2025, 2, 10, 10, 0)  # twelve days after it
MARCH = datetime(2025, 3, 10, 10, 0)  # the next is 2026-02-17


def read(text: str, now: datetime) -> list[tuple[str, str, str]]:
    return [(span.phrase, f"{span.start:%Y-%m-%d}", f"{span.end:%Y-%m-%d}") for span in find_time_phrases(text, now)]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("年前要把房子装修完", DECEMBER, [("年前", "2024-12-04", "2025-01-29")]),
        ("争取年前搞定", MARCH, [("年前", "2025-03-10", "2026-02-17")]),
        ("年后换工作", DECEMBER, [("年后", "2025-01-29", "2025-02-28")]),
        ("我打算过完年后再说", DECEMBER, [("年后", "2025-01-29", "2025-02-28")]),
        ("年后换工作", AFTER_SPRING, [("年后", "2025-01-29", "2025-02-28")]),  # under way
        # told done: the last one's
        ("年前我们去了三亚", DECEMBER, [("年前", "2024-01-11", "2024-02-10")]),
        # another word's 年: no Spring Festival
        ("三年前我在北京", DECEMBER, [("三年前", "2021-01-01", "2022-01-01")]),
        ("很多年后", DECEMBER, []),
        ("成年后就搬出去了", DECEMBER, []),
    ],
)
def test_before_and_after_the_new_year_are_around_the_coming_spring_festival(
    said: str, now: datetime, reading: list[tuple[str, str, str]]
) -> None:
    assert read(said, now) == reading


def test_the_rules_plan_before_and_after_the_new_year() -> None:
    found = extract_private(SCOPE, ("我年前要把房子装修完", "我打算年后换工作"), DECEMBER).facts
    assert [f.description for f in found if f.predicate == "计划"] == [
        "木木年前（2024-12-05～2025-01-28）要把房子装修完",
        "木木打算年后（2025-01-29～2025-02-27）换工作",
    ]


@pytest.mark.parametrize(
    ("said", "now", "reading"),
    [
        ("他比我小一岁，年后就满三十了", DECEMBER, [("年后", "2025-01-29", "2025-02-28")]),
        ("年后一直在加班，累死了", MARCH, [("年后", "2025-01-29", "2025-02-28")]),
        # unchanged: 就…了 near the last one, told done in the clause, or looking ahead in the sentence
        ("年后我就辞职了", MARCH, [("年后", "2025-01-29", "2025-02-28")]),
        ("年前我们去了三亚", DECEMBER, [("年前", "2024-01-11", "2024-02-10")]),
        ("年后换工作，我已经想好了", DECEMBER, [("年后", "2025-01-29", "2025-02-28")]),
    ],
)
def test_the_new_year_told_by_its_sentence(said: str, now: datetime, reading: list[tuple[str, str, str]]) -> None:
    """年后就满三十了 said in December read the 年后 ten months gone (its 了), and 年后一直在加班，累死了 in March
    the one a year ahead (the 了 in the next clause): 就…了 says what will then be when the last 春节 is long
    gone, and a sentence's 了 or 一直 tells the new year done when nothing in it looks ahead."""
    assert read(said, now) == reading
