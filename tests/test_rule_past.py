"""A job once held (我在谷歌工作过三年) is no workplace now: stored as one, it was told to the chat model
as where the person works, and closed the job they have."""

from __future__ import annotations

import pytest

from test_rule_subjects import extract


def described(text: str) -> set[str]:
    return {fact.description for fact in extract(text).facts}


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
