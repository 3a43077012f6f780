"""A birthday told by a relative day (我的生日是后天, my birthday is the day after tomorrow) is kept with the
date it meant: a month later "后天" in the fact would name another day."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

SAID = datetime(2024, 11, 20, 20, 0)  # a Wednesday


def birthday_facts(path: Path, text: str) -> list[str]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: SAID + timedelta(days=30)) as memory:
        memory.add([{"text": text, "time": SAID}], agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        facts = memory.memories(agent="祈煜", person="木木", kinds=["fact"])
    return [fact.text for fact in facts if fact.data.get("predicate") in ("生日是", "birthday is")]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("我的生日是后天", "木木的生日是后天（2024-11-22）"),
        ("我生日是下周三", "木木的生日是下周三（2024-11-27）"),
        ("My birthday is the day after tomorrow", "木木's birthday is the day after tomorrow (2024-11-22)"),
        ("我的生日是十月五号", "木木的生日是十月五号"),
        ("My birthday is May 5", "木木's birthday is May 5"),
        # the day said first (后天是我生日): the same birthday, the same date kept
        ("后天是我生日", "木木的生日是后天（2024-11-22）"),
        ("今天是我生日！", "木木的生日是今天（2024-11-20）"),
        ("明天是我的生日", "木木的生日是明天（2024-11-21）"),
        ("十月五号是我生日", "木木的生日是十月五号"),
        ("Tomorrow is my birthday", "木木's birthday is tomorrow (2024-11-21)"),
    ],
)
def test_a_birthday_by_a_relative_day_keeps_its_date(tmp_path: Path, text: str, shown: str) -> None:
    assert birthday_facts(tmp_path, text) == [shown]


@pytest.mark.parametrize(
    "text", ["这是我生日礼物", "他说明天是我生日", "那天是我生日", "明天是我生日吗", "最开心的一天是我生日"]
)
def test_no_birthday_where_no_day_of_mine_is_named(tmp_path: Path, text: str) -> None:
    assert birthday_facts(tmp_path, text) == []
