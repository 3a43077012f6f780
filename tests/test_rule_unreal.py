"""A dream or a wish with a time still to come (我梦到我明天去北京, 我要是下周去上海就好了) is no plan:
stored as one, it was dated and told to the chat model as what the person will do."""

from __future__ import annotations

import pytest

from test_rule_subjects import extract


def plans(text: str) -> set[str]:
    return {fact.description for fact in extract(text).facts if fact.predicate == "计划"}


@pytest.mark.parametrize("text", ["我梦到我明天去北京", "我梦见自己下周飞大阪", "我要是下周去上海就好了"])
def test_a_dream_or_a_wish_is_no_plan(text: str) -> None:
    assert not plans(text)


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        ("我下周一飞大阪", "木木下周一（2024-11-18）飞大阪"),
        ("我明天跟他去北京", "木木明天（2024-11-16）跟他去北京"),
        ("我跟他说好了明天去北京", "木木跟他说好了明天（2024-11-16）去北京"),
    ],
)
def test_a_plan_still_is(text: str, plan: str) -> None:
    assert plan in plans(text)
