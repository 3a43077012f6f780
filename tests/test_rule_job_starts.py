"""A new job started on a day to come (下周一去新公司上班, 下个月入职新公司): said alone it stored nothing but the
event (我辞职了 before it stored the leaving), so 我现在在哪上班 found the old workplace; now it is a change of
job from that day, and a plan."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import Scope
from huiyi.providers.embed import HashEmbedder
from rule_lines import extract_group, extract_private

SCOPE = Scope.of_person("bot", "木木")
START = datetime(2025, 9, 20, 10)  # a Saturday: 下周一 is the 22nd
MONDAY = datetime(2025, 9, 22)


def work(*texts: str) -> set[tuple[str, str, str, str]]:
    return {
        (fact.subject, fact.predicate, fact.object, fact.description)
        for fact in extract_private(SCOPE, texts, START, "zh").facts
        if fact.predicate in ("换工作", "计划", "工作于")
    }


@pytest.mark.parametrize(
    ("text", "joined", "act", "shown"),
    [
        ("下周一去新公司上班", "新公司", "去新公司上班", "下周一（2025-09-22）去新公司上班"),
        ("下个月入职新公司", "新公司", "入职新公司", "下个月（2025-10-01～2025-10-31）入职新公司"),
        ("下周去新单位报到", "新单位", "去新单位报到", "下周（2025-09-22～2025-09-28）去新单位报到"),
        ("下周一起去新公司上班", "新公司", "去新公司上班", "下周一（2025-09-22）起去新公司上班"),
        ("10月8号去新单位报到", "新单位", "去新单位报到", "10月8号（2025-10-08）去新单位报到"),
        ("下周一开始新工作", "新工作", "开始新工作", "下周一（2025-09-22）开始新工作"),
        ("从下周一开始我就在新公司上班了", "新公司", "在新公司上班", "从下周一（2025-09-22）开始就在新公司上班了"),
    ],
)
def test_a_start_at_a_new_job_is_a_change_and_a_plan(text: str, joined: str, act: str, shown: str) -> None:
    assert work(text) == {("木木", "换工作", joined, f"木木换工作：{shown}"), ("木木", "计划", act, f"木木{shown}")}


@pytest.mark.parametrize(
    ("text", "act", "shown"),
    [
        ("明天就入职了，有点紧张", "入职", "明天（2025-09-21）就入职了"),
        ("下周一去公司入职", "去公司入职", "下周一（2025-09-22）去公司入职"),
    ],
)
def test_a_bare_start_is_a_plan_of_the_job_told_before(text: str, act: str, shown: str) -> None:
    """拿到offer了！杭州那家游戏公司 … 明天就入职了: the job is the offer's, still the newest fact of work."""
    assert work(text) == {("木木", "计划", act, f"木木{shown}")}


def test_the_change_holds_from_the_day_said() -> None:
    found = extract_private(SCOPE, ("下周一去新公司上班",), START, "zh").facts
    change = next(fact for fact in found if fact.predicate == "换工作")
    assert (change.time, change.keyword) == (MONDAY, "工作")


def test_after_a_leaving_the_start_is_told_too() -> None:
    facts = {fact[1:3] for fact in work("我辞职了，下周一去新公司上班")}
    assert facts == {("换工作", "新公司"), ("计划", "去新公司上班")}


def test_with_me_the_plan_is_told_once() -> None:
    """我下周一… is read by the plan rules already: one plan, and the change beside it."""
    assert work("我下周一入职字节") == {
        ("木木", "计划", "入职字节", "木木下周一（2025-09-22）入职字节"),
        ("木木", "换工作", "字节", "木木换工作：下周一（2025-09-22）入职字节"),
    }


@pytest.mark.parametrize(
    "text",
    [
        "我老公下周一去新公司上班",  # his
        "我老公辞职了，下周一去新公司上班",  # the clause before opens on him
        "他下周一去新公司上班",
        "下周一去新公司上班吗",  # a question
        "你下周一去新公司上班？",
        "下周一不去新公司上班了",  # not going
        "如果下周一去新公司上班就好了",  # a wish
        "他说下周一去新公司上班",  # his words
        "上周一去新公司报到了",  # a day gone
        "下周一去新公司面试",  # no job yet
        "下周一去网易上班",  # as often the week's commute
        "下周一入职培训",  # training, no employer
        "下周一去新公司上班，哈哈骗你的",
    ],
)
def test_no_job_change_of_mine_without_my_start_at_a_new_job(text: str) -> None:
    assert not [fact for fact in work(text) if fact[:2] == ("木木", "换工作")]


def test_a_start_left_without_me_in_a_group_is_nobodys() -> None:
    """下周一去新公司上班 in a group may answer 你老公呢: whose is not said."""
    group = Scope.of_space("bot", "g1")
    lines = [("阿杰", "你老公呢"), ("小美", "在呢"), ("木木", "下周一去新公司上班")]
    found = extract_group(group, lines, START).facts
    assert [fact for fact in found if fact.predicate == "换工作"] == []


def test_where_i_work_now_finds_the_change(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: START + timedelta(days=3)) as memory:
        lines = ["我在网易工作", "今天好累", "下周一去新公司上班"]
        messages = [{"id": f"m{i}", "text": text, "time": START + timedelta(hours=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        now = memory.recall("我现在在哪上班", agent="祈煜", person="木木")
    assert now.hits[0].text == "木木换工作：下周一（2025-09-22）去新公司上班"
    assert now.info["slot"] == now.hits[0].id
