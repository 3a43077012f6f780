"""Own-turn evidence (recall.anchor): the turn that says it ranks above the chunks after it that carry it
as context (issue #17, the mem0 peer's first hit)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from huiyi.config import Config
from huiyi.memory import Memory
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import anchor

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


def _config(weight: float, demote: bool = False) -> Config:
    # name_weight off: the anchor alone is on trial (a name question would lift 猫叫布丁 by itself)
    recall = {"anchor_weight": weight, "anchor_demote": demote, "name_weight": 0.0}
    return Config(chunk={"own_vector": True}, recall=recall, worker={"enabled": False})


def _memory(path: Path, weight: float, demote: bool = False) -> Memory:
    config = _config(weight, demote)
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
    with Memory(tmp_path / "s", config=_config(0.5, demote=True), embedder=HashEmbedder(64)) as memory:
        found = memory.recall(QUERY, agent="祈煜", person="mumu", limit=6)
        assert len(found.hits) == 6
        assert all(hit.route_scores for hit in found.hits)


def test_a_chunk_that_only_carries_the_turn_goes_below_it() -> None:
    # seq 10 says it; 11 (a reply) and 12 carry it as context and edged ahead on their vectors
    window = [(12, (1.02, {})), (11, (0.99, {})), (10, (0.95, {})), (40, (0.9, {}))]
    places = {key: ("person:mumu", key) for key in (10, 11, 12, 40)}
    own = {10: 0.834, 11: 0.77, 12: 0.775, 40: 0.80}
    dense = {10: 0.830, 11: 0.8302, 12: 0.8348, 40: 0.82}
    lowered = anchor.demoted(window, places, own, dense, depth=20)
    assert lowered == {12: 0.949999, 11: 0.949999}
    moved = anchor.apply(window, {key: score - dict(window)[key][0] for key, score in lowered.items()})
    assert [key for key, _ in moved] == [10, 11, 12, 40]


def test_an_answer_that_needs_its_question_keeps_its_place() -> None:
    # 21 answers 20's question: with the question its vector matches better than the question alone
    window = [(21, (1.0, {})), (20, (0.97, {}))]
    places = {20: ("s", 20), 21: ("s", 21)}
    assert anchor.demoted(window, places, {20: 0.85, 21: 0.80}, {20: 0.84, 21: 0.87}, depth=20) == {}
    # and one whose own line matches as well as the earlier one is no mere carrier
    assert anchor.demoted(window, places, {20: 0.85, 21: 0.86}, {20: 0.84, 21: 0.85}, depth=20) == {}


def test_own_vectors_cost_nothing_when_off(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False})
    assert not config.chunk.own_vector and not config.recall.anchor_demote and not config.recall.anchor_weight
    with Memory(tmp_path / "o", config=config, embedder=HashEmbedder(64)) as memory:
        memory.add("我家的猫叫布丁", agent="祈煜", person="mumu", index=True)
    with sqlite3.connect(tmp_path / "o" / "huiyi.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM memory_own_vectors").fetchone() == (0,)
