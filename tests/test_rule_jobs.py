"""What the rules take for a job: one's work at a place, not what one did there once, nor someone else's job
(issue 17, a companion month tried as an app would: 我在医院做了个胃镜 became 木木's job and closed the real one)."""

from __future__ import annotations

import pytest

from test_rule_subjects import extract


def jobs(text: str) -> set[str]:
    return {fact.description for fact in extract(text).facts if fact.keyword == "工作"}


@pytest.mark.parametrize(
    "text",
    [
        "我在医院做了个胃镜",
        "我在医院做检查，排了好久的队",
        "我在咖啡店写论文",
        "我在医院上班的闺蜜说没事",
        "我在医院上班的时候天天熬夜",
        "我在学校做完作业才回家",
    ],
)
def test_what_one_did_at_a_place_once_or_someone_elses_job_is_no_job(text: str) -> None:
    assert not jobs(text), jobs(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("我现在在网易做UI设计师", "木木在网易工作"),
        ("我在字节跳动做产品经理", "木木在字节跳动工作"),
        ("我在网易当UI设计师", "木木在网易工作"),
        ("我在一家做跨境电商的公司做数据分析", "木木在一家做跨境电商的公司做数据分析"),
        ("我在少年宫教小提琴", "木木在少年宫教小提琴"),
        ("我在鼓楼医院上班", "木木在鼓楼医院工作"),
    ],
)
def test_a_job_by_its_place_or_its_title(text: str, fact: str) -> None:
    assert fact in jobs(text), jobs(text)


@pytest.mark.parametrize(
    "text",
    [
        "我在网易做过UI设计师",
        "我在家做饭",
        "我在家当了一天保姆的时候",
        # the 做 of what the company does: the fact was 木木在一家给美妆品牌工作
        "我在一家给美妆品牌做代运营的公司，天天写小红书文案",
    ],
)
def test_no_title_or_a_past_one_is_no_job(text: str) -> None:
    assert not jobs(text), jobs(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # a 的 that stresses the job (是…的) left 我在网易做设计师的 and its like with no workplace
        ("我在网易做设计师的", "木木在网易工作"),
        ("我在腾讯做运营的呀", "木木在腾讯工作"),
        ("我在阿里做程序员的，很累", "木木在阿里工作"),
        # the workplace was 字节做产品经理的
        ("我在字节做产品经理的工作", "木木在字节工作"),
    ],
)
def test_a_job_told_with_a_closing_de_is_still_the_job(text: str, fact: str) -> None:
    assert jobs(text) == {fact}, jobs(text)
