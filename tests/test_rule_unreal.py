"""A dream or a wish with a time still to come (我梦到我明天去北京, 我要是下周去上海就好了) is no plan:
stored as one, it was dated and told to the chat model as what the person will do. Nor is a wish, a
dream, a game or a song (希望我住在上海, 梦里我是亿万富翁, 歌词：我是一只小小鸟) a fact about them."""

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


def described(text: str) -> set[str]:
    return {fact.description for fact in extract(text).facts}


@pytest.mark.parametrize(
    "text",
    [
        "希望我住在上海",
        "好希望我是医生",
        "但愿我住在上海",
        "我住在上海就好了",
        "我住在上海该多好",
        "梦里我是亿万富翁",
        "梦中我住在城堡里",
        "下辈子我是亿万富翁",
        "上辈子我是公主",
        "游戏里我是法师",
        "想象一下我是亿万富翁",
        "歌词：我是一只小小鸟",
    ],
)
def test_a_wish_a_dream_a_game_or_a_song_is_no_fact(text: str) -> None:
    assert not extract(text).facts, described(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我是医生", "木木是医生"),
        ("我住在上海", "木木住在上海"),
        ("我喜欢做梦", "木木喜欢做梦"),
        ("我在游戏公司上班", "木木在游戏公司工作"),
        ("我希望你开心，我住在上海", "木木住在上海"),
    ],
)
def test_a_plain_fact_still_is(text: str, fact: str) -> None:
    assert fact in described(text)
