"""What ``test_kill9`` reads of a store after its kills: plain SQL over either backend's tables."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from huiyi import Memory
from huiyi.model import JobState
from kill9_child import AGENT, CHATS, config


class Tables:
    """Plain SQL over either backend's tables."""

    def __init__(self, store: str) -> None:
        self.postgres = store.startswith("postgres") or "dbname=" in store
        if self.postgres:
            import psycopg

            self.conn: Any = psycopg.connect(store, autocommit=True)
        else:
            self.conn = sqlite3.connect(Path(store) / "huiyi.sqlite")

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql).fetchall())

    def one(self, sql: str) -> Any:
        return self.rows(sql)[0][0]

    def close(self) -> None:
        self.conn.close()


def settle(store: str) -> None:
    """Reopen the store as a bot restarting does, index what is left and run every job out."""
    with Memory(store, config=config(worker=False)) as memory:
        memory.indexed()
        deadline = time.monotonic() + 60
        # a job a killed process held is taken again once its lease (a second here) runs out
        while memory.jobs(agent=AGENT, states=[JobState.PENDING, JobState.RUNNING]) and time.monotonic() < deadline:
            if not memory.run_jobs():
                time.sleep(0.2)


def audit(store: str) -> dict[str, Any]:
    """What is wrong in the store: each key a kind of damage, each value what shows it (empty: none)."""
    tables = Tables(store)
    false = "false" if tables.postgres else "0"
    try:
        found: dict[str, Any] = {
            "duplicated texts": tables.rows(
                "SELECT text, count(*) FROM messages GROUP BY agent, space, text HAVING count(*) > 1"
            ),
            "duplicated seqs": tables.rows(
                "SELECT space, seq, count(*) FROM messages GROUP BY agent, space, seq HAVING count(*) > 1"
            ),
            "unindexed messages": tables.rows(f"SELECT id FROM messages WHERE indexed = {false}"),
            "duplicated memories": tables.rows(
                "SELECT kind, text, sources, count(*) FROM memories GROUP BY part, kind, text, sources"
                " HAVING count(*) > 1"
            ),
            "memories without a vector": tables.rows(
                "SELECT m.id FROM memories m LEFT JOIN memory_vectors v ON v.rowid = m.rowid WHERE v.rowid IS NULL"
            ),
            "vectors without a memory": tables.rows(
                "SELECT v.rowid FROM memory_vectors v LEFT JOIN memories m ON v.rowid = m.rowid WHERE m.rowid IS NULL"
            ),
            "jobs left": tables.rows("SELECT kind, state, last_error FROM jobs WHERE state <> 'done'"),
        }
        if not tables.postgres:
            found["keyword rows without a memory"] = tables.rows(
                "SELECT rowid FROM memory_fts WHERE rowid NOT IN (SELECT rowid FROM memories)"
            )
            found["memories without keyword rows"] = tables.rows(
                "SELECT id FROM memories WHERE rowid NOT IN (SELECT rowid FROM memory_fts)"
            )
            found["keyword rows twice"] = tables.one("SELECT count(*) FROM memory_fts") - tables.one(
                "SELECT count(DISTINCT rowid) FROM memory_fts"
            )
        cited: dict[tuple[str, str], int] = {}
        for part, sources in tables.rows("SELECT part, sources FROM memories WHERE kind = 'event'"):
            for source in sources_of(sources):
                cited[part, source] = cited.get((part, source), 0) + 1
        found["messages in two events"] = sorted(key for key, n in cited.items() if n > 1)
        extracted = {
            s
            for (sources,) in tables.rows("SELECT sources FROM memories WHERE kind IN ('event', 'fact')")
            for s in sources_of(sources)
        }
        starts = dict(tables.rows("SELECT space, start_seq FROM working_memory"))
        found["folded messages never extracted"] = sorted(
            i
            for i, space, seq in tables.rows("SELECT id, space, seq FROM messages")
            if seq < starts.get(space, 1) and i not in extracted
        )
        anchors = {_first_source(s) for (s,) in tables.rows("SELECT sources FROM memories WHERE kind = 'chunk'")}
        found["messages without a chunk"] = sorted(
            i for (i,) in tables.rows("SELECT id FROM messages") if i not in anchors
        )
        return found
    finally:
        tables.close()


def sources_of(sources: Any) -> list[str]:
    return [str(s) for s in (json.loads(sources) if isinstance(sources, str) else sources)]


def _first_source(sources: Any) -> str:
    return sources_of(sources)[0]


def stored_ids(store: str) -> list[str]:
    tables = Tables(store)
    try:
        return [i for (i,) in tables.rows("SELECT id FROM messages")]
    finally:
        tables.close()


def assert_clean(store: str, *, but: str = "") -> None:
    damage = {kind: shown for kind, shown in audit(store).items() if shown and kind != but}
    assert damage == {}, {kind: str(shown)[:300] for kind, shown in damage.items()}  # CI shows what it was


def assert_sane_contexts(store: str) -> None:
    with Memory(store, config=config(worker=False)) as memory:
        for chat in CHATS:
            working = memory.working_memory(agent=AGENT, **chat)
            ids = [m.id for m in working]
            assert len(ids) == len(set(ids))
            assert [m.seq for m in working] == sorted(m.seq for m in working)
            text = memory.context(agent=AGENT, message="我喜欢吃什么？", **chat).text
            assert text.strip()
