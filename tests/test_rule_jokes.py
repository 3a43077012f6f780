"""A line the speaker takes back as a joke (我喜欢猫，开玩笑的; I live in Paris lol jk) is no fact about them:
the chat model would be told it as true. What is said in earnest, or after the retraction, still is."""

from __future__ import annotations

import pytest

# one message of 木木 to 祈煜, extracted by the rules
from test_rule_subjects import extract


def described(text: str) -> set[str]:
    return {fact.description for fact in extract(text).facts}


@pytest.mark.parametrize(
    "text",
    [
        "我喜欢猫，开玩笑的",
        "我是医生，骗你的",
        "我住在上海，逗你的",
        "我是秦始皇，开玩笑的",
        "我喜欢加班才怪",
        "我明天去北京，骗你的",
        "I live in Paris lol jk",
        "I'm a doctor, just kidding",
        "I like cats, NOT",
    ],
)
def test_what_a_joke_takes_back_is_no_fact(text: str) -> None:
    assert not extract(text).facts, described(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我喜欢猫", "木木喜欢猫"),
        ("我不是开玩笑的，我喜欢猫", "木木喜欢猫"),
        ("开玩笑的，其实我在杭州上班", "木木在杭州工作"),
        ("我喜欢开玩笑", "木木喜欢开玩笑"),
        ("I'm not kidding. I live in Paris", "木木 lives in Paris"),
        ("I like tea, not coffee", "木木 likes tea, not coffee"),
        ("我明天去北京", "木木明天（2024-11-16）去北京"),
    ],
)
def test_what_is_said_in_earnest_still_is(text: str, fact: str) -> None:
    assert fact in described(text)
