"""Facts members state about each other in a group chat (issue 13): 舟舟是急诊科护士 is 王一舟's, even
when nobody has said 舟舟 is 王一舟; a question, a name or the agent teaches nothing."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction, FactDraft, Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.flows.extract.rules.roster import Roster
from huiyi.model import Message, Scope, ScopeKind

SPACE = "space:qq"
SCOPE = Scope(agent="小助手", kind=ScopeKind.SPACE, key="qq")
MEMBERS = ["林晚晴", "王一舟", "方圆", "苏霓", "顾北辰", "陈大川", "陈大海"]


def extract(*said: tuple[str, str]) -> Extraction:
    # every member speaks once first (a group's roster is who speaks), then the lines under test
    lines = [(name, "大家好呀") for name in MEMBERS] + list(said)
    messages = [
        Message(
            id=f"m{i}",
            agent="小助手",
            space=SPACE,
            scope=SCOPE,
            speaker=speaker,
            role="user",
            text=text,
            time=datetime(2024, 11, 14, 10, i),
        )
        for i, (speaker, text) in enumerate(lines)
    ]
    return RuleExtractor().extract_sync(Fold(agent="小助手", space=SPACE, scope=SCOPE, messages=messages))


def facts_of(extraction: Extraction) -> set[tuple[str, str]]:
    return {(fact.subject, fact.description) for fact in extraction.facts}


def test_a_member_introduced_by_nickname_gets_the_fact() -> None:
    found = facts_of(extract(("林晚晴", "舟舟是急诊科护士，刚下夜班在睡觉；圆圆是一名程序员")))
    assert ("王一舟", "王一舟是急诊科护士") in found
    assert ("方圆", "方圆是一名程序员") in found
    assert not any(subject == "林晚晴" for subject, _ in found)


def test_a_member_named_in_full_gets_the_fact() -> None:
    found = facts_of(extract(("林晚晴", "苏霓在文三路一所初中教英语")))
    assert ("苏霓", "苏霓在文三路一所初中教英语") in found


@pytest.mark.parametrize(
    "text",
    [
        "舟舟是急诊科护士吗",  # a question
        "霓霓就是苏霓",  # an alias, not a fact
        "霓霓是小苏",  # a name
        "舟舟是真的辛苦",  # no noun: a remark
        "小助手是个机器人",  # the agent
        "陈哥是程序员",  # 陈哥 could be 陈大川 or 陈大海: nobody's
        "大家好呀舟舟是护士",  # no name at the clause's start
    ],
)
def test_no_fact_about_anyone_else(text: str) -> None:
    found = facts_of(extract(("林晚晴", text)))
    assert not found, found


def test_a_nickname_is_resolved_only_when_one_person_gives_it() -> None:
    fold = Fold(
        agent="小助手",
        space=SPACE,
        scope=SCOPE,
        messages=[],
        aliases={"陈大川": [], "陈大海": [], "王一舟": [], "苏霓": ["霓霓"]},
    )
    roster = Roster.of(fold)
    assert roster.nicknamed("舟舟") == "王一舟" and roster.nicknamed("川哥") == "陈大川"
    assert roster.nicknamed("陈哥") is None  # two people's
    assert roster.nicknamed("霓霓") is None  # a name already: resolve() reads it


# --- plans a member states about themself, with a time still to come


def plans_of(*said: tuple[str, str]) -> dict[str, FactDraft]:
    return {fact.description: fact for fact in extract(*said).facts if fact.keyword == "计划"}


def test_a_plan_with_a_relative_date_is_a_fact_of_the_speaker_at_that_date() -> None:
    plans = plans_of(("顾北辰", "提前跟大家说一声，我下周一飞大阪"), ("陈大川", "顺便说一下，这周六我搬家"))
    assert set(plans) == {"顾北辰下周一（2024-11-18）飞大阪", "陈大川这周六（2024-11-16）搬家"}
    trip = plans["顾北辰下周一（2024-11-18）飞大阪"]
    assert trip.subject == "顾北辰" and trip.time == datetime(2024, 11, 18)  # about then, said on the 14th


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        # the clauses after it with no subject of their own say how long and when back
        (
            "我下周一飞大阪，自由行十天，月底回来。有要带药妆零食的提前说",
            "顾北辰下周一（2024-11-18）飞大阪，自由行十天，月底（2024-11-21～2024-11-30）回来",
        ),
        # the talk turns to something else: the chain stops
        ("这周六我搬家，搬去未来科技城那边，公司上个月搬过去了", "顾北辰这周六（2024-11-16）搬家"),
        # 三个晚上 counts nights: no date for it
        (
            "后天我跟几个老伙计去千岛湖钓鱼，住三个晚上，钓到大鱼给你们发照片",
            "顾北辰后天（2024-11-16）跟几个老伙计去千岛湖钓鱼，住三个晚上",
        ),
    ],
)
def test_a_plan_carries_on_in_the_clauses_that_drop_its_subject(text: str, plan: str) -> None:
    assert set(plans_of(("顾北辰", text))) == {plan}


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        # an aside that opens the line stayed in the fact (顾北辰对了下个月…), and 话说's 说 read as reported speech
        ("对了我下个月要搬去杭州了", "顾北辰下个月（2024-12-01～2024-12-31）要搬去杭州了"),
        ("话说我下周要去北京", "顾北辰下周（2024-11-18～2024-11-24）要去北京"),
        ("嗯嗯我周日去爬山", "顾北辰周日（2024-11-17）去爬山"),
        # an emoji is the line's tone, not the plan
        ("我周六要加班去不了😭", "顾北辰周六（2024-11-16）要加班去不了"),
    ],
)
def test_a_plan_is_told_without_the_asides_and_emoji_of_its_line(text: str, plan: str) -> None:
    assert set(plans_of(("顾北辰", text))) == {plan}


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        # an aside cut from the start of more words left them torn: 顾北辰个秘密下周…要结婚了
        ("告诉你个秘密我下周要结婚了", "顾北辰下周（2024-11-18～2024-11-24）要结婚了"),
        ("跟你说个好消息我下周要去北京", "顾北辰下周（2024-11-18～2024-11-24）要去北京"),
        ("嗯嗯对了我下周要去北京", "顾北辰下周（2024-11-18～2024-11-24）要去北京"),
    ],
)
def test_an_aside_is_cut_whole_or_not_at_all(text: str, plan: str) -> None:
    assert set(plans_of(("顾北辰", text))) == {plan}


@pytest.mark.parametrize(
    ("text", "plan"),
    [
        # the clause's conjunction stayed in the fact: 顾北辰可国庆…要去云南玩
        ("她说国庆让我回去，可我国庆要去云南玩", "顾北辰国庆（2025-10-01）要去云南玩"),
        ("本来想休息，但是我下周要去北京", "顾北辰下周（2024-11-18～2024-11-24）要去北京"),
        ("不过下周我要去北京", "顾北辰下周（2024-11-18～2024-11-24）要去北京"),
        ("所以我周日去爬山", "顾北辰周日（2024-11-17）去爬山"),
    ],
)
def test_a_plan_is_told_without_the_conjunction_that_opens_its_clause(text: str, plan: str) -> None:
    assert set(plans_of(("顾北辰", text))) == {plan}


@pytest.mark.parametrize(
    "text",
    [
        "下周六杭州中到大雨",  # no 我: whose plan?
        "话说他下周一要去北京",  # 他: someone else's
        "我们下周六去九溪",  # 我们: the group's
        "下周一你飞大阪吗",  # a question
        "他说下周一我得去接他",  # reported
        "我昨天去了西湖",  # past
        "我下周一是值班的",  # no doing
    ],
)
def test_no_plan_fact(text: str) -> None:
    assert not [fact for fact in extract(("顾北辰", text)).facts if fact.keyword == "计划"]


def test_the_agents_own_promises_are_no_member_plans() -> None:
    lines = [("苏霓", "@小助手 明晚七点聚餐，到时候提醒一下大家"), ("小助手", "好的，明晚六点半我会在群里提醒大家聚餐")]
    assert not [fact for fact in extract(*lines).facts if fact.keyword == "计划"]
