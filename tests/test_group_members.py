"""A group's members, silent or not, are who its messages name (issue #13): a fold knows every member
who spoke before, so 霓霓就是苏霓 teaches an alias and 舟舟是急诊科护士 a fact about 王一舟 when they are
said while 苏霓 and 王一舟 are away; in recall, such a fact leads the person's own lines, and a
bystander's line does not borrow the named person's bonus from the event they share."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryItem, MemoryKind, Person, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.routes import query_terms
from huiyi.recall.units import lend

T0 = datetime(2024, 11, 13, 20, 0)

EARLIER = [  # the evening before: everyone speaks
    ("王一舟", "夜班总算熬完了，回家补觉，大家早"),
    ("苏霓", "早啊晚晴"),
    ("林晚晴", "早上好各位"),
    ("柯凯", "大家好，我是新来的"),
]
LATER = [  # the next morning, 王一舟 asleep and 苏霓 in class
    ("柯凯", "群里大家都是做什么的呀"),
    ("林晚晴", "舟舟是急诊科护士，刚下夜班在睡觉"),
    ("柯凯", "有人喊苏老师，是两个人吗"),
    ("林晚晴", "哈哈是一个人，霓霓就是苏霓"),
]


def _batch(lines: list[tuple[str, str]], start: datetime, first: int) -> list[dict[str, object]]:
    return [
        {"id": f"m{first + i}", "speaker": who, "text": text, "time": start + timedelta(minutes=3 * i)}
        for i, (who, text) in enumerate(lines)
    ]


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Memory]:
    config = Config(recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        memory.add(_batch(EARLIER, T0, 0), agent="bot", space="g1")
        memory.flush(agent="bot", space="g1", wait=True)
        memory.add(_batch(LATER, T0 + timedelta(hours=12), len(EARLIER)), agent="bot", space="g1")
        memory.flush(agent="bot", space="g1", wait=True)
        yield memory


def test_a_silent_members_alias_is_learnt(group: Memory) -> None:
    names = {e.name: e.aliases for e in group.entities(agent="bot", space="g1")}
    assert "霓霓" in names["苏霓"]


def test_a_fact_said_about_a_silent_member_is_theirs(group: Memory) -> None:
    facts = group.memories(agent="bot", space="g1", kinds=["fact"])
    assert [(f.data["subject"], f.text) for f in facts] == [("王一舟", "王一舟是急诊科护士")]


def test_the_fact_leads_the_persons_own_lines(group: Memory) -> None:
    found = group.recall("舟舟是在哪个科室上班", agent="bot", space="g1", person="柯凯", limit=3)
    assert found.hits[0].kind is MemoryKind.FACT and found.hits[0].sources == ["m5"]


def test_a_bystanders_turn_does_not_borrow_the_named_persons_bonus() -> None:
    scope = Scope.of_space("bot", "g1")

    def item(key: str, kind: MemoryKind, sources: list[str]) -> MemoryItem:
        return MemoryItem(id=key, scope=scope, kind=kind, text=key, sources=sources)

    event = item("e", MemoryKind.EVENT, ["m1", "m2"])
    items = {1: item("c1", MemoryKind.CHUNK, ["m1"]), 2: item("c2", MemoryKind.CHUNK, ["m2"]), 9: event}
    window = [(9, (1.0, {})), (2, (0.6, {})), (1, (0.5, {}))]  # chunk 2 (a bystander) matches best
    # the event got 0.4 because the query names the speaker of chunk 1, who got 0.4 too
    ranked, _ = lend(window, items, {9: 0.4, 1: 0.4})
    scores = {key: round(score, 3) for key, (score, _) in ranked}
    assert scores == {1: round(1.0 * 0.5 / 0.6, 3), 2: 0.6}  # chunk 2 keeps its own 0.6 (0.6 × 1.0 lent)


def test_a_who_question_frame_is_no_keyword() -> None:
    words = query_terms("是谁说明晚要带自己做的点心来").words
    assert "明晚" in words and "说明" not in words


def test_a_nickname_beside_the_name_is_a_name_too(group: Memory) -> None:
    """顾哥 beside 顾北辰 (here 舟舟 beside 王一舟) is no keyword: it would match every line calling him so."""
    found = group.recall("好几天没见舟舟冒泡了\n王一舟最近忙啥", agent="bot", space="g1", person="柯凯", limit=3)
    assert {"王一舟", "舟舟"} <= set(found.info["people"])  # the names taken out of the keyword query


def test_a_title_alias_gives_no_nickname(group: Memory) -> None:
    """苏霓 is called 苏老师; 老师 is no nickname of hers, so 托尼老师 does not name her."""
    group.set_person(Person(id="苏霓", aliases=["苏老师"]), agent="bot")
    found = group.recall("托尼老师的理发店开在哪", agent="bot", space="g1", person="柯凯", limit=3)
    assert "苏霓" not in found.info.get("people", [])
