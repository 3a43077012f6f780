"""The speaker's new job told by what it is (新公司在滨江, 做产品经理): after 我辞职了，下周一去新公司上班 only
木木辞职了 was stored, so 我现在在哪上班 found nothing of the new job."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction
from huiyi.model import Scope
from rule_lines import extract_private

SCOPE = Scope.of_person("bot", "木木")
START = datetime(2025, 9, 20, 10)


def extract(*texts: str) -> Extraction:
    return extract_private(SCOPE, texts, START, "zh")


def work(*texts: str) -> set[tuple[str, str, str, str]]:
    return {
        (fact.subject, fact.predicate, fact.object, fact.description)
        for fact in extract(*texts).facts
        if fact.predicate in ("工作于", "职业是")
    }


def test_where_the_new_job_is_and_the_role_are_facts() -> None:
    assert work("我辞职了，下周一去新公司上班", "新公司在滨江，做产品经理") == {
        ("木木", "工作于", "滨江", "木木换到滨江工作"),
        ("木木", "职业是", "产品经理", "木木是产品经理"),
    }


def test_the_new_workplace_ends_the_old() -> None:
    """换到, as a 跳槽 says it: ``moves.moved`` closes the workplace told before (木木在网易工作)."""
    extraction = extract("我在网易上班", "新公司在滨江")
    assert ("木木", "工作于", "滨江", "木木换到滨江工作") in work("我在网易上班", "新公司在滨江")
    assert any(close.predicate == "工作于" and close.sources == ["m1"] for close in extraction.closes)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我辞职了，下周一去新公司上班，当产品经理", ("职业是", "产品经理", "木木是产品经理")),
        ("新工作是做产品经理", ("职业是", "产品经理", "木木是产品经理")),
        ("我的新公司是网易", ("工作于", "网易", "木木换到网易工作")),
        ("新单位在西湖区那边", ("工作于", "西湖区", "木木换到西湖区工作")),
    ],
)
def test_a_new_job_said_by_what_it_is(text: str, expected: tuple[str, str, str]) -> None:
    assert work(text) == {("木木", *expected)}


@pytest.mark.parametrize(
    "text",
    [
        "我闺蜜换工作了，新公司在滨江，做产品经理",  # hers
        "如果新公司在滨江就好了",  # a wish
        "新公司在滨江吗",  # a question
        "新公司在装修",  # what goes on there
        "新公司在家附近",  # no place of work named
        "做产品经理",  # no new job before it
        "新公司在哪",
    ],
)
def test_no_new_job_fact_without_the_speaker_telling_where_or_what(text: str) -> None:
    assert work(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我在网易做产品经理", {("工作于", "网易", "木木在网易工作"), ("职业是", "产品经理", "木木是产品经理")}),
        ("我跳槽去字节了", {("工作于", "字节", "木木换到字节工作")}),
        (
            "新公司在滨江，我做产品经理",
            {("工作于", "滨江", "木木换到滨江工作"), ("职业是", "产品经理", "木木是产品经理")},
        ),
    ],
)
def test_jobs_told_with_me_stay_as_they_were_once(text: str, expected: set[tuple[str, str, str]]) -> None:
    assert work(text) == {("木木", *fact) for fact in expected}
