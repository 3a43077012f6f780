"""The server store's conversation side: persons, their core blocks, messages and working memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from huiyi.errors import InvalidInput
from huiyi.model import Message, Person, Scope
from huiyi.store import rows
from huiyi.store.base import Claim, ScopeStats
from huiyi.store.jsontext import json_text
from huiyi.store.postgres.connection import PostgresConnection
from huiyi.store.rows import EVERY_SPEAKER, MESSAGE_COLUMNS, NATIVE, fold_of, id_taken, naive

# the newest unindexed rows' texts of some scopes (``of_scopes``), through the partial index on unindexed
# rows: one probe when nothing waits, as on nearly every recall
UNINDEXED_TEXTS = "SELECT rowid, text FROM messages WHERE NOT indexed AND ({either}) ORDER BY rowid DESC LIMIT %s"
# the agent's persons version (no row: none of its persons was ever written)
PERSONS_VERSION = "SELECT COALESCE((SELECT version FROM person_versions WHERE agent = %s), 0)"


def of_scopes(scopes: Sequence[Scope]) -> tuple[str, list[str]]:
    """A test of a message's agent and scope tag against ``scopes``, and its arguments."""
    either = " OR ".join(["(agent = %s AND scope = %s)"] * len(scopes))
    return either, [value for scope in scopes for value in (scope.agent, scope.tag)]


class PostgresMessages(PostgresConnection):
    """``MessageStore`` on PostgreSQL."""

    # persons -------------------------------------------------------------------------------------
    def upsert_person(self, agent: str, person: Person) -> None:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO persons (agent, id, name, aliases, platform_ids) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (agent, id) DO UPDATE SET name = excluded.name, aliases = excluded.aliases,"
                " platform_ids = excluded.platform_ids",
                (agent, person.id, person.name, json_text(person.aliases), json_text(person.platform_ids)),
            )

    def get_person(self, agent: str, person_id: str) -> Person | None:
        found = self._rows(
            "SELECT id, name, aliases, platform_ids FROM persons WHERE agent = %s AND id = %s", (agent, person_id)
        )
        return rows.person(found[0], NATIVE) if found else None

    def list_persons(self, agent: str) -> list[Person]:
        found = self._rows("SELECT id, name, aliases, platform_ids FROM persons WHERE agent = %s ORDER BY id", (agent,))
        return [rows.person(row, NATIVE) for row in found]

    def persons_version(self, agent: str) -> int:
        return int(self._rows(PERSONS_VERSION, (agent,))[0][0])

    # person blocks -------------------------------------------------------------------------------
    def person_blocks(self, agent: str, person: str) -> dict[str, str]:
        found = self._rows("SELECT label, text FROM person_blocks WHERE agent = %s AND person = %s", (agent, person))
        return {str(label): str(text) for label, text in found}

    def set_person_block(self, agent: str, person: str, label: str, text: str, expected: str | None) -> bool:
        with self._write() as cur:
            # the row lock (or the insert's key conflict) makes the check and the write one step
            row = cur.execute(
                "SELECT text FROM person_blocks WHERE agent = %s AND person = %s AND label = %s FOR UPDATE",
                (agent, person, label),
            ).fetchone()
            if (row[0] if row else None) != expected:
                return False
            if row is None:
                cur.execute(
                    "INSERT INTO person_blocks (agent, person, label, text, updated_at) VALUES (%s, %s, %s, %s, now())"
                    " ON CONFLICT DO NOTHING",
                    (agent, person, label, text),
                )
                return cur.rowcount == 1
            cur.execute(
                "UPDATE person_blocks SET text = %s, updated_at = now()"
                " WHERE agent = %s AND person = %s AND label = %s",
                (text, agent, person, label),
            )
            return True

    # messages ------------------------------------------------------------------------------------
    def append_messages(self, messages: Sequence[Message], claim: Claim | None = None) -> list[Message]:
        inserted: list[Message] = []
        claimed_by, claim_until = (claim.worker, naive(claim.until)) if claim else ("", None)
        with self._write() as cur:
            next_seq: dict[tuple[str, str], int] = {}
            # one writer per space at a time, locked in a fixed order so two batches cannot deadlock
            for agent, space in sorted({(m.agent, m.space) for m in messages}):
                cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{agent}\x1f{space}",))
                # never below the start of working memory: the chat's newest messages forgotten, a seq a fold
                # covered given out again left the new message out of working memory and of every fold
                row = cur.execute(
                    "SELECT GREATEST(COALESCE(max(seq), 0), COALESCE((SELECT w.start_seq - 1 FROM working_memory w"
                    " WHERE w.agent = %s AND w.space = %s), 0)) FROM messages WHERE agent = %s AND space = %s",
                    (agent, space, agent, space),
                ).fetchone()
                next_seq[(agent, space)] = int(row[0] if row else 0) + 1
            for message in messages:
                seq = next_seq[(message.agent, message.space)]
                cur.execute(
                    "INSERT INTO messages (agent, id, space, scope, speaker, role, text, time, seq, claimed_by,"
                    " claim_until, time_fold) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (agent, id) DO NOTHING",
                    (
                        message.agent,
                        message.id,
                        message.space,
                        message.scope.tag,
                        message.speaker,
                        message.role,
                        message.text,
                        naive(message.time),
                        seq,
                        claimed_by,
                        claim_until,
                        fold_of(message.time),
                    ),
                )
                if cur.rowcount:
                    next_seq[(message.agent, message.space)] = seq + 1
                    inserted.append(message.model_copy(update={"seq": seq}))
                else:  # a resend in its own conversation; in another, a different message: refused
                    row = cur.execute(
                        "SELECT space FROM messages WHERE agent = %s AND id = %s", (message.agent, message.id)
                    ).fetchone()
                    if row is not None and row[0] != message.space:
                        raise InvalidInput(id_taken(message))  # the batch is rolled back
        return inserted

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]:
        found = self._rows(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))
        )
        by_id = {row[1]: rows.message(row, NATIVE) for row in found}
        return [by_id[i] for i in ids if i in by_id]

    def recent_messages(
        self, agent: str, space: str, limit: int, before_seq: int | None = None, *, from_seq: int | None = None
    ) -> list[Message]:
        found = self._rows(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND space = %s AND seq < %s AND seq >= %s"
            " ORDER BY seq DESC LIMIT %s",
            (agent, space, before_seq if before_seq is not None else 2**62, from_seq or 0, limit),
        )
        return [rows.message(row, NATIVE) for row in reversed(found)]

    def messages_between(self, agent: str, space: str, start: datetime, end: datetime) -> list[Message]:
        found = self._rows(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND space = %s AND time >= %s AND time < %s"
            " ORDER BY seq",
            (agent, space, start, end),
        )
        return [rows.message(row, NATIVE) for row in found]

    def spoke_in(self, agent: str, space: str, speakers: Sequence[str] | None) -> set[str]:
        if speakers is None:
            return {row[0] for row in self._rows(EVERY_SPEAKER, (agent, space, agent, space))}
        found = self._rows(
            "SELECT DISTINCT speaker FROM messages WHERE agent = %s AND space = %s AND speaker = ANY(%s)",
            (agent, space, list(dict.fromkeys(speakers))),
        )
        return {row[0] for row in found}

    def unindexed_messages(
        self, limit: int, scopes: Sequence[Scope] | None = None, keep: Callable[[str], bool] | None = None
    ) -> list[Message]:
        if scopes is None:
            sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE NOT indexed ORDER BY rowid LIMIT %s"
            return [rows.message(row, NATIVE) for row in self._rows(sql, (limit,))]
        if not scopes:
            return []
        either, args = of_scopes(scopes)
        if keep is not None:
            texts = self._rows(UNINDEXED_TEXTS.format(either=either), (*args, limit))
            return self.kept_messages(texts, keep)
        sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE NOT indexed AND ({either}) ORDER BY rowid DESC LIMIT %s"
        return [rows.message(row, NATIVE) for row in reversed(self._rows(sql, (*args, limit)))]

    def kept_messages(self, texts: Sequence[tuple[object, ...]], keep: Callable[[str], bool]) -> list[Message]:
        """The messages of the (rowid, text) rows whose text ``keep`` accepts, read whole, oldest first."""
        kept = [rowid for rowid, text in texts if rowid is not None and keep(str(text))]
        sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE rowid = ANY(%s) ORDER BY rowid"
        return [rows.message(row, NATIVE) for row in self._rows(sql, (kept,))] if kept else []

    def claim_unindexed(self, worker: str, now: datetime, lease_seconds: float, limit: int) -> list[Message]:
        at = naive(now)
        until = at + timedelta(seconds=lease_seconds) if at is not None else None
        with self._write() as cur:
            # rows another claimer has locked are skipped, never waited for nor taken twice
            found = cur.execute(
                f"UPDATE messages SET claimed_by = %(worker)s, claim_until = %(until)s"
                f" WHERE rowid IN (SELECT rowid FROM messages WHERE NOT indexed"
                f" AND (claim_until IS NULL OR claim_until < %(at)s) ORDER BY rowid LIMIT %(limit)s"
                f" FOR UPDATE SKIP LOCKED) RETURNING rowid, {MESSAGE_COLUMNS}",
                {"worker": worker, "until": until, "at": at, "limit": limit},
            ).fetchall()
        return [rows.message(row[1:], NATIVE) for row in sorted(found, key=lambda row: int(row[0]))]

    def release_messages(self, worker: str, messages: Sequence[tuple[str, str]]) -> None:
        by_agent: dict[str, list[str]] = {}
        for agent, message_id in messages:
            by_agent.setdefault(agent, []).append(message_id)
        with self._write() as cur:
            for agent, ids in by_agent.items():
                cur.execute(
                    "UPDATE messages SET claimed_by = '', claim_until = NULL"
                    " WHERE agent = %s AND id = ANY(%s) AND claimed_by = %s AND NOT indexed",
                    (agent, ids, worker),
                )

    def release_claims(self, dead: Callable[[str], bool]) -> int:
        held = self._rows("SELECT DISTINCT claimed_by FROM messages WHERE NOT indexed AND claimed_by != ''")
        gone = [str(row[0]) for row in held if dead(str(row[0]))]
        if not gone:
            return 0
        with self._write() as cur:
            cur.execute(
                "UPDATE messages SET claimed_by = '', claim_until = NULL WHERE NOT indexed AND claimed_by = ANY(%s)",
                (gone,),
            )
            return cur.rowcount

    # working memory ------------------------------------------------------------------------------
    def working_start(self, agent: str, space: str) -> int:
        found = self._rows("SELECT start_seq FROM working_memory WHERE agent = %s AND space = %s", (agent, space))
        return int(found[0][0]) if found else 1

    def scope_stats(self, agent: str | None = None) -> list[ScopeStats]:
        where, args = ("WHERE agent = %s", (agent,)) if agent is not None else ("", ())
        messages = self._rows(
            f"SELECT agent, space, COUNT(*), MAX(time) FROM messages {where} GROUP BY agent, space", args
        )
        memories = self._rows(
            f"SELECT agent, scope, COUNT(*), MAX(created_at) FROM memories {where} GROUP BY agent, scope", args
        )
        return rows.scope_stats(messages, memories, NATIVE)
