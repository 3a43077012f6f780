"""Where a nickname is known: in the chat that taught it. 木木's 以后叫我宝宝 said in private names no one in
a group (a group asking about 宝宝 must not learn that 宝宝 is 木木, nor get her lines for it); her 叫我老K
said in g1 names her in g1, not in g2; a person record's aliases (``set_person``) are the developer's and
name her everywhere."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from conftest import STORE_FACTORIES
from huiyi import Memory, Person
from huiyi.config import Config
from huiyi.faces.tools import ToolExecutor
from huiyi.model import ScopeKind
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store

AGENT = "祈煜"
T0 = datetime(2024, 11, 4, 9, 0)
PRIVATE_NAMES = ("宝宝", "小猪")
ASKED = ("宝宝最近怎么样", "小猪在忙什么")


@pytest.fixture(params=sorted(STORE_FACTORIES))
def chats(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    """木木 in private (two nicknames), in g1 (a third, 老K) and in g2."""
    make: Callable[[Path], Store] = STORE_FACTORIES[request.param]
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=config) as memory:
        private = [
            {"text": "以后叫我宝宝", "time": T0},
            {"text": "好的宝宝", "role": "assistant", "time": T0 + timedelta(minutes=1)},
            {"text": "只有你可以叫我小猪", "time": T0 + timedelta(minutes=2)},
        ]
        memory.add(private, agent=AGENT, person="木木")
        memory.flush(agent=AGENT, person="木木")
        groups = {
            "g1": [
                ("木木", "我今天考试考砸了"),
                ("阿哲", "周末去爬山吗"),
                ("小雨", "我要加班"),
                ("木木", "叫我老K就行"),
                ("老王", "我买了新车"),
                ("木木", "数学还行，英语不太行"),
            ],
            "g2": [("木木", "我最近在学吉他"), ("大刘", "我在减肥"), ("小美", "我养了只猫")],
        }
        for hours, (space, lines) in enumerate(groups.items(), start=1):
            start = T0 + timedelta(hours=hours)
            said = [
                {"speaker": who, "text": text, "time": start + timedelta(minutes=i)}
                for i, (who, text) in enumerate(lines)
            ]
            memory.add(said, agent=AGENT, space=space)
            memory.flush(agent=AGENT, space=space)
            memory.summarize(T0.date(), agent=AGENT, space=space)
        memory.summarize(T0.date(), agent=AGENT, person="木木")
        yield memory


def _named(memory: Memory, query: str, space: str) -> list[str]:
    """Every name of the people a group question names, as recall read them."""
    return list(memory.recall(query, agent=AGENT, space=space, limit=10).info.get("people", []))


def _tool_search(memory: Memory, space: str, query: str) -> str:
    tools = ToolExecutor(memory.core, AGENT, space=space)
    return memory._loop.run(tools.call("search_memories", {"query": query}))


def test_a_nickname_taught_in_private_names_no_one_in_a_group(chats: Memory) -> None:
    # known where it was taught
    private = {e.name: e.aliases for e in chats.entities(agent=AGENT, person="木木")}
    assert set(PRIVATE_NAMES) <= set(private["木木"])
    for space in ("g1", "g2"):
        for query in ASKED:
            result = chats.recall(query, agent=AGENT, space=space, limit=10)
            assert "木木" not in result.info.get("people", []) and not result.info.get("entities"), (space, query)
            assert all(h.scope.kind is ScopeKind.SPACE for h in result.hits)
            assert not [h.text for h in result.hits if {"speaker", "entity"} & set(h.route_scores)], (space, query)
            context = chats.context(agent=AGENT, space=space, message=query)
            assert context.recall is not None and not context.recall.info.get("entities")
            assert not [n for n in PRIVATE_NAMES if n in context.text]
            assert not [n for n in PRIVATE_NAMES if n in _tool_search(chats, space, query)]
        listed = [name for e in chats.entities(agent=AGENT, space=space, merged=True) for name in e.names]
        assert not set(PRIVATE_NAMES) & set(listed), space


def test_a_nickname_taught_in_a_group_names_her_in_that_group_only(chats: Memory) -> None:
    assert "木木" in _named(chats, "老K最近怎么样", "g1")
    assert "木木" not in _named(chats, "老K最近怎么样", "g2")
    assert "老K" not in [name for e in chats.entities(agent=AGENT, space="g2") for name in e.names]
    assert "老K" not in [name for e in chats.entities(agent=AGENT, person="木木") for name in e.names]


def test_a_person_records_aliases_are_the_developers_and_name_her_everywhere(chats: Memory) -> None:
    assert "木木" not in _named(chats, "木头最近怎么样", "g2")
    chats.set_person(Person(id="木木", aliases=["木头"]), agent=AGENT)
    for space in ("g1", "g2"):
        assert "木木" in _named(chats, "木头最近怎么样", space), space
