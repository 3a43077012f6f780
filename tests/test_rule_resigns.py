"""A job left (我辞职了, 我从网易离职了, 我被裁员了, I quit my job) is a fact of its own and closes the speaker's
open workplace facts, so 我现在在哪上班 no longer finds the old workplace first (rules.resigns, recall.slots)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2025, 2, 10, 21, 0)


def open_memory(path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=30))


def chat(memory: Memory, lines: list[str]) -> dict[str, datetime | None]:
    """Each line a day apart; the facts read (text -> valid_to)."""
    messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
    memory.add(messages, agent="祈煜", person="木木", index=True)
    memory.flush(agent="祈煜", person="木木")
    return {f.text: f.valid_to for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("我辞职了！", "木木辞职了"),
        ("今天终于从网易离职了", "木木从网易离职了"),
        ("我把工作辞了", "木木辞职了"),
        ("唉，我被裁员了", "木木被裁员了"),
        ("我被公司开除了", "木木被开除了"),
        ("我失业了", "木木失业了"),
        ("我裸辞两个月了", "木木辞职了"),
        ("终于辞职了！", "木木辞职了"),
    ],
)
def test_a_job_left_closes_the_workplace_and_is_a_fact(tmp_path: Path, said: str, fact: str) -> None:
    with open_memory(tmp_path) as memory:
        facts = chat(memory, ["我在网易工作，做UI设计", "我是一名设计师", said])
    assert facts["木木在网易工作"] == T0 + timedelta(days=2)
    assert facts[fact] is None
    assert facts["木木是一名设计师"] is None  # a trade stays


def test_a_place_named_closes_only_the_workplace_it_names(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        facts = chat(memory, ["我在网易工作", "我从阿里离职了"])
    assert facts["木木在网易工作"] is None
    assert facts["木木从阿里离职了"] is None


@pytest.mark.parametrize(
    ("lines", "closed", "fact"),
    [
        (["I work at Acme", "I quit my job yesterday"], "木木 works at Acme", "木木 left the job"),
        (["I work at Acme", "I got laid off"], "木木 works at Acme", "木木 was laid off"),
        (
            ["I work at a bakery", "I quit my job at the bakery"],
            "木木 works at a bakery",
            "木木 left the job at the bakery",
        ),
        (["I work at Acme", "I just resigned from Acme"], "木木 works at Acme", "木木 left the job at Acme"),
    ],
)
def test_an_english_job_left(tmp_path: Path, lines: list[str], closed: str, fact: str) -> None:
    with open_memory(tmp_path) as memory:
        facts = chat(memory, lines)
    assert facts[closed] == T0 + timedelta(days=1)
    assert facts[fact] is None


@pytest.mark.parametrize(
    "later",
    [
        *("我想辞职", "我打算下个月离职", "他辞职了", "小美被裁了", "你辞职了吗", "我没辞职", "差点被裁了"),
        *("要是能辞职就好了", "我辞职了哈哈哈开玩笑的", "他说我被开除了"),
        *("辞职了", "也辞职了", "已经被裁了", "I quit", "I quit!"),
        *("I want to quit my job", "Did I quit my job?", "My sister got laid off"),
        *("If they find out, I'm out of a job", "When the contract ends in June, I'm out of work"),  # supposed
    ],
)
def test_what_leaves_no_job_of_mine_closes_nothing(tmp_path: Path, later: str) -> None:
    with open_memory(tmp_path) as memory:
        facts = chat(memory, ["我在网易工作", "I work at Acme", later])
    assert facts["木木在网易工作"] is None and facts["木木 works at Acme"] is None
    left = ("辞职了", "离职了", "被裁员了", "被开除了", "失业了", "left their job", "laid off")
    assert not [text for text in facts if text.endswith(left)], facts


def test_the_job_left_answers_where_i_work_now(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        chat(memory, ["我在网易工作，做UI设计", "今天好累", "我辞职了！", "太累了，不想干了"])
        now = memory.recall("我现在在哪上班", agent="祈煜", person="木木")
        assert now.hits[0].kind is MemoryKind.FACT and now.hits[0].text == "木木辞职了"
        assert now.info["slot"] == now.hits[0].id
        # a new job said after it leads again
        new = {"id": "m9", "text": "我现在在字节工作", "time": T0 + timedelta(days=9)}
        memory.add(new, agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        later = memory.recall("我现在在哪上班", agent="祈煜", person="木木")
        assert later.hits[0].text == "木木在字节工作"


def test_a_retirement_ends_the_trade_and_the_workplace(tmp_path: Path) -> None:
    """我退休了 after 我是老师: the teacher fact stayed open and nothing was read; retired is the job now."""
    with open_memory(tmp_path) as memory:
        facts = chat(memory, ["我是老师", "我在实验小学上班", "我去年就退休了"])
    assert facts["木木是老师"] is not None and facts["木木在实验小学工作"] is not None
    assert facts["木木退休了"] is None


@pytest.mark.parametrize("said", ["我快退休了", "我爸退休了", "我想退休了"])
def test_a_retirement_not_yet_or_not_ones_own_ends_no_job(tmp_path: Path, said: str) -> None:
    with open_memory(tmp_path) as memory:
        facts = chat(memory, ["我是老师", said])
    assert facts["木木是老师"] is None
