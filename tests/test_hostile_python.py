"""Hostile arguments to ``Memory`` itself (the HTTP face's guard does not stand before it): each is an
``InvalidInput`` naming what is wrong, and nothing is written, on both stores."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import STORE_FACTORIES
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.memory import Memory
from huiyi.providers.embed import HashEmbedder


@pytest.fixture(params=sorted(STORE_FACTORIES))
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    store = STORE_FACTORIES[request.param](tmp_path / "store")
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, store=store, embedder=HashEmbedder(16), config=config) as memory:
        memory.add(["我家的猫叫团子"], agent="A", person="p", index=True)
        yield memory


@pytest.mark.parametrize("limit", [2**63, 10**30])
def test_a_limit_past_64_bits_is_refused_not_an_overflow(memory: Memory, limit: int) -> None:
    with pytest.raises(InvalidInput, match="limit"):
        memory.recall("猫", agent="A", person="p", limit=limit)
    with pytest.raises(InvalidInput, match="limit"):
        memory.context(agent="A", person="p", message="猫", limit=limit)


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


BAD_DATA: dict[str, dict[str, Any]] = {
    "an object": {"o": object()},
    "NaN": {"score": float("nan")},
    "infinity": {"score": float("inf")},
    "an integer past 64 bits": {"n": 2**64},
    "a NUL in a value": {"note": "a\x00b"},
    "a NUL in a key": {"a\x00": 1},
    "a lone surrogate": {"note": "\ud800"},
    "a key that is not text, deeper down": {"inner": {1: 2}},
    "5,000 levels deep": _nested(5000),
    "a set": {"tags": {1, 2}},
}


@pytest.mark.parametrize("data", BAD_DATA.values(), ids=BAD_DATA.keys())
def test_data_that_is_not_storable_json_is_refused(memory: Memory, data: dict[str, Any]) -> None:
    before = memory.memories(agent="A")
    with pytest.raises(InvalidInput, match="data"):
        memory.remember("一条设定", agent="A", data=data)
    assert memory.memories(agent="A") == before


def test_plain_json_data_is_kept_as_given(memory: Memory) -> None:
    data = {"source": "wiki", "n": 2**62, "ratio": 0.5, "tags": ["a", "b"], "inner": {"ok": None, "yes": True}}
    item = memory.remember("一条设定", agent="A", data=data)
    assert memory.get(item.id, agent="A").data == data


QUERY_SYNTAX = [
    '"',
    "NEAR(猫 团子)",
    "*",
    "-",
    "OR",
    "^猫",
    '猫" OR "',
    "col:猫",
    "猫 -团子",
    "(",
    "{a b}",
    "'; --",
    "\\",
    "%_",
]


@pytest.mark.parametrize("query", QUERY_SYNTAX)
def test_full_text_syntax_in_a_query_is_plain_text(memory: Memory, query: str) -> None:
    """FTS5's and PostgreSQL's query operators are words here, never syntax: no error, and a query
    that also names what is stored still finds it."""
    found = memory.recall(f"{query} 团子", agent="A", person="p")
    assert any("团子" in hit.text for hit in found.hits)


LOOKUPS: dict[str, Callable[[Memory, str], object]] = {
    "get": lambda m, v: m.get(v, agent="A"),
    "get_many": lambda m, v: m.get_many([v], agent="A"),
    "messages": lambda m, v: m.messages([v], agent="A"),
    "delete": lambda m, v: m.delete(v, agent="A"),
    "feedback": lambda m, v: m.feedback(v, 1.0, agent="A"),
    "update": lambda m, v: m.update(v, {"text": "x"}, agent="A"),
    "chat_around": lambda m, v: m.chat_around(v, agent="A"),
    "get_person": lambda m, v: m.get_person(v, agent="A"),
    "get_entity": lambda m, v: m.get_entity(v, agent="A"),
    "delete_entity": lambda m, v: m.delete_entity(v, agent="A"),
    "links": lambda m, v: m.links([v], agent="A"),
    "retry_job": lambda m, v: m.retry_job(v, agent="A"),
    "forget_messages": lambda m, v: m.forget_messages([v], agent="A"),
    "link source": lambda m, v: m.link(v, "b", agent="A"),
    "link target": lambda m, v: m.link("a", v, agent="A"),
    # the agent a listing or lookup reads by (PostgreSQL answered a StoreError, SQLite an empty list)
    "scopes of agent": lambda m, v: m.scopes(agent=v),
    "persons of agent": lambda m, v: m.persons(agent=v),
    "jobs of agent": lambda m, v: m.jobs(agent=v),
    "merges of agent": lambda m, v: m.merges(agent=v),
    "reports of agent": lambda m, v: m.reports(agent=v),
    "get of agent": lambda m, v: m.get("x", agent=v),
    "messages of agent": lambda m, v: m.messages(["x"], agent=v),
    "forget_messages of agent": lambda m, v: m.forget_messages(["x"], agent=v),
}


@pytest.mark.parametrize("value", ["a\x00b", "\ud800"], ids=["NUL", "lone surrogate"])
@pytest.mark.parametrize("call", LOOKUPS.keys())
def test_an_id_no_store_holds_is_refused_not_a_store_error(memory: Memory, call: str, value: str) -> None:
    """No stored id holds a NUL or a lone surrogate: PostgreSQL answered a StoreError, SQLite a
    UnicodeEncodeError; it is the caller's mistake, said so."""
    with pytest.raises(InvalidInput, match=r"NUL|surrogate"):
        LOOKUPS[call](memory, value)


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), "1", True])
def test_a_link_weight_that_is_no_finite_number_is_refused(memory: Memory, weight: object) -> None:
    """A NaN weight was returned as linked, then dropped by SQLite and kept by PostgreSQL, and an export
    wrote it as a bare NaN no JSON reader takes."""
    first = memory.remember("木木养了一只猫", agent="A")
    second = memory.remember("猫叫团子", agent="A")
    with pytest.raises(InvalidInput, match="weight"):
        memory.link(first.id, second.id, agent="A", weight=weight)  # type: ignore[arg-type]
    assert memory.links([first.id], agent="A") == []


def test_shown_as_one_string_is_refused_not_read_as_its_characters(memory: Memory) -> None:
    """``shown="我家的猫叫团子"`` was read as its characters: no line of the prompt was left out, silently."""
    with pytest.raises(InvalidInput, match="shown"):
        memory.context(agent="A", person="p", message="猫叫什么", shown="我家的猫叫团子")
    assert (
        "我家的猫叫团子" not in memory.context(agent="A", person="p", message="猫叫什么", shown=["我家的猫叫团子"]).text
    )
