"""A job change told done in a chat (我跳槽去网易了, 入职字节了, 我换工作了，现在在美团) read no job: the rule for a
move to a workplace wanted 一家…公司. It is the new workplace now, and the old one ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_rule_subjects import described, extract
from test_zh_job_change import _facts


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我跳槽去网易了", "木木换到网易工作"),
        ("跳槽去网易了", "木木换到网易工作"),
        ("我跳槽到网易了！", "木木换到网易工作"),
        ("我入职字节了", "木木换到字节工作"),
        ("我已经入职腾讯了", "木木换到腾讯工作"),
        ("今天正式入职字节啦", "木木换到字节工作"),
        ("我换工作了，现在在美团", "木木换到美团工作"),
        ("我跳槽了，去了网易", "木木换到网易工作"),
        ("拿到阿里的offer了", "木木换到阿里工作"),  # as 我拿到阿里的offer了 (patterns.ZH_OFFER_RULE)
    ],
)
def test_a_job_change_told_done_is_the_new_workplace(text: str, fact: str) -> None:
    assert fact in described(extract(text)), described(extract(text))


@pytest.mark.parametrize(
    "text",
    [
        "我想跳槽去网易",
        "要不要跳槽去网易",
        "我下个月入职字节",
        "我明天入职字节了",
        "你跳槽去网易了吗",
        "他跳槽去网易了",
        "小美呢，跳槽去网易了",
        "我去公司上班了",
        "我没跳槽去网易",
        "如果我跳槽去网易了，就能涨薪",
        "我跳槽去网易了哈哈哈哈开玩笑的",
    ],
)
def test_a_job_change_wished_planned_asked_or_of_another_is_no_workplace(text: str) -> None:
    # a start to come is a change of job from its day (rules.job_starts: 木木换工作：下个月…入职字节), no workplace now
    facts = [fact for fact in described(extract(text)) if not fact.startswith("木木换工作：")]
    assert not any("工作" in fact and fact.startswith("木木") for fact in facts), facts


def test_a_job_change_planned_stays_a_plan() -> None:
    facts = described(extract("我下个月入职字节"))
    assert any("入职字节" in fact for fact in facts) and "木木换到字节工作" not in facts, facts


@pytest.mark.parametrize("said", ["我跳槽去网易了", "入职字节了", "我换工作了"])
def test_a_job_change_ends_the_old_workplace(tmp_path: Path, said: str) -> None:
    facts = _facts(tmp_path, ["我在阿里工作", said])
    assert facts["木木在阿里工作"] is False, facts


@pytest.mark.parametrize("said", ["我去公司上班了", "我去阿里上班了", "我到阿里上班了"])
def test_going_to_work_ends_no_workplace(tmp_path: Path, said: str) -> None:
    # 我去阿里上班了 is said on the way to the job one has: it ended 在阿里工作 for 换到阿里工作, a change never made
    facts = _facts(tmp_path, ["我在阿里工作", said])
    assert facts == {"木木在阿里工作": True}, facts


@pytest.mark.parametrize(
    "said", ["入职体检做完了", "我入职三个月了", "入职快一年了", "我入职第一天就被骂了", "入职手续办好了"]
)
def test_how_long_ago_or_a_step_of_joining_is_no_new_workplace(tmp_path: Path, said: str) -> None:
    """我入职三个月了 and 入职体检做完了 were 木木换到三个月工作 and 木木换到体检做完工作 and ended 木木在阿里工作
    (since 2aef8e2 入职…了 is a change): a time since joining or a step of it names no employer."""
    facts = _facts(tmp_path, ["我在阿里工作", said])
    assert facts == {"木木在阿里工作": True}


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        # the change ends the old workplace, but where one went or is now is no new one
        ("我跳槽了，去了趟北京出差", {"木木在阿里工作": False}),
        ("我跳槽了，现在在家休息", {"木木在阿里工作": False}),
        # a new post at the employer one has ends nothing
        ("我换了份工作，还在阿里", {"木木在阿里工作": True}),
    ],
)
def test_the_clause_after_a_change_names_no_workplace_it_is_not(
    tmp_path: Path, said: str, facts: dict[str, bool]
) -> None:
    """我跳槽了，去了趟北京出差 was 木木换到趟北京出差工作 and 我跳槽了，现在在家休息 木木换到家休息工作, and
    我换了份工作，还在阿里 ended 木木在阿里工作 (since 2aef8e2)."""
    assert _facts(tmp_path, ["我在阿里工作", said]) == facts
