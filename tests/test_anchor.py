"""Own-turn evidence (recall.anchor): the turn that says it ranks above the chunks after it that carry it
as context (issue #17, the mem0 peer's first hit)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from huiyi.config import Config
from huiyi.memory import Memory
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 5, 1, 9)
LINES = [
    ("user", "我今天去超市买了牛奶"),
    ("assistant", "听起来不错"),
    ("user", "我家的猫叫布丁，今年三岁了"),
    ("assistant", "真可爱呀，好想见见"),
    ("user", "明天要早起上班"),
    ("assistant", "早点睡哦"),
]
QUERY = "我家猫叫什么名字"


def _memory(path: Path, weight: float) -> Memory:
    config = Config(recall={"anchor_weight": weight}, worker={"enabled": False})
    memory = Memory(path, config=config, embedder=HashEmbedder(64))
    messages = [
        {"role": role, "speaker": "木木" if role == "user" else "祈煜", "text": text, "time": T0 + timedelta(minutes=i)}
        for i, (role, text) in enumerate(LINES)
    ]
    memory.add(messages, agent="祈煜", person="mumu", index=True)
    return memory


def test_the_turn_that_says_it_leads_the_turns_that_carry_it(tmp_path: Path) -> None:
    with _memory(tmp_path / "off", 0.0) as memory:  # the chunk two turns on embeds the cat too, and led
        assert "猫" not in memory.recall(QUERY, agent="祈煜", person="mumu", limit=3).hits[0].text
    with _memory(tmp_path / "on", 0.5) as memory:
        found = memory.recall(QUERY, agent="祈煜", person="mumu", limit=3, explain=True)
        assert "布丁" in found.hits[0].text
        bonuses = found.info["bonuses"]
        assert isinstance(bonuses, dict)
        assert bonuses[found.hits[0].id]["anchor"] == 0.5  # the best own match gains the whole weight


def test_chunks_indexed_without_their_turn_alone_rank_by_their_vector(tmp_path: Path) -> None:
    with _memory(tmp_path / "s", 0.5):
        pass
    with sqlite3.connect(tmp_path / "s" / "huiyi.sqlite") as conn:  # as a store indexed before migration 11
        conn.execute("DELETE FROM memory_own_vectors")
    config = Config(recall={"anchor_weight": 0.5}, worker={"enabled": False})
    with Memory(tmp_path / "s", config=config, embedder=HashEmbedder(64)) as memory:
        found = memory.recall(QUERY, agent="祈煜", person="mumu", limit=6)
        assert len(found.hits) == 6
        assert all(hit.route_scores for hit in found.hits)
