"""A clock hour of today in a sentence telling it done is no plan. The trial's 我晚上九点下班，刚到家 said at
20:03 stored 木木晚上九点（2025-09-01 21:00）下班: home already, the nine is when work usually ends, not a
plan for 21:00; and 我晚上八点半下班了 at 20:20 tells loosely what just happened."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

_SCOPE = Scope.of_person("bot", "木木")


def _plans(text: str, hour: int, minute: int) -> list[str]:
    extraction = extract_private(_SCOPE, (text,), datetime(2025, 9, 1, hour, minute), "zh")
    return [fact.description for fact in extraction.facts if fact.predicate == "计划"]


@pytest.mark.parametrize(
    ("text", "hour", "minute"),
    [
        ("我晚上九点下班，刚到家", 20, 3),
        ("我晚上九点下班，已经到家了", 20, 3),
        ("我晚上八点半下班了", 20, 20),
        ("我晚上八点半已经下班", 20, 20),
        ("我八点半刚到家", 20, 20),
    ],
)
def test_an_hour_told_done_is_no_plan(text: str, hour: int, minute: int) -> None:
    assert _plans(text, hour, minute) == []


@pytest.mark.parametrize(
    ("text", "hour", "minute", "plan"),
    [
        ("我晚上九点下班，下班后去找你", 20, 3, "木木晚上九点（2025-09-01 21:00）下班"),
        ("我晚上九点要开会，刚到公司", 20, 3, "木木晚上九点（2025-09-01 21:00）要开会"),
        ("我晚上九点到家，刚下地铁", 20, 3, "木木晚上九点（2025-09-01 21:00）到家"),
        ("我晚上十点下班了", 20, 3, "木木晚上十点（2025-09-01 22:00）下班了"),
        ("我明天九点出发了", 20, 3, "木木明天九点（2025-09-02 09:00）出发了"),
    ],
)
def test_an_hour_ahead_of_what_is_done_stays_a_plan(text: str, hour: int, minute: int, plan: str) -> None:
    """A sequel to come, an intent, a step done before the plan, or an hour well ahead keep it."""
    assert _plans(text, hour, minute) == [plan]
