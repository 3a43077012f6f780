"""A new job said in Chinese ends the old one: 我是老师 then 我是律师 (or 我现在是律师了) leaves the teacher fact
closed, as a new workplace ends the old. Who one is otherwise (学生, 会员) ends no job, and 我现在是一个人 is no
fact at all."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2026, 3, 2, 10, 0)


def _facts(tmp_path: Path, lines: list[str]) -> dict[str, bool]:
    """Each fact's text -> whether it is still open."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=30)) as memory:
        for at, text in enumerate(lines):
            message = {"id": f"m{at}", "text": text, "time": T0 + timedelta(days=5 * at)}
            memory.add([message], agent="祈煜", person="木木", index=True)
            memory.flush(agent="祈煜", person="木木")
        return {
            fact.text: fact.valid_to is None for fact in memory.memories(agent="祈煜", person="木木", kinds=["fact"])
        }


@pytest.mark.parametrize(
    ("lines", "old", "new"),
    [
        (["我是老师", "我是律师"], "木木是老师", "木木是律师"),
        (["我是一名小学老师", "我现在是律师了"], "木木是一名小学老师", "木木是律师"),
        (["我开花店的", "我现在是程序员"], "木木是开花店的", "木木是程序员"),
    ],
)
def test_a_new_job_closes_the_old(tmp_path: Path, lines: list[str], old: str, new: str) -> None:
    facts = _facts(tmp_path, lines)
    assert facts[old] is False and facts[new] is True


def test_what_one_is_besides_a_job_ends_no_job(tmp_path: Path) -> None:
    facts = _facts(tmp_path, ["我是老师", "我是学生家长", "我现在是一个人"])
    assert facts == {"木木是老师": True, "木木是学生家长": True}


@pytest.mark.parametrize("said", ["开车这事我是老司机了", "我是新手司机"])
def test_how_one_drives_ends_no_job(tmp_path: Path, said: str) -> None:
    facts = _facts(tmp_path, ["我是老师", said])
    assert facts["木木是老师"] is True


@pytest.mark.parametrize(
    ("lines", "old", "new"),
    [
        (["我是老师", "我在律所当律师"], "木木是老师", "木木是律师"),
        (["我是老师", "我转行做律师了"], "木木是老师", "木木是律师"),
    ],
)
def test_a_job_held_closes_the_old(tmp_path: Path, lines: list[str], old: str, new: str) -> None:
    """当律师 and 转行做律师 say a job, as 我是律师 does."""
    facts = _facts(tmp_path, lines)
    assert facts[old] is False and facts[new] is True


def test_a_job_held_at_a_workplace_keeps_the_workplace(tmp_path: Path) -> None:
    facts = _facts(tmp_path, ["我在律所当律师"])
    assert facts == {"木木是律师": True, "木木在律所工作": True}


@pytest.mark.parametrize("said", ["我当过护士", "我想当医生", "我当了三年医生"])
def test_a_job_had_or_wished_for_ends_no_job(tmp_path: Path, said: str) -> None:
    facts = _facts(tmp_path, ["我是老师", said])
    assert facts["木木是老师"] is True


@pytest.mark.parametrize(
    ("lines", "old", "new"),
    [
        (["我是护士", "我现在是护士长了"], "木木是护士", "木木是护士长"),
        (["我是老师", "我是一名美甲师"], "木木是老师", "木木是一名美甲师"),
        (["我是律师", "我是新来的老师"], "木木是律师", "木木是新来的老师"),
        (["我是老师", "我现在当护士长"], "木木是老师", "木木是护士长"),
    ],
)
def test_a_title_off_the_list_closes_the_old(tmp_path: Path, lines: list[str], old: str, new: str) -> None:
    """护士长 and 美甲师 are titles by how they end; 新来的 says which teacher, not whose."""
    facts = _facts(tmp_path, lines)
    assert facts[old] is False and facts[new] is True


@pytest.mark.parametrize(
    "said",
    [
        *("我是超级会员", "我是班长", "我是退休老师", "我是你的老师", "我是打工人", "我当你老师"),
        *("我是群管理员", "我是这个群的管理员", "我是学习委员", "我是巫师", "我在群里当管理员"),
    ],
)
def test_who_one_is_in_a_club_or_to_someone_ends_no_job(tmp_path: Path, said: str) -> None:
    facts = _facts(tmp_path, ["我是老师", said])
    assert facts["木木是老师"] is True


def test_the_field_one_works_in_is_no_second_job(tmp_path: Path) -> None:
    """我是程序员，在杭州做后端: 做后端 read as a job 后端 closed the programmer's one, in the same line."""
    facts = _facts(tmp_path, ["我是程序员，在杭州做后端"])
    assert facts["木木是程序员"] is True and "木木是后端" not in facts


@pytest.mark.parametrize(
    "said", ["我当面问了老师", "我当时在学校当老师", "我做梦都想当医生", "我当天就找了律师", "我当众表扬了老师"]
)
def test_when_and_face_to_face_are_no_job_held(tmp_path: Path, said: str) -> None:
    """当面, 当时, 当天 and 做梦 are other words than 当/做 of a job: 我当面问了老师 was read as a job held,
    木木是面问了老师, and closed the teacher's."""
    facts = _facts(tmp_path, ["我是老师", said])
    assert facts == {"木木是老师": True}


def test_a_job_risen_to_closes_the_old(tmp_path: Path) -> None:
    """我当上了经理 was 木木是上了经理."""
    facts = _facts(tmp_path, ["我是程序员", "我当上了经理"])
    assert facts["木木是程序员"] is False and facts["木木是经理"] is True
