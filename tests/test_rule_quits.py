"""A taste or habit given up (以前喜欢喝咖啡，现在戒了，改喝茶了; 我戒烟了; I quit coffee) closes the open fact
it ends, as a move closes the old home, and says what took its place where it is said."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)


def chat(path: Path, lines: list[str], question: str = "我喜欢喝什么") -> tuple[dict[str, datetime | None], str]:
    """Each line a day apart; the facts read (text -> valid_to) and the context a week on."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=7)) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")
        facts = {f.text: f.valid_to for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}
        context = memory.context(agent="祈煜", person="木木", message=question).text
    return facts, context


def test_a_taste_given_up_closes_the_old_and_keeps_the_new(tmp_path: Path) -> None:
    facts, context = chat(tmp_path, ["我喜欢喝咖啡", "今天好冷", "以前喜欢喝咖啡，现在戒了，改喝茶了"])
    assert facts["木木喜欢喝咖啡"] == T0 + timedelta(days=2)
    assert facts["木木喜欢喝茶"] is None
    assert "木木喜欢喝咖啡" not in context and "木木喜欢喝茶" in context


@pytest.mark.parametrize(
    ("lines", "closed", "kept"),
    [
        (["我喜欢喝咖啡", "我不喝咖啡了"], "木木喜欢喝咖啡", "木木不喝咖啡"),
        (["我爱抽烟", "我戒烟了"], "木木爱抽烟", "木木戒烟了"),
        (["I like coffee", "I quit coffee"], "木木 likes coffee", "木木 quit coffee"),
        (["I love coffee", "I don't drink coffee anymore"], "木木 loves coffee", "木木 doesn't drink coffee anymore"),
    ],
)
def test_a_habit_stopped_closes_the_open_fact(tmp_path: Path, lines: list[str], closed: str, kept: str) -> None:
    facts, _ = chat(tmp_path, lines)
    assert facts[closed] == T0 + timedelta(days=1)
    assert facts[kept] is None


def test_quitting_with_nothing_to_close_is_still_a_fact(tmp_path: Path) -> None:
    facts, _ = chat(tmp_path, ["我戒烟了"])
    assert facts == {"木木戒烟了": None}


@pytest.mark.parametrize(
    "later",
    [
        *("他说他戒烟了", "你戒烟了吗", "我不喝咖啡了？", "我要是戒了咖啡就好了", "我戒不掉咖啡", "我喝完咖啡了"),
        *("我今天不喝咖啡了", "I quit my job", "Did I quit coffee?"),
    ],
)
def test_what_stops_nothing_of_mine_closes_nothing(tmp_path: Path, later: str) -> None:
    facts, _ = chat(tmp_path, ["我喜欢喝咖啡", "I like coffee", later])
    assert facts["木木喜欢喝咖啡"] is None and facts["木木 likes coffee"] is None
