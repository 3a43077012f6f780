"""A dream or a wish with a time still to come (我梦到我明天去北京, 我要是下周去上海就好了) is no plan:
stored as one, it was dated and told to the chat model as what the person will do."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope, ScopeKind

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")


def plans(text: str) -> set[str]:
    message = Message(
        id="m0",
        agent="祈煜",
        space="person:木木",
        scope=SCOPE,
        speaker="木木",
        role="user",
        text=text,
        time=datetime(2024, 11, 15, 20, 0),
    )
    fold = Fold(agent="祈煜", space="person:木木", scope=SCOPE, messages=[message], person="木木")
    return {fact.description for fact in RuleExtractor().extract_sync(fold).facts if fact.predicate == "计划"}


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
