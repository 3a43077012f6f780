"""A job once held (我在谷歌工作过三年) is no workplace now: stored as one, it was told to the chat model
as where the person works, and closed the job they have."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope, ScopeKind

SCOPE = Scope(agent="祈煜", kind=ScopeKind.PERSON, key="木木")


def described(text: str) -> set[str]:
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
    return {fact.description for fact in RuleExtractor().extract_sync(fold).facts}


@pytest.mark.parametrize("text", ["我在谷歌工作过", "我在腾讯工作过三年", "我在医院当过护士", "我在少年宫教过小提琴"])
def test_a_job_once_held_is_no_workplace(text: str) -> None:
    assert not any("工作" in fact or "教" in fact for fact in described(text)), described(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我在鼓楼医院上班", "木木在鼓楼医院工作"),
        ("我在医院当护士", "木木在医院工作"),
        ("我在少年宫教小提琴", "木木在少年宫教小提琴"),
        ("我现在在腾讯实习", "木木在腾讯工作"),
    ],
)
def test_a_job_held_now_still_is(text: str, fact: str) -> None:
    assert fact in described(text)
