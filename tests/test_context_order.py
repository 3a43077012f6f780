"""The chat in the context is in the order it was said, as the chat shows it, whatever order it arrived in
(issue 17, a group day tried as a bot would: a plan's 七点, delivered late, stood after 改到七点半)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 8, 11, 0)
SAID = [
    ("p1", 5, "老K", "那就明晚七点万象城海底捞集合"),
    ("a4", 60, "小林", "七点我下不了班，能改到七点半吗"),
    ("p2", 62, "老K", "行，那改到明晚七点半"),
]


def test_the_chat_is_shown_in_the_order_it_was_said(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(hours=3)) as memory:
        for i in (1, 2, 0):  # the 11:05 line delivered last
            key, minute, who, text = SAID[i]
            line = {"id": key, "speaker": who, "text": text, "time": T0 + timedelta(minutes=minute)}
            memory.add(line, agent="小忆", space="群")
        chat = memory.context(agent="小忆", space="群").text.split("对话上下文")[-1]
        places = [chat.index(text) for *_, text in SAID]
        assert places == sorted(places)
