"""Erasure on SQLite: a person or some messages forgotten in one transaction, then purged from the files.

Rows go in one ``BEGIN IMMEDIATE`` transaction (with ``secure_delete`` on, freed content is zeroed);
the keyword index is then rebuilt so no old segment keeps a term, the WAL is checkpointed and
truncated, and the file is vacuumed, so no page of the database or its WAL holds the erased text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from huiyi.model import Scope
from huiyi.store.base import Erasure
from huiyi.store.rows import partition_key
from huiyi.store.sqlite.connection import chunks, marks
from huiyi.store.sqlite.memories import SQLiteMemories, delete_memory_rows


class SQLiteErase(SQLiteMemories):
    """``EraseStore`` on SQLite."""

    def erase(
        self,
        agent: str,
        message_ids: Sequence[str],
        *,
        person: str | None = None,
        names: Sequence[str] = (),
        window: int = 0,
    ) -> Erasure:
        done = Erasure()
        with self._write() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS erased (id TEXT PRIMARY KEY)")
            conn.execute("DELETE FROM erased")
            for chunk in chunks(message_ids, 500):
                conn.executemany("INSERT OR IGNORE INTO erased VALUES (?)", [(i,) for i in chunk])
            scope = Scope.of_person(agent, person).tag if person else None
            if person is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO erased SELECT id FROM messages "
                    "WHERE agent = ? AND (scope = ? OR speaker = ?)",
                    (agent, scope, person),
                )
            memory_ids = _memories_to_erase(conn, agent, scope, person, names) + _chunks_near(conn, agent, window)
            memory_ids += _derived(conn, agent, memory_ids)
            done.reindexed = _reindex_others(conn, agent, memory_ids)
            removed = delete_memory_rows(conn, agent, memory_ids)
            done.jobs = conn.execute(
                "DELETE FROM jobs WHERE agent = ? AND (json_extract(payload, '$.scope') IS ? OR EXISTS "
                "(SELECT 1 FROM json_each(jobs.payload, '$.message_ids') j JOIN erased e ON e.id = j.value))",
                (agent, scope),
            ).rowcount
            _erase_reports(conn, agent, scope, names)
            done.messages = conn.execute(
                "DELETE FROM messages WHERE agent = ? AND id IN (SELECT id FROM erased)", (agent,)
            ).rowcount
            done.entities = _erase_entities(conn, agent, scope, names)
            if person is not None:
                conn.execute("DELETE FROM working_memory WHERE agent = ? AND space = ?", (agent, scope))
                done.persons = conn.execute("DELETE FROM persons WHERE agent = ? AND id = ?", (agent, person)).rowcount
                done.blocks = conn.execute(
                    "DELETE FROM person_blocks WHERE agent = ? AND person = ?", (agent, person)
                ).rowcount
                part = partition_key(agent, Scope.of_person(agent, person))
                conn.execute(
                    "DELETE FROM partitions WHERE part = ? AND NOT EXISTS (SELECT 1 FROM memories WHERE part = ?)",
                    (part, part),
                )
            conn.execute("DELETE FROM erased")
            # rebuild the keyword index's segments: a deleted row's terms stay in old segments until merged
            conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")
        done.memories = self._uncache(removed)
        self._purge()
        return done

    def _purge(self) -> None:
        """Leave no erased byte in the database file or its WAL."""
        conn = self._conn()
        with self._write_lock:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _memories_to_erase(
    conn: sqlite3.Connection, agent: str, scope: str | None, person: str | None, names: Sequence[str]
) -> list[str]:
    """Memories made from an erased message; with a person also their scope's, and facts and profiles about them."""
    made_from = "EXISTS (SELECT 1 FROM json_each(memories.sources) s JOIN erased e ON e.id = s.value)"
    if person is None:
        rows = conn.execute(f"SELECT id FROM memories WHERE agent = ? AND {made_from}", (agent,))
        return [str(row[0]) for row in rows]
    about = f"(kind = 'fact' AND json_extract(data, '$.subject') IN ({marks(len(names))})) OR " if names else ""
    rows = conn.execute(
        f"SELECT id FROM memories WHERE agent = ? AND (scope = ? OR {made_from} OR {about}"
        "(kind = 'summary' AND json_extract(data, '$.person') = ?))",
        (agent, scope, *names, person),
    )
    return [str(row[0]) for row in rows]


def _chunks_near(conn: sqlite3.Connection, agent: str, window: int) -> list[str]:
    """Chunks of others' messages up to ``window`` turns after an erased one: their vectors embedded it."""
    if window <= 0:
        return []
    rows = conn.execute(
        "SELECT c.id FROM messages e JOIN messages m ON m.agent = e.agent AND m.space = e.space "
        "AND m.seq > e.seq AND m.seq <= e.seq + ? "
        "JOIN memories c ON c.agent = m.agent AND c.kind = 'chunk' AND json_extract(c.sources, '$[0]') = m.id "
        "WHERE e.agent = ? AND e.id IN (SELECT id FROM erased) AND m.id NOT IN (SELECT id FROM erased)",
        (window, agent),
    )
    return [str(row[0]) for row in rows]


def _reindex_others(conn: sqlite3.Connection, agent: str, memory_ids: Sequence[str]) -> int:
    """Chunks that go take other people's turns with them: their anchor messages are indexed again, at once
    (the claims of their first indexing, leased for minutes, would keep every indexer off them)."""
    marked = 0
    for chunk in chunks(memory_ids, 500):
        marked += conn.execute(
            "UPDATE messages SET indexed = 0, claimed_by = '', claim_until = NULL "
            "WHERE agent = ? AND indexed = 1 AND id NOT IN (SELECT id FROM erased) "
            "AND id IN (SELECT json_extract(sources, '$[0]') FROM memories "
            f"WHERE agent = ? AND kind = 'chunk' AND id IN ({marks(len(chunk))}))",
            (agent, agent, *chunk),
        ).rowcount
    return marked


def _derived(conn: sqlite3.Connection, agent: str, memory_ids: Sequence[str]) -> list[str]:
    """Memories made from memories that go (a daily summary of events, a global one of dailies): they quote them."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS erased_memories (id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM erased_memories")
    conn.executemany("INSERT OR IGNORE INTO erased_memories VALUES (?)", [(i,) for i in memory_ids])
    found: list[str] = []
    while True:  # each round one step further from the messages; ends when a round finds nothing new
        rows = conn.execute(
            "SELECT id FROM memories WHERE agent = ? AND id NOT IN (SELECT id FROM erased_memories) AND EXISTS "
            "(SELECT 1 FROM json_each(memories.sources) s JOIN erased_memories e ON e.id = s.value)",
            (agent,),
        ).fetchall()
        if not rows:
            break
        step = [str(row[0]) for row in rows]
        conn.executemany("INSERT OR IGNORE INTO erased_memories VALUES (?)", [(i,) for i in step])
        found += step
    conn.execute("DELETE FROM erased_memories")
    return found


def _erase_entities(conn: sqlite3.Connection, agent: str, scope: str | None, names: Sequence[str]) -> int:
    """Entities of the person's scope, named by their names or aliases, or named only by erased messages
    (a place or thing their words made), and the merges that involved them."""
    name_marks = marks(len(names))
    named = (
        f"name IN ({name_marks}) OR EXISTS "
        f"(SELECT 1 FROM json_each(entities.aliases) a WHERE a.value IN ({name_marks}))"
        if names
        else "0"
    )
    only_erased = (
        "(json_array_length(sources) > 0 AND NOT EXISTS (SELECT 1 FROM json_each(entities.sources) s "
        "WHERE s.value NOT IN (SELECT id FROM erased)))"
    )
    ids = [
        str(row[0])
        for row in conn.execute(
            f"SELECT id FROM entities WHERE agent = ? AND (scope IS ? OR {named} OR {only_erased})",
            (agent, scope, *names, *names),
        )
    ]
    for chunk in chunks(ids, 500):
        id_marks = marks(len(chunk))
        conn.execute(
            f"DELETE FROM entity_merges WHERE agent = ? AND (source IN ({id_marks}) OR target IN ({id_marks}))",
            (agent, *chunk, *chunk),
        )
        conn.execute(f"DELETE FROM entities WHERE agent = ? AND id IN ({id_marks})", (agent, *chunk))
    return len(ids)


def _erase_reports(conn: sqlite3.Connection, agent: str, scope: str | None, names: Sequence[str]) -> None:
    """Maintenance reports that may quote what goes: of the erased messages' scopes, or naming the person."""
    conn.execute(
        "DELETE FROM reports WHERE agent = ? AND (scope IS ? OR scope IN "
        "(SELECT scope FROM messages WHERE agent = ? AND id IN (SELECT id FROM erased)))",
        (agent, scope, agent),
    )
    for name in names:
        if name:
            conn.execute("DELETE FROM reports WHERE agent = ? AND instr(body, ?) > 0", (agent, name))
