"""What a plan's 我 and time are followed by: a time said as a while (我过年的时候去三亚), or a thing done the
tagger has no verb for (我下周五团建, 我周六聚餐), is the plan's act as a verb is."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope, ScopeKind
from rule_lines import extract_private

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")
SEPTEMBER = datetime(2024, 9, 18, 10, 0)  # a Wednesday: this Saturday is 09-21, next Friday 09-27


def plans(said: str, now: datetime = SEPTEMBER) -> list[str]:
    return [f.description for f in extract_private(SCOPE, (said,), now).facts if f.predicate == "计划"]


@pytest.mark.parametrize(
    ("said", "plan"),
    [
        ("我周六的时候去爬山", "木木周六（2024-09-21）的时候去爬山"),
        ("我国庆的时候回老家", "木木国庆（2024-10-01）的时候回老家"),
        ("我中秋的时候可能回家", "木木中秋（2024-09-17）的时候可能回家"),
    ],
)
def test_a_time_said_as_a_while_is_a_plans_time(said: str, plan: str) -> None:
    """我春节的时候去三亚 stored no plan: 的时候 was read as the act."""
    assert plans(said, SEPTEMBER if "中秋" not in said else datetime(2024, 9, 10, 10)) == [plan]
