"""In a group, the 我 of the turn the bot answers names its speaker: a member who spoke once and asks
我之前说过啥 days later gets their own line, not the other members' lines that also say 我."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 13, 20, 0)
ONCE = "路过的猫"
CHATTER = ["我觉得今天好冷", "我中午吃了面", "我也是", "我要下班了", "我刚开完会", "我想去旅游", "[图片]", "哈哈哈"]


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Memory]:
    lines = [(ONCE, "我家柯基叫豆包，今天第一次带它去打疫苗")]
    lines += [(f"成员{i % 9}", CHATTER[i % len(CHATTER)]) for i in range(80)]
    config = Config(recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=2)) as memory:
        memory.add(
            [
                {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
                for i, (who, text) in enumerate(lines)
            ],
            agent="bot",
            space="g",
        )
        memory.flush(agent="bot", space="g", wait=True)
        yield memory


def _asks(memory: Memory, speaker: str, text: str) -> list[str]:
    memory.add({"id": "q", "speaker": speaker, "text": text, "time": T0 + timedelta(days=2)}, agent="bot", space="g")
    context = memory.context(agent="bot", space="g", message=text)
    assert context.recall is not None
    return [hit.text for hit in context.recall.hits if not hit.text.endswith(text)]


def test_a_member_who_spoke_once_gets_their_own_line(group: Memory) -> None:
    recalled = _asks(group, ONCE, "@bot 我之前说过啥")
    assert recalled and ONCE in recalled[0] and "豆包" in recalled[0]


def test_another_members_i_is_not_theirs(group: Memory) -> None:
    recalled = _asks(group, "成员3", "@bot 我之前说过啥")
    assert recalled and all(ONCE not in text for text in recalled[:3])
