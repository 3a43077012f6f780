"""Own-turn evidence (recall.anchor): the turn that says it ranks above the chunks after it that carry it
as context (issue #17, the mem0 peer's first hit)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from huiyi.config import Config
from huiyi.memory import Memory
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import anchor
from huiyi.store.base import RankRow, ScoredId

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


def _config(weight: float, demote: bool = False, floor: int = 0, carriers: bool = False) -> Config:
    # name_weight off: the anchor alone is on trial (a name question would lift 猫叫布丁 by itself); the own
    # floor and the carriers rule, on by default, are tried on their own below
    recall = {
        "anchor_weight": weight,
        "anchor_demote": demote,
        "name_weight": 0.0,
        "own_floor": floor,
        "carriers": carriers,
    }
    return Config(chunk={"own_vector": True}, recall=recall, worker={"enabled": False})


def _memory(path: Path, weight: float, demote: bool = False, floor: int = 0, carriers: bool = False) -> Memory:
    config = _config(weight, demote, floor, carriers)
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


def test_the_own_floor_is_on_by_default_and_leads_with_the_line_that_says_it(tmp_path: Path) -> None:
    config = Config()
    assert config.chunk.own_vector and config.recall.own_floor
    with _memory(tmp_path / "floor", 0.0, floor=config.recall.own_floor) as memory:
        found = memory.recall(QUERY, agent="祈煜", person="mumu", limit=3)
        assert "布丁" in found.hits[0].text  # off, the chunk two turns on led (the first test)


def test_a_line_that_says_it_by_itself_scores_its_own_match() -> None:
    rows = {key: _row(key, seq, text) for key, seq, text in ((f"c{n}", n, line) for n, line in _CHAT.items())}
    hits = [ScoredId("c3", 0.84, 3), ScoredId("c4", 0.835, 4), ScoredId("c2", 0.83, 2), ScoredId("c9", 0.8, 9)]
    own = {"c2": 0.86, "c3": 0.77, "c4": 0.775, "c9": 0.9}  # c9 asks: its words echo the query
    out = anchor.floored(hits, own, rows, margin=0.02)
    assert [(hit.id, hit.score) for hit in out] == [("c2", 0.86), ("c3", 0.84), ("c4", 0.835), ("c9", 0.8)]
    # a line whose context turns match alone about as well needs them: it keeps its context's score
    close = {**own, "c1": 0.85}
    assert [hit.id for hit in anchor.floored(hits, close, rows, margin=0.02)] == ["c3", "c4", "c2", "c9"]
    # without own vectors (a store indexed before them) nothing moves
    assert anchor.floored(hits, {}, rows, margin=0.02) == hits


def test_the_reply_that_carries_a_line_goes_below_it(tmp_path: Path) -> None:
    assert Config().recall.carriers
    with _memory(tmp_path / "carry", 0.0, carriers=True) as memory:  # off, the chunk two turns on led
        found = memory.recall(QUERY, agent="祈煜", person="mumu", limit=3, explain=True)
    assert "布丁" in found.hits[0].text
    bonuses = found.info["bonuses"]
    assert isinstance(bonuses, dict)
    assert any(bonus.get("anchor", 0.0) < 0 for bonus in bonuses.values())  # the carriers went down


def test_a_carrier_goes_below_the_line_unless_it_answers_or_says_on() -> None:
    window = [(3, (1.0, {})), (2, (0.95, {})), (1, (0.9, {}))]
    lines = {1: ("s", 1, "木木"), 2: ("s", 2, "祈煜"), 3: ("s", 3, "木木")}
    own = {1: 0.86, 2: 0.80, 3: 0.83}
    # the other speaker's reply matches 0.06 worse: below; the same speaker's next line only 0.03 worse
    # (the same topic said on, within SPAN): it keeps its place
    assert anchor.carriers(window, lines, own, set(), depth=20, margin=0.02) == {2: 0.899999}
    # a line that asks is no statement to lead: its answer keeps its place
    assert anchor.carriers(window, lines, own, {1}, depth=20, margin=0.02) == {}
    # another space's turn, or one beyond the context's reach, is not carried
    apart = {1: ("t", 1, "木木"), 2: ("s", 2, "祈煜"), 3: ("s", 5, "木木")}
    assert anchor.carriers(window, apart, own, set(), depth=20, margin=0.02) == {}


def test_the_own_floor_leaves_group_chats_alone(tmp_path: Path) -> None:
    # in a group a short line's own words match a question easily ("何老师的学生肯定很棒"), while the line
    # that answers is found with its thread: the group-day probes lost three first hits with it
    config = Config(recall={"name_weight": 0.0}, worker={"enabled": False})
    speakers = ["甲", "乙", "丙"]
    messages = [
        {"speaker": speakers[i % 3], "text": text, "time": T0 + timedelta(minutes=i)}
        for i, (_, text) in enumerate(LINES)
    ]
    with Memory(tmp_path / "g", config=config, embedder=HashEmbedder(64)) as memory:
        memory.add(messages, agent="祈煜", space="g1", index=True)
        found = memory.recall(QUERY, agent="祈煜", space="g1", limit=4)
        off = config.recall.model_copy(update={"own_floor": 0, "carriers": False})
        plain = memory.recall(QUERY, agent="祈煜", space="g1", limit=4, recipe=off)
    assert [(h.id, h.score) for h in found.hits] == [(h.id, h.score) for h in plain.hits]
    assert "布丁" not in found.hits[0].text  # between two people the floor would lift it (the test above)


_CHAT = {1: "我今天去超市买了牛奶", 2: "我家的猫叫布丁", 3: "真可爱呀", 4: "明天要早起上班", 9: "你家猫叫什么？"}


def _row(key: str, seq: int, text: str) -> RankRow:
    return RankRow(key, "person:mumu", MemoryKind.CHUNK, None, ("木木",), (), "dm", seq, f"木木: {text}", 0.5, None)


def test_own_vectors_cost_nothing_when_off(tmp_path: Path) -> None:
    config = Config(chunk={"own_vector": False}, worker={"enabled": False})
    assert not config.recall.anchor_demote and not config.recall.anchor_weight
    with Memory(tmp_path / "o", config=config, embedder=HashEmbedder(64)) as memory:
        memory.add("我家的猫叫布丁", agent="祈煜", person="mumu", index=True)
    with sqlite3.connect(tmp_path / "o" / "huiyi.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM memory_own_vectors").fetchone() == (0,)
