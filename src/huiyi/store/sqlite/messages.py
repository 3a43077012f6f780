"""The embedded store's conversation side: persons, their core blocks, messages and working memory."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import datetime

from huiyi.errors import InvalidInput
from huiyi.model import Message, Person, Scope
from huiyi.store import rows
from huiyi.store.base import Claim, ScopeStats
from huiyi.store.jsontext import json_text
from huiyi.store.rows import EVERY_SPEAKER, MESSAGE_COLUMNS, TEXT, fold_of, id_taken, to_epoch
from huiyi.store.sqlite.connection import SQLiteConnection, chunks, marks

# a space's last seq given out, as the messages' MAX(seq) read with it (its agent and space bound before the
# messages'): never below the start of working memory, so a message added after the chat's newest ones were
# forgotten takes no seq a fold has covered (it was then neither in working memory nor ever folded)
_LAST_SEQ = (
    "MAX(COALESCE(MAX(seq), 0), COALESCE("
    "(SELECT w.start_seq - 1 FROM working_memory w WHERE w.agent = ? AND w.space = ?), 0))"
)


class SQLiteMessages(SQLiteConnection):
    """``MessageStore`` on SQLite."""

    # persons -------------------------------------------------------------------------------------
    def upsert_person(self, agent: str, person: Person) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO persons (agent, id, name, aliases, platform_ids) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (agent, id) DO UPDATE SET name = excluded.name, aliases = excluded.aliases, "
                "platform_ids = excluded.platform_ids",
                (agent, person.id, person.name, json_text(person.aliases), json_text(person.platform_ids)),
            )

    def get_person(self, agent: str, person_id: str) -> Person | None:
        row = (
            self._conn()
            .execute(
                "SELECT id, name, aliases, platform_ids FROM persons WHERE agent = ? AND id = ?", (agent, person_id)
            )
            .fetchone()
        )
        return rows.person(row, TEXT) if row else None

    def list_persons(self, agent: str) -> list[Person]:
        found = (
            self._conn()
            .execute("SELECT id, name, aliases, platform_ids FROM persons WHERE agent = ? ORDER BY id", (agent,))
            .fetchall()
        )
        return [rows.person(row, TEXT) for row in found]

    def persons_version(self, agent: str) -> int:
        row = self._conn().execute("SELECT version FROM person_versions WHERE agent = ?", (agent,)).fetchone()
        return int(row[0]) if row else 0

    # person blocks -------------------------------------------------------------------------------
    def person_blocks(self, agent: str, person: str) -> dict[str, str]:
        found = (
            self._conn()
            .execute("SELECT label, text FROM person_blocks WHERE agent = ? AND person = ?", (agent, person))
            .fetchall()
        )
        return {str(label): str(text) for label, text in found}

    def set_person_block(self, agent: str, person: str, label: str, text: str, expected: str | None) -> bool:
        with self._write() as conn:
            row = conn.execute(
                "SELECT text FROM person_blocks WHERE agent = ? AND person = ? AND label = ?", (agent, person, label)
            ).fetchone()
            if (row[0] if row else None) != expected:
                return False
            conn.execute(
                "INSERT INTO person_blocks (agent, person, label, text, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (agent, person, label) "
                "DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
                (agent, person, label, text, time.time()),
            )
            return True

    # messages ------------------------------------------------------------------------------------
    def append_messages(self, messages: Sequence[Message], claim: Claim | None = None) -> list[Message]:
        inserted: list[Message] = []
        claimed_by, claim_until = (claim.worker, to_epoch(claim.until)) if claim else ("", None)
        if len(messages) == 1:
            return self._append_one(messages[0], claimed_by, claim_until)
        with self._write() as conn:
            next_seq: dict[tuple[str, str], int] = {}
            for message in messages:
                space_key = (message.agent, message.space)
                if space_key not in next_seq:
                    row = conn.execute(
                        f"SELECT {_LAST_SEQ} FROM messages WHERE agent = ? AND space = ?", space_key * 2
                    ).fetchone()
                    next_seq[space_key] = int(row[0]) + 1
                seq = next_seq[space_key]
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO messages (agent, id, space, scope, speaker, role, text, time, seq,"
                    " claimed_by, claim_until, time_fold) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        message.agent,
                        message.id,
                        message.space,
                        message.scope.tag,
                        message.speaker,
                        message.role,
                        message.text,
                        to_epoch(message.time),
                        seq,
                        claimed_by,
                        claim_until,
                        fold_of(message.time),
                    ),
                )
                if cursor.rowcount:
                    next_seq[space_key] = seq + 1
                    inserted.append(message.model_copy(update={"seq": seq}))
                else:
                    _same_conversation(conn, message)  # raises, and the batch is rolled back
        return inserted

    def _append_one(self, message: Message, claimed_by: str, claim_until: float | None) -> list[Message]:
        """A bot's one-message add in one statement, its own transaction: an INSERT takes the write lock
        before it reads, so the next seq it reads is the one it writes. Each statement lets go of the GIL
        and waits to take it back, on a busy process several ms: four made the tail of an add (issue 15)."""
        conn = self._conn()
        with self._write_lock, self._room():
            row = conn.execute(
                "INSERT OR IGNORE INTO messages (agent, id, space, scope, speaker, role, text, time, seq,"
                f" claimed_by, claim_until, time_fold) SELECT ?, ?, ?, ?, ?, ?, ?, ?, {_LAST_SEQ} + 1, ?, ?, ?"
                " FROM messages WHERE agent = ? AND space = ? RETURNING seq",
                (
                    message.agent,
                    message.id,
                    message.space,
                    message.scope.tag,
                    message.speaker,
                    message.role,
                    message.text,
                    to_epoch(message.time),
                    message.agent,
                    message.space,
                    claimed_by,
                    claim_until,
                    fold_of(message.time),
                    message.agent,
                    message.space,
                ),
            ).fetchone()
        if row is None:
            _same_conversation(conn, message)
            return []
        return [message.model_copy(update={"seq": int(row[0])})]

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]:
        found: dict[str, Message] = {}
        for chunk in chunks(ids, 500):
            cursor = self._conn().execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = ? AND id IN ({marks(len(chunk))})",
                (agent, *chunk),
            )
            found.update((row[1], rows.message(row, TEXT)) for row in cursor)
        return [found[i] for i in ids if i in found]

    def recent_messages(
        self, agent: str, space: str, limit: int, before_seq: int | None = None, *, from_seq: int | None = None
    ) -> list[Message]:
        found = (
            self._conn()
            .execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = ? AND space = ? AND seq < ? AND seq >= ? "
                "ORDER BY seq DESC LIMIT ?",
                (agent, space, before_seq if before_seq is not None else 2**62, from_seq or 0, limit),
            )
            .fetchall()
        )
        return [rows.message(row, TEXT) for row in reversed(found)]

    def messages_between(self, agent: str, space: str, start: datetime, end: datetime) -> list[Message]:
        found = self._conn().execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = ? AND space = ? AND time >= ? AND time < ?"
            " ORDER BY seq",
            (agent, space, to_epoch(start), to_epoch(end)),
        )
        return [rows.message(row, TEXT) for row in found.fetchall()]

    def spoke_in(self, agent: str, space: str, speakers: Sequence[str] | None) -> set[str]:
        conn = self._conn()
        if speakers is None:
            return {row[0] for row in conn.execute(EVERY_SPEAKER.replace("%s", "?"), (agent, space, agent, space))}
        query = "SELECT 1 FROM messages WHERE agent = ? AND space = ? AND speaker = ? LIMIT 1"
        return {s for s in dict.fromkeys(speakers) if conn.execute(query, (agent, space, s)).fetchone()}

    def unindexed_messages(
        self, limit: int, scopes: Sequence[Scope] | None = None, keep: Callable[[str], bool] | None = None
    ) -> list[Message]:
        if scopes is None:
            sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE indexed = 0 ORDER BY rowid LIMIT ?"
            return [rows.message(row, TEXT) for row in self._conn().execute(sql, (limit,))]
        if not scopes:
            return []
        # the partial index on unindexed rows: one probe when nothing waits, as on nearly every recall
        either = " OR ".join(["(agent = ? AND scope = ?)"] * len(scopes))
        args = [value for scope in scopes for value in (scope.agent, scope.tag)]
        conn = self._conn()
        if keep is not None:
            sql = f"SELECT rowid, text FROM messages WHERE indexed = 0 AND ({either}) ORDER BY rowid DESC LIMIT ?"
            kept = [rowid for rowid, text in conn.execute(sql, (*args, limit)) if keep(text)]
            sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE rowid IN ({marks(len(kept))}) ORDER BY rowid"
            return [rows.message(row, TEXT) for row in conn.execute(sql, kept)] if kept else []
        sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE indexed = 0 AND ({either}) ORDER BY rowid DESC LIMIT ?"
        return [rows.message(row, TEXT) for row in reversed(conn.execute(sql, (*args, limit)).fetchall())]

    def claim_unindexed(self, worker: str, now: datetime, lease_seconds: float, limit: int) -> list[Message]:
        at = to_epoch(now) or 0.0
        # BEGIN IMMEDIATE holds the write lock from the read to the update: no other process claims between
        with self._write() as conn:
            found = conn.execute(
                f"SELECT rowid, {MESSAGE_COLUMNS} FROM messages"
                " WHERE indexed = 0 AND (claim_until IS NULL OR claim_until < ?) ORDER BY rowid LIMIT ?",
                (at, limit),
            ).fetchall()
            for chunk in chunks([str(row[0]) for row in found], 500):
                conn.execute(
                    f"UPDATE messages SET claimed_by = ?, claim_until = ? WHERE rowid IN ({marks(len(chunk))})",
                    (worker, at + lease_seconds, *chunk),
                )
        return [rows.message(row[1:], TEXT) for row in found]

    def release_messages(self, worker: str, messages: Sequence[tuple[str, str]]) -> None:
        with self._write() as conn:
            conn.executemany(
                "UPDATE messages SET claimed_by = '', claim_until = NULL"
                " WHERE agent = ? AND id = ? AND claimed_by = ? AND indexed = 0",
                [(agent, message_id, worker) for agent, message_id in messages],
            )

    def release_claims(self, dead: Callable[[str], bool]) -> int:
        held = self._conn().execute("SELECT DISTINCT claimed_by FROM messages WHERE indexed = 0 AND claimed_by != ''")
        gone = [str(worker) for (worker,) in held if dead(str(worker))]
        released = 0
        with self._write() as conn:
            for chunk in chunks(gone, 500):
                released += conn.execute(
                    "UPDATE messages SET claimed_by = '', claim_until = NULL"
                    f" WHERE indexed = 0 AND claimed_by IN ({marks(len(chunk))})",
                    chunk,
                ).rowcount
        return released

    # working memory ------------------------------------------------------------------------------
    def working_start(self, agent: str, space: str) -> int:
        row = (
            self._conn()
            .execute("SELECT start_seq FROM working_memory WHERE agent = ? AND space = ?", (agent, space))
            .fetchone()
        )
        return int(row[0]) if row else 1

    def scope_stats(self, agent: str | None = None) -> list[ScopeStats]:
        where, args = ("WHERE agent = ?", (agent,)) if agent is not None else ("", ())
        conn = self._conn()
        messages = conn.execute(
            f"SELECT agent, space, COUNT(*), MAX(time) FROM messages {where} GROUP BY agent, space", args
        ).fetchall()
        memories = conn.execute(
            f"SELECT agent, scope, COUNT(*), MAX(created_at) FROM memories {where} GROUP BY agent, scope", args
        ).fetchall()
        return rows.scope_stats(messages, memories, TEXT)


def _same_conversation(conn: sqlite3.Connection, message: Message) -> None:
    """A message id already stored is a resend (nothing to do) in its own conversation; in another it is
    a different message, which would be lost without a word (chat platforms number messages per chat)."""
    row = conn.execute("SELECT space FROM messages WHERE agent = ? AND id = ?", (message.agent, message.id)).fetchone()
    if row is not None and row[0] != message.space:
        raise InvalidInput(id_taken(message))
