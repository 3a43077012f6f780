"""What a plan's 我 and time are followed by: a time said as a while (我过年的时候去三亚), or a thing done the
tagger has no verb for (我下周五团建, 我周六聚餐), is the plan's act as a verb is."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.flows.extract import Fold
from huiyi.flows.extract.closes import to_close
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope, ScopeKind
from rule_lines import extract_private
from test_rule_cancels import SCOPE as SCOPE_HZ
from test_rule_cancels import plan

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


@pytest.mark.parametrize(
    ("said", "plan"),
    [
        ("我下周五团建", "木木下周五（2024-09-27）团建"),  # 团建 is tagged an adjective
        ("下周五我团建", "木木下周五（2024-09-27）团建"),
        ("我下周五公司团建", "木木下周五（2024-09-27）公司团建"),
        ("我下周五团建去千岛湖", "木木下周五（2024-09-27）团建去千岛湖"),
        ("我周六聚餐", "木木周六（2024-09-21）聚餐"),  # 聚餐 a noun
        ("我周六部门聚餐哦", "木木周六（2024-09-21）部门聚餐哦"),
        ("我周六同学聚会", "木木周六（2024-09-21）同学聚会"),
        ("我下周五年会", "木木下周五（2024-09-27）年会"),
        ("我周六婚礼", "木木周六（2024-09-21）婚礼"),
        ("我国庆自驾游", "木木国庆（2024-10-01）自驾游"),  # an idiom
        ("我周六剧本杀", "木木周六（2024-09-21）剧本杀"),
        ("我周六开黑", "木木周六（2024-09-21）开黑"),
        ("我国庆自驾", "木木国庆（2024-10-01）自驾"),
    ],
)
def test_a_thing_done_the_tagger_has_no_verb_for_is_a_plans_act(said: str, plan: str) -> None:
    """我下周五团建 stored no plan: 团建 is tagged an adjective, 聚餐 a noun, so no act was found."""
    assert plans(said) == [plan]


@pytest.mark.parametrize(
    "said",
    ["我明天自由", "我明天忙碌", "明天我男朋友来", "明天是我男朋友", "我周六聚餐了", "我明天心情不好", "我们周六聚餐"],
)
def test_how_one_is_whose_and_a_thing_done_are_no_plan(said: str) -> None:
    # an adjective of how one is, a noun right after 我 (whose), said done, or a group's (gatherings reads it)
    assert plans(said) == []


def test_a_members_thing_done_in_a_group_is_their_plan() -> None:
    group = Scope.of_space("祈煜", "g1")
    lines = [
        Message(id=f"m{i}", agent="祈煜", space=group.space_id, scope=group, speaker=who, role="user", text=text,
                time=SEPTEMBER + timedelta(minutes=i), seq=i)
        for i, (who, text) in enumerate([("阿杰", "我下周五团建"), ("小雨", "我周六聚餐")])
    ]  # fmt: skip
    found = RuleExtractor().extract_sync(Fold(agent="祈煜", space=group.space_id, scope=group, messages=lines)).facts
    assert sorted((f.subject, f.description) for f in found if f.predicate == "计划") == [
        ("小雨", "小雨周六（2024-09-21）聚餐"),
        ("阿杰", "阿杰下周五（2024-09-27）团建"),
    ]


def said_by_chen(text: str, now: datetime) -> Fold:
    line = Message(id="m0", agent="小助手", space=SCOPE_HZ.space_id, scope=SCOPE_HZ, speaker="陈大川", role="user",
                   text=text, time=now, seq=0)  # fmt: skip
    return Fold(agent="小助手", space=SCOPE_HZ.space_id, scope=SCOPE_HZ, messages=[line])


@pytest.mark.parametrize(
    ("made", "off", "now"),
    [
        ("我过年回老家", "今年过年不回家了", datetime(2024, 12, 10, 10)),
        ("我过年打算回家", "过年不回去了", datetime(2024, 12, 10, 10)),
        ("我过年回老家", "我过年不回家了", datetime(2025, 1, 20, 10)),
        ("我下周五团建", "团建取消了", datetime(2024, 12, 10, 10)),
        ("我周六聚餐", "周六的聚餐取消了", datetime(2024, 12, 10, 10)),
    ],
)
def test_a_plan_these_words_make_is_closed_by_its_call_off(made: str, off: str, now: datetime) -> None:
    made_plans = [f for f in RuleExtractor().extract_sync(said_by_chen(made, now)).facts if f.predicate == "计划"]
    trip = plan(made_plans[0].description).model_copy(update={"time": made_plans[0].time})
    spoken = said_by_chen(off, now + timedelta(days=2))
    assert [i for i, _ in to_close([trip], RuleExtractor().extract_sync(spoken).closes, spoken)] == ["fa_old"]


@pytest.mark.parametrize(
    ("said", "plan"),
    [
        ("下周三要考驾照，好紧张", "木木下周三（2024-09-25）要考驾照"),
        ("周末和闺蜜去露营，好期待", "木木周末（2024-09-21～2024-09-22）和闺蜜去露营"),
        ("对了，周六得去医院复查", "木木周六（2024-09-21）得去医院复查"),
        ("下个月准备去趟成都", "木木下个月（2024-10-01～2024-10-31）准备去趟成都"),
    ],
)
def test_a_plan_said_without_its_subject_in_a_private_chat_is_the_speakers(said: str, plan: str) -> None:
    """下周三要考驾照 stored no plan, only 我下周三要考驾照 did: a chat drops the 我 the private chat makes plain."""
    assert plans(said) == [plan]


@pytest.mark.parametrize(
    "said",
    [
        "明天要下雨了",  # the weather's
        "周六要降温",
        "下周六杭州中到大雨",  # no intent
        "明晚的事定了",
        "周末和平时不一样",  # 和 leads to no going
        "下周三要考驾照吗",  # a question
        "如果周六要加班就不去了",  # supposed
    ],
)
def test_a_subjectless_clause_that_tells_no_intent_is_no_plan(said: str) -> None:
    assert plans(said) == []


@pytest.mark.parametrize(
    "said",
    [
        "我已经跟她说国庆不回去了",
        "我打算周六不去了",
        "我决定明天不上班了",
        "我想了想下周还是不去了",
        "我跟老板说明天没空",
    ],
)
def test_a_time_followed_by_not_doing_is_no_plan(said: str) -> None:
    """我已经跟她说国庆不回去了 stored the plan 木木已经跟她说国庆（…）不回去了: only a 不 right after 我 told
    nothing planned, not one after the time the words before it lead to."""
    assert plans(said) == []
