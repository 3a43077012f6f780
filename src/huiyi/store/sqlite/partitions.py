"""The embedded store's partitions: one row per agent's scope, with the version its caches are kept under
and its BM25 counters (``sqlite.keyword``)."""

from __future__ import annotations

import sqlite3

from huiyi.model import Scope
from huiyi.store.rows import partition_key


def ensure_partition(conn: sqlite3.Connection, agent: str, scope: Scope) -> str:
    """The scope's partition key, with its row in ``partitions`` created if it is the first write.

    A new row starts past every version a dropped partition had (``drop_partition``): another process
    may still cache rows under such a version, and must not take them for this partition's."""
    part = partition_key(agent, scope)
    conn.execute(
        "INSERT OR IGNORE INTO partitions (part, agent, scope, version) VALUES (?, ?, ?, "
        "COALESCE((SELECT CAST(value AS INTEGER) + 1 FROM meta WHERE key = 'dropped_version'), 0))",
        (part, agent, scope.tag),
    )
    return part


def drop_partition(conn: sqlite3.Connection, part: str) -> None:
    """Delete a partition left without memories, keeping its version as the floor new partitions start past."""
    empty = "part = ? AND NOT EXISTS (SELECT 1 FROM memories WHERE part = ?)"
    conn.execute(
        f"INSERT INTO meta (key, value) SELECT 'dropped_version', version FROM partitions WHERE {empty} "
        "ON CONFLICT (key) DO UPDATE SET value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
        (part, part),
    )
    conn.execute(f"DELETE FROM partitions WHERE {empty}", (part, part))


def bump_version(conn: sqlite3.Connection, part: str) -> int:
    """Move a partition to its next version; returns the version it had."""
    old = conn.execute("SELECT version FROM partitions WHERE part = ?", (part,)).fetchone()[0]
    conn.execute("UPDATE partitions SET version = version + 1 WHERE part = ?", (part,))
    return int(old)


def count_in(conn: sqlite3.Connection, part: str, docs: int, tokens: int) -> None:
    """Add to a partition's counts of documents and tokens, its BM25 statistics (``sqlite.keyword``)."""
    conn.execute(
        "UPDATE partitions SET docs = docs + ?, fts_total = fts_total + ? WHERE part = ?", (docs, tokens, part)
    )
