"""What an erasure took while a unit of work was being made (by another instance or process): the messages a
batch of chunks embedded, and what a merge or summary was made from (``Writes.made_from``). Read in the write
transaction, so the erasure is wholly before it or after it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from huiyi.model import MemoryItem
from huiyi.store.madefrom import made_from_gone, to_look_up
from huiyi.store.sqlite.connection import chunks, marks

__all__ = ["erased", "unmade_ids"]


def erased(conn: sqlite3.Connection, messages: Sequence[tuple[str, str]]) -> set[str]:
    """The ids of these (agent, id) messages that are no longer stored: their chunks must not be written."""
    by_agent: dict[str, list[str]] = {}
    for agent, message_id in messages:
        by_agent.setdefault(agent, []).append(message_id)
    gone: set[str] = set()
    for agent, ids in by_agent.items():
        for chunk in chunks(ids, 500):
            found = conn.execute(
                f"SELECT id FROM messages WHERE agent = ? AND id IN ({marks(len(chunk))})", (agent, *chunk)
            )
            gone.update(set(chunk) - {str(row[0]) for row in found})
    return gone


def unmade_ids(conn: sqlite3.Connection, items: Sequence[MemoryItem], made_from: Sequence[Sequence[str]]) -> set[str]:
    """The ids of ``items`` made from what is no longer stored (``made_from``: one list per item), directly or
    through another of ``items``."""
    missing: set[str] = set()
    for agent, ids in to_look_up(items, made_from).items():
        for chunk in chunks(ids, 400):
            found = conn.execute(
                f"SELECT id FROM messages WHERE agent = ? AND id IN ({marks(len(chunk))})"
                f" UNION SELECT id FROM memories WHERE agent = ? AND id IN ({marks(len(chunk))})",
                (agent, *chunk, agent, *chunk),
            )
            missing.update(set(chunk) - {str(row[0]) for row in found})
    return made_from_gone(items, made_from, missing) - missing
