"""An event's place is where its moment is: 老家在湖南长沙 tells where home is, and 下周五公司团建去千岛湖 said in
a talk of now where a trip to come goes. The month's prompt showed "2025-04-05 15点 湖南长沙:木木说：我妈打电话
问我什么时候回家…" and "2025-04-14 9点 千岛湖:木木说：周一好烦…", as if 木木 had talked from there. An event
moved to the time to come (下周五去千岛湖团建) is still at its place."""

from __future__ import annotations

import pytest

from test_extract import make_fold, rules


@pytest.mark.parametrize(
    "lines",
    [
        ["我月底回老家，老家在湖南长沙"],
        ["我老家在湖南长沙"],
        ["今天上班好烦", "下周五公司团建去千岛湖"],
        ["我爸今天住院了，胆结石", "我下周末回长沙看看他"],
    ],
)
def test_a_hometown_or_a_trip_to_come_is_no_place_of_the_talk(lines: list[str]) -> None:
    (event,) = rules(make_fold([("木木", line) for line in lines])).events
    assert event.place == ""


@pytest.mark.parametrize(("line", "place"), [("下周五去千岛湖团建", "千岛湖"), ("我在长沙陪我爸", "长沙")])
def test_an_event_of_the_time_to_come_or_of_now_keeps_its_place(line: str, place: str) -> None:
    (event,) = rules(make_fold([("木木", line)])).events
    assert event.place == place


@pytest.mark.parametrize(
    ("line", "place"), [("下周要考试了，这几天都在图书馆复习", "图书馆"), ("明天开学，今天还在成都玩", "成都")]
)
def test_a_time_to_come_in_a_clause_before_leaves_the_place_of_now(line: str, place: str) -> None:
    """下周要考试了，这几天都在图书馆复习 lost its 图书馆: the time to come is the exam's, not the library's."""
    (event,) = rules(make_fold([("木木", line)])).events
    assert event.place == place


@pytest.mark.parametrize(
    ("rows", "place"),
    [
        ([("木木", "我讨厌下雨天，心情都不好了"), ("祈煜", "下雨天就窝在家里看剧嘛")], ""),
        ([("木木", "今天好累"), ("祈煜", "那你在家里好好休息")], ""),
        ([("祈煜", "你在家里吗"), ("木木", "我在公司加班")], "公司"),
    ],
)
def test_the_agents_own_lines_name_no_place_of_the_event(rows: list[tuple[str, str]], place: str) -> None:
    """A day's entry read "2025-09-08 晚上 家里" from the bot's 下雨天就窝在家里看剧嘛: where the agent
    says one might be is no place the person was; only what the people said places the event."""
    (event,) = rules(make_fold(rows)).events
    assert event.place == place
