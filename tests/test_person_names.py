"""Which persons a group query names, at a cost set by the query, not by how many persons the agent has
(issue #15: an imported group chat makes a record for every speaker; recall read them all every time)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import Entity, Person, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.recall import graph as links
from huiyi.recall.people import NameIndex

T0 = datetime(2024, 11, 1, 20, 0)
QUIET = Config(worker={"enabled": False})


def _group(memory: Memory, persons: int) -> None:
    for i in range(persons):
        memory.set_person(Person(id=f"u{i}", name=f"成员{i:04d}"), agent="a")
    memory.set_person(Person(id="bob", name="鲍勃", aliases=["QZXBOBBY"]), agent="a")
    said = [("bob", "我周末去爬山"), ("alice", "我在学吉他"), ("carol", "明天下雨"), ("bob", "我家的猫叫团子")]
    lines = [{"speaker": s, "text": t, "time": T0 + timedelta(minutes=i)} for i, (s, t) in enumerate(said)]
    memory.add(lines, agent="a", space="g1", index=True)


def _people(memory: Memory, query: str) -> object:
    return memory.recall(query, agent="a", space="g1", limit=5).info.get("people")


def test_a_warm_recall_reads_no_person_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(tmp_path / "store", embedder=HashEmbedder(32), config=QUIET) as memory:
        _group(memory, 300)
        assert _people(memory, "QZXBOBBY最近在忙什么") == ["bob", "鲍勃", "QZXBOBBY"]  # caches warm
        read: list[str] = []
        listed = memory.store.list_persons
        monkeypatch.setattr(memory.store, "list_persons", lambda agent: read.append(agent) or listed(agent))
        assert _people(memory, "鲍勃最近在忙什么") == ["bob", "鲍勃", "QZXBOBBY"]
        assert _people(memory, "成员0042最近在忙什么") == ["u42", "成员0042"]
        assert read == []
        memory.set_person(Person(id="bob", name="鲍勃", aliases=["QZXBOBCAT"]), agent="a")
        assert _people(memory, "QZXBOBBY最近在忙什么") is None  # the alias taken back no longer names him
        assert _people(memory, "QZXBOBCAT最近在忙什么") == ["bob", "鲍勃", "QZXBOBCAT"]
        assert read == ["a"]  # read again once, at the write


_NAME = st.text(alphabet="苏霓阿木abAB 1", min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(
    people=st.lists(st.lists(_NAME, min_size=1, max_size=3), max_size=8), text=st.text("苏霓阿木abAB 1下", max_size=12)
)
def test_the_name_index_hands_mentioned_what_a_scan_of_every_name_finds(people: list[list[str]], text: str) -> None:
    scope = Scope.of_space("a", "g1")
    entities = [Entity(scope=scope, name=names[0], aliases=names[1:]) for names in people]
    held = [entities[i] for i in NameIndex([e.names for e in entities]).held(text)]
    assert links.mentioned(held, text) == links.mentioned(entities, text)
