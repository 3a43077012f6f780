"""A recall on PostgreSQL makes as few round trips as its reads allow (issue 15): each statement costs a
round trip to the server, more than most of them cost to run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.store.postgres import PostgresStore

QUIET = Config(worker={"enabled": False}, recall={"reinforce": False})  # nothing writes behind a recall


class _Counted:
    """A cursor that notes each statement it sends."""

    def __init__(self, cursor: Any, sent: list[str]) -> None:
        self._cursor = cursor
        self._sent = sent

    def execute(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._sent.append(" ".join(str(query).split()))
        return self._cursor.execute(query, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


def _counting(store: PostgresStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement the store sends from now on, as it is sent (the pool's own checks aside)."""
    sent: list[str] = []
    lend = store._cursor

    @contextmanager
    def counted(transaction: bool) -> Iterator[Any]:
        with lend(transaction) as cursor:
            yield _Counted(cursor, sent)

    monkeypatch.setattr(store, "_cursor", counted)
    return sent


@pytest.fixture
def memory() -> Iterator[Memory]:
    with Memory(pg_server.fresh_dsn(), embedder=HashEmbedder(32), config=QUIET) as opened:
        opened.create_entity("苏霓", agent="qy", person="mumu", aliases=["霓霓"])
        opened.add(["我养了一只猫叫团子", "团子今天把花瓶打碎了"], agent="qy", person="mumu")
        opened.add([{"speaker": "alice", "text": "周末一起去爬山吧"}], agent="qy", space="g1")
        opened.add([{"speaker": "bob", "text": "好啊，爬山要带水"}], agent="qy", space="g1")
        opened.add([{"speaker": "carol", "text": "我也去爬山"}], agent="qy", space="g1")
        opened.indexed()
        yield opened


def _statements(memory: Memory, monkeypatch: pytest.MonkeyPatch, query: str, **where: str) -> list[str]:
    """The statements of one recall of ``query`` on a warm store (the same recall made twice before)."""
    assert isinstance(memory.store, PostgresStore)
    for _ in range(2):
        assert memory.recall(query, agent="qy", **where).hits
    sent = _counting(memory.store, monkeypatch)
    memory.recall(query, agent="qy", **where)
    monkeypatch.undo()
    return sent


def test_a_recall_reads_its_pending_tail_and_names_versions_in_one_statement(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _statements(memory, monkeypatch, "团子怎么了", person="mumu")
    opening = [s for s in sent if "entity_versions" in s or "NOT indexed" in s or "person_versions" in s]
    assert len(opening) == 1, sent
    assert not [s for s in sent if "FROM persons" in s], sent  # the agent's persons are kept while they stand


def test_no_ids_cost_no_statement(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recall's late routes that add no candidate ask rank rows for none: not a round trip for nothing."""
    sent = _statements(memory, monkeypatch, "团子怎么了", person="mumu")
    assert len([s for s in sent if "data->>'subject'" in s]) == 1, sent  # the fused window's rank rows only
    assert isinstance(memory.store, PostgresStore)
    sent = _counting(memory.store, monkeypatch)
    assert memory.store.rank_rows("qy", []) == [] and memory.store.get_memories("qy", []) == []
    assert sent == []


def test_a_group_recall_reads_the_groups_latest_lines_once(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether the chat is a group is read from its latest lines: once a recall, however many stages ask."""
    sent = _statements(memory, monkeypatch, "爬山要带什么", space="g1")
    assert len([s for s in sent if "ORDER BY seq DESC" in s]) == 1, sent


@pytest.mark.parametrize(
    ("where", "query", "most"),
    [
        # the tail and names versions, the keyword search (its lexemes, then BM25), the dense scan, the
        # window's rank rows, the links of a graph walk (a hash embedder's best similarity is low: seed 004's
        # auto mode widens), the hits' memories
        ({"person": "mumu"}, "团子怎么了", 7),
        ({"space": "g1"}, "爬山要带什么", 8),  # and the group's latest lines
    ],
)
def test_a_warm_recall_makes_at_most_so_many_statements(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, where: dict[str, str], query: str, most: int
) -> None:
    sent = _statements(memory, monkeypatch, query, **where)
    assert len(sent) <= most, "\n".join(sent)
