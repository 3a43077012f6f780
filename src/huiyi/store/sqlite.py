"""The embedded store: one SQLite file per store directory (WAL, FTS5, vectors scanned with numpy).

Reads use one connection per thread; writes take a process-wide lock and ``BEGIN IMMEDIATE``, so two
threads (or two processes, through SQLite's own lock) never interleave a transaction.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.errors import SchemaTooNew, StoreError
from huiyi.model import (
    Entity,
    EntityMerge,
    EntityType,
    Job,
    JobState,
    Link,
    LinkKind,
    MemoryItem,
    MemoryKind,
    Message,
    Person,
    Scope,
)
from huiyi.store.base import UPDATABLE, RouteHits, ScoredId, Terms, Vectors, Writes
from huiyi.store.sqlite_schema import MIGRATIONS
from huiyi.store.vectors import ExactIndex, Matrix, RowIds

log = logging.getLogger(__name__)

DB_NAME = "huiyi.sqlite"


def to_epoch(value: datetime | None) -> float | None:
    """Wall-clock datetimes are stored as seconds, read as if they were UTC (no zone is implied)."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.replace(tzinfo=UTC).timestamp()


def from_epoch(value: float | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, UTC).replace(tzinfo=None)


def partition_key(agent: str, scope: Scope) -> str:
    """A short token naming one agent's scope; safe inside an FTS5 query."""
    digest = hashlib.blake2b(f"{agent}\x1f{scope.tag}".encode(), digest_size=10).hexdigest()
    return f"p{digest}"


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class SQLiteStore:
    """The default store. ``SQLiteStore(directory)`` creates the directory and database if needed."""

    def __init__(self, directory: str | Path, *, vector_cache_mb: int = 512, busy_timeout_ms: int = 10000) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._closed = False
        self._migrate()
        self._vectors = ExactIndex(self._load_partition, vector_cache_mb * 2**20)

    # connections -----------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError("the store is closed")
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")  # a message is durable when add() returns
            conn.execute("PRAGMA foreign_keys = ON")
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        with self._write_lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            else:
                conn.execute("COMMIT")

    def close(self) -> None:
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._closed = True
        self._vectors.clear()

    # schema -------------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._write() as conn:
            has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
            current = 0
            if has_meta:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                current = int(row[0]) if row else 0
            if current > len(MIGRATIONS):
                raise SchemaTooNew(
                    f"{self.path} has schema version {current}, this huiyi knows {len(MIGRATIONS)}: upgrade huiyi"
                )
            for version in range(current + 1, len(MIGRATIONS) + 1):
                log.info("migrating %s to schema version %d", self.path, version)
                for statement in _statements(MIGRATIONS[version - 1]):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(version),),
                )

    def schema_version(self) -> int:
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def embedding_model(self) -> tuple[str, int] | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        if row is None:
            return None
        name, dim = json.loads(row[0])
        return str(name), int(dim)

    def set_embedding_model(self, name: str, dim: int) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('embedding_model', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps([name, dim]),),
            )

    # persons -------------------------------------------------------------------------------------
    def upsert_person(self, agent: str, person: Person) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO persons (agent, id, name, aliases, platform_ids) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (agent, id) DO UPDATE SET name = excluded.name, aliases = excluded.aliases, "
                "platform_ids = excluded.platform_ids",
                (
                    agent,
                    person.id,
                    person.name,
                    json.dumps(person.aliases, ensure_ascii=False),
                    json.dumps(person.platform_ids, ensure_ascii=False),
                ),
            )

    def get_person(self, agent: str, person_id: str) -> Person | None:
        row = (
            self._conn()
            .execute(
                "SELECT id, name, aliases, platform_ids FROM persons WHERE agent = ? AND id = ?", (agent, person_id)
            )
            .fetchone()
        )
        return _person(row) if row else None

    def list_persons(self, agent: str) -> list[Person]:
        rows = (
            self._conn()
            .execute("SELECT id, name, aliases, platform_ids FROM persons WHERE agent = ? ORDER BY id", (agent,))
            .fetchall()
        )
        return [_person(row) for row in rows]

    # person blocks -------------------------------------------------------------------------------
    def person_blocks(self, agent: str, person: str) -> dict[str, str]:
        rows = (
            self._conn()
            .execute("SELECT label, text FROM person_blocks WHERE agent = ? AND person = ?", (agent, person))
            .fetchall()
        )
        return {str(label): str(text) for label, text in rows}

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
    def append_messages(self, messages: Sequence[Message]) -> list[Message]:
        inserted: list[Message] = []
        with self._write() as conn:
            next_seq: dict[tuple[str, str], int] = {}
            for message in messages:
                space_key = (message.agent, message.space)
                if space_key not in next_seq:
                    row = conn.execute(
                        "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE agent = ? AND space = ?", space_key
                    ).fetchone()
                    next_seq[space_key] = int(row[0]) + 1
                seq = next_seq[space_key]
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO messages (agent, id, space, scope, speaker, role, text, time, seq) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    ),
                )
                if cursor.rowcount:
                    next_seq[space_key] = seq + 1
                    inserted.append(message.model_copy(update={"seq": seq}))
        return inserted

    _MESSAGE_COLUMNS = "agent, id, space, scope, speaker, role, text, time, seq"

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]:
        found: dict[str, Message] = {}
        for chunk in _chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            rows = self._conn().execute(
                f"SELECT {self._MESSAGE_COLUMNS} FROM messages WHERE agent = ? AND id IN ({marks})",
                (agent, *chunk),
            )
            found.update((row[1], _message(row)) for row in rows)
        return [found[i] for i in ids if i in found]

    def recent_messages(self, agent: str, space: str, limit: int, before_seq: int | None = None) -> list[Message]:
        rows = (
            self._conn()
            .execute(
                f"SELECT {self._MESSAGE_COLUMNS} FROM messages WHERE agent = ? AND space = ? AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (agent, space, before_seq if before_seq is not None else 2**62, limit),
            )
            .fetchall()
        )
        return [_message(row) for row in reversed(rows)]

    def unindexed_messages(self, limit: int) -> list[Message]:
        rows = (
            self._conn()
            .execute(f"SELECT {self._MESSAGE_COLUMNS} FROM messages WHERE indexed = 0 ORDER BY rowid LIMIT ?", (limit,))
            .fetchall()
        )
        return [_message(row) for row in rows]

    # memories ------------------------------------------------------------------------------------
    def _ensure_partition(self, conn: sqlite3.Connection, agent: str, scope: Scope) -> str:
        part = partition_key(agent, scope)
        conn.execute("INSERT OR IGNORE INTO partitions (part, agent, scope) VALUES (?, ?, ?)", (part, agent, scope.tag))
        return part

    def add_memories(
        self,
        items: Sequence[MemoryItem],
        vectors: Vectors,
        terms: Sequence[Terms],
        indexed_messages: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.apply(Writes(memories=items, vectors=vectors, terms=terms, indexed_messages=indexed_messages))

    def apply(self, writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
        items, terms = writes.memories, writes.terms
        vectors = writes.vectors if writes.vectors is not None else np.zeros((0, 0), np.float32)
        if not (len(items) == len(vectors) == len(terms)):
            raise StoreError("add_memories needs one vector and one Terms per memory")
        now = to_epoch(datetime.now(UTC))
        added: dict[str, tuple[int, list[int], list[int]]] = {}  # part -> (old version, rowids, item index)
        with self._write() as conn:
            if complete_job is not None:
                job_id, worker = complete_job
                done = conn.execute(
                    "UPDATE jobs SET state = 'done', lease_until = NULL"
                    " WHERE id = ? AND state = 'running' AND worker = ?",
                    (job_id, worker),
                )
                if not done.rowcount:
                    raise StoreError(f"job {job_id} is not running for {worker}: its lease may have expired")
            for index, (item, term) in enumerate(zip(items, terms, strict=True)):
                part = self._ensure_partition(conn, item.scope.agent, item.scope)
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO memories (id, agent, scope, part, kind, text, time, place, participants,"
                    " keywords, insight, importance, strength, access_count, last_access, created_at, sources, data,"
                    " feedback, valid_to)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    _memory_row(item, part, now),
                )
                if not cursor.rowcount:
                    continue  # already stored by an earlier run of the same work
                rowid = int(cursor.lastrowid or 0)
                conn.execute(
                    "INSERT INTO memory_vectors (rowid, part, vector) VALUES (?, ?, ?)",
                    (rowid, part, np.asarray(vectors[index], dtype=np.float16).tobytes()),
                )
                conn.execute(
                    "INSERT INTO memory_fts (rowid, part, words, chars) VALUES (?, ?, ?, ?)",
                    (rowid, part, " ".join(term.words), " ".join(term.chars)),
                )
                entry = added.setdefault(part, (0, [], []))
                entry[1].append(rowid)
                entry[2].append(index)
            for part, (_, rowids, indexes) in list(added.items()):
                old = conn.execute("SELECT version FROM partitions WHERE part = ?", (part,)).fetchone()[0]
                conn.execute("UPDATE partitions SET version = version + 1 WHERE part = ?", (part,))
                added[part] = (int(old), rowids, indexes)
            for agent, message_id in writes.indexed_messages:
                conn.execute("UPDATE messages SET indexed = 1 WHERE agent = ? AND id = ?", (agent, message_id))
            for agent, space, start_seq in writes.fold_points:
                conn.execute(
                    "INSERT INTO working_memory (agent, space, start_seq) VALUES (?, ?, ?) "
                    "ON CONFLICT (agent, space) DO UPDATE SET start_seq = MAX(start_seq, excluded.start_seq)",
                    (agent, space, start_seq),
                )
        for part, (old, rowids, indexes) in added.items():
            matrix = np.asarray(vectors[indexes], dtype=np.float16).astype(np.float32)
            self._vectors.added(part, old, rowids, matrix)

    # working memory and jobs ------------------------------------------------------------------
    def working_start(self, agent: str, space: str) -> int:
        row = (
            self._conn()
            .execute("SELECT start_seq FROM working_memory WHERE agent = ? AND space = ?", (agent, space))
            .fetchone()
        )
        return int(row[0]) if row else 1

    def enqueue_job(self, job: Job) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO jobs (id, kind, agent, key, payload, state, run_after, created_at)"
                " VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)",
                (
                    job.id,
                    job.kind,
                    job.agent,
                    job.key,
                    json.dumps(job.payload, ensure_ascii=False),
                    to_epoch(job.run_after),
                    to_epoch(job.created_at or datetime.now(UTC)),
                ),
            )
            return bool(cursor.rowcount)

    _JOB_COLUMNS = (
        "id, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at"
    )

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        at = to_epoch(now) or 0.0
        kind_filter = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
        with self._write() as conn:
            row = conn.execute(
                f"SELECT {self._JOB_COLUMNS} FROM jobs WHERE ((state = 'pending' AND COALESCE(run_after, 0) <= ?)"
                f" OR (state = 'running' AND lease_until < ?)){kind_filter} ORDER BY created_at, id LIMIT 1",
                (at, at, *kinds),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE jobs SET state = 'running', worker = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ?",
                (worker, at + lease_seconds, row[0]),
            )
        return _job(row).model_copy(
            update={
                "state": JobState.RUNNING,
                "worker": worker,
                "lease_until": from_epoch(at + lease_seconds),
                "attempts": row[6] + 1,
            }
        )

    def fail_job(self, job_id: str, worker: str, error: str, retry_at: datetime | None) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE jobs SET state = ?, last_error = ?, run_after = ?, lease_until = NULL"
                " WHERE id = ? AND worker = ? AND state = 'running'",
                ("pending" if retry_at else "failed", error[:2000], to_epoch(retry_at), job_id, worker),
            )

    def list_jobs(self, agent: str | None = None, states: Sequence[JobState] = (), limit: int = 100) -> list[Job]:
        sql = f"SELECT {self._JOB_COLUMNS} FROM jobs WHERE 1 = 1"
        args: list[Any] = []
        if agent is not None:
            sql += " AND agent = ?"
            args.append(agent)
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args.extend(s.value for s in states)
        sql += " ORDER BY created_at, id LIMIT ?"
        args.append(limit)
        return [_job(row) for row in self._conn().execute(sql, args)]

    _MEMORY_COLUMNS = (
        "m.rowid, m.id, m.agent, m.scope, m.kind, m.text, m.time, m.place, m.participants, m.keywords, m.insight,"
        " m.importance, m.strength, m.access_count, m.last_access, m.created_at, m.sources, m.data,"
        " m.feedback, m.valid_to"
    )

    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        found: dict[str, MemoryItem] = {}
        for chunk in _chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            rows = self._conn().execute(
                f"SELECT {self._MEMORY_COLUMNS} FROM memories m WHERE m.agent = ? AND m.id IN ({marks})",
                (agent, *chunk),
            )
            found.update((row[1], _memory(row)) for row in rows)
        return [found[i] for i in ids if i in found]

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int:
        removed: dict[str, tuple[int, list[int]]] = {}
        with self._write() as conn:
            for chunk in _chunks(list(ids), 500):
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT rowid, part FROM memories WHERE agent = ? AND id IN ({marks})", (agent, *chunk)
                ).fetchall()
                # a forgotten memory takes its links with it
                conn.execute(
                    f"DELETE FROM links WHERE agent = ? AND (source IN ({marks}) OR target IN ({marks}))",
                    (agent, *chunk, *chunk),
                )
                for rowid, part in rows:
                    removed.setdefault(part, (0, []))[1].append(rowid)
                    conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (rowid,))
                    conn.execute("DELETE FROM memory_vectors WHERE rowid = ?", (rowid,))
                    conn.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
            for part, (_, rowids) in list(removed.items()):
                old = conn.execute("SELECT version FROM partitions WHERE part = ?", (part,)).fetchone()[0]
                conn.execute("UPDATE partitions SET version = version + 1 WHERE part = ?", (part,))
                removed[part] = (int(old), rowids)
        for part, (old, rowids) in removed.items():
            self._vectors.removed(part, old, rowids)
        return sum(len(rowids) for _, rowids in removed.values())

    def count_memories(self, agent: str | None = None, scopes: Sequence[Scope] | None = None) -> int:
        if scopes is not None:
            parts = [partition_key(s.agent, s) for s in scopes]
            if not parts:
                return 0
            marks = ",".join("?" * len(parts))
            row = self._conn().execute(f"SELECT COUNT(*) FROM memories WHERE part IN ({marks})", parts).fetchone()
        elif agent is not None:
            row = self._conn().execute("SELECT COUNT(*) FROM memories WHERE agent = ?", (agent,)).fetchone()
        else:
            row = self._conn().execute("SELECT COUNT(*) FROM memories").fetchone()
        return int(row[0])

    def list_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryItem]:
        parts = [partition_key(s.agent, s) for s in scopes]
        if not parts:
            return []
        sql = f"SELECT {self._MEMORY_COLUMNS} FROM memories m WHERE m.part IN ({','.join('?' * len(parts))})"
        args: list[Any] = list(parts)
        if kinds:
            sql += f" AND m.kind IN ({','.join('?' * len(kinds))})"
            args.extend(k.value for k in kinds)
        sql += " ORDER BY COALESCE(m.time, m.created_at) DESC, m.rowid DESC LIMIT ? OFFSET ?"
        args.extend([limit, offset])
        return [_memory(row) for row in self._conn().execute(sql, args)]

    def record_access(self, agent: str, ids: Sequence[str], when: datetime, strength_bonus: float = 0.0) -> None:
        if not ids:
            return
        with self._write() as conn:
            for chunk in _chunks(list(ids), 500):
                marks = ",".join("?" * len(chunk))
                conn.execute(
                    "UPDATE memories SET access_count = access_count + 1, last_access = ?, strength = strength + ?"
                    f" WHERE agent = ? AND id IN ({marks})",
                    (to_epoch(when), strength_bonus, agent, *chunk),
                )

    def update_memories(self, agent: str, changes: Sequence[tuple[str, dict[str, Any]]]) -> int:
        for _, fields in changes:
            unknown = set(fields) - UPDATABLE
            if unknown:
                raise StoreError(f"these memory fields cannot be updated: {sorted(unknown)}")
        changed = 0
        with self._write() as conn:
            for memory_id, fields in changes:
                if not fields:
                    continue
                values = [_column_value(name, value) for name, value in fields.items()]
                assignments = ", ".join(f"{name} = ?" for name in fields)
                cursor = conn.execute(
                    f"UPDATE memories SET {assignments} WHERE agent = ? AND id = ?", (*values, agent, memory_id)
                )
                changed += cursor.rowcount
        return changed

    # graph ---------------------------------------------------------------------------------------
    _ENTITY_COLUMNS = "id, agent, scope, name, type, aliases, sources, merged_into"

    def upsert_entity(self, entity: Entity, vector: Vectors) -> Entity:
        blob = np.asarray(vector, dtype=np.float16).reshape(-1).tobytes()
        with self._write() as conn:
            part = self._ensure_partition(conn, entity.scope.agent, entity.scope)
            conn.execute(
                "INSERT INTO entities (id, agent, scope, part, name, type, aliases, sources, merged_into, vector,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
                " name = excluded.name, type = excluded.type, aliases = excluded.aliases,"
                " sources = excluded.sources, vector = excluded.vector",
                (
                    entity.id,
                    entity.scope.agent,
                    entity.scope.tag,
                    part,
                    entity.name,
                    entity.type.value,
                    json.dumps(entity.aliases, ensure_ascii=False),
                    json.dumps(entity.sources, ensure_ascii=False),
                    entity.merged_into,
                    blob,
                    to_epoch(datetime.now(UTC)),
                ),
            )
        return entity

    def list_entities(self, scopes: Sequence[Scope], include_merged: bool = False) -> list[Entity]:
        parts = [partition_key(s.agent, s) for s in scopes]
        if not parts:
            return []
        sql = f"SELECT {self._ENTITY_COLUMNS} FROM entities WHERE part IN ({','.join('?' * len(parts))})"
        if not include_merged:
            sql += " AND merged_into IS NULL"
        return [_entity(row) for row in self._conn().execute(sql + " ORDER BY rowid", parts)]

    def similar_entities(self, scopes: Sequence[Scope], vector: Vectors, limit: int) -> list[tuple[Entity, float]]:
        parts = [partition_key(s.agent, s) for s in scopes]
        if not parts:
            return []
        rows = (
            self._conn()
            .execute(
                f"SELECT {self._ENTITY_COLUMNS}, vector FROM entities"
                f" WHERE part IN ({','.join('?' * len(parts))}) AND merged_into IS NULL",
                parts,
            )
            .fetchall()
        )
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[-1] for r in rows), dtype=np.float16).reshape(len(rows), -1)
        scores = matrix.astype(np.float32) @ np.asarray(vector, dtype=np.float32).reshape(-1)
        order = np.argsort(-scores, kind="stable")[:limit]
        return [(_entity(rows[i][:-1]), float(scores[i])) for i in order]

    def merge_entities(self, agent: str, source: str, target: str, reason: str, when: datetime) -> EntityMerge:
        if source == target:
            raise StoreError("an entity cannot be merged into itself")
        with self._write() as conn:
            found = {
                row[0]: _entity(row)
                for row in conn.execute(
                    f"SELECT {self._ENTITY_COLUMNS} FROM entities WHERE agent = ? AND id IN (?, ?)"
                    " AND merged_into IS NULL",
                    (agent, source, target),
                )
            }
            if len(found) != 2:
                raise StoreError(f"cannot merge {source} into {target}: both must exist and not be merged already")
            kept, gone = found[target], found[source]
            aliases = list(dict.fromkeys([*kept.aliases, *(n for n in gone.names if n != kept.name)]))
            conn.execute(
                "UPDATE entities SET aliases = ? WHERE id = ?", (json.dumps(aliases, ensure_ascii=False), target)
            )
            conn.execute("UPDATE entities SET merged_into = ? WHERE id = ?", (target, source))
            merge = EntityMerge(agent=agent, source=source, target=target, reason=reason, at=when)
            conn.execute(
                "INSERT INTO entity_merges (id, agent, source, target, reason, at, target_aliases)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (merge.id, agent, source, target, reason, to_epoch(when), json.dumps(kept.aliases, ensure_ascii=False)),
            )
        return merge

    def undo_merge(self, agent: str, merge_id: str) -> EntityMerge:
        with self._write() as conn:
            row = conn.execute(
                "SELECT id, agent, source, target, reason, at, undone, target_aliases FROM entity_merges"
                " WHERE agent = ? AND id = ?",
                (agent, merge_id),
            ).fetchone()
            if row is None or row[6]:
                raise StoreError(f"no merge {merge_id} to undo for agent {agent}")
            conn.execute("UPDATE entities SET aliases = ? WHERE id = ?", (row[7], row[3]))
            conn.execute("UPDATE entities SET merged_into = NULL WHERE id = ?", (row[2],))
            conn.execute("UPDATE entity_merges SET undone = 1 WHERE id = ?", (merge_id,))
        return _merge(row).model_copy(update={"undone": True})

    def list_merges(self, agent: str) -> list[EntityMerge]:
        rows = self._conn().execute(
            "SELECT id, agent, source, target, reason, at, undone, target_aliases FROM entity_merges"
            " WHERE agent = ? ORDER BY at, id",
            (agent,),
        )
        return [_merge(row) for row in rows]

    def add_links(self, agent: str, links: Sequence[Link]) -> int:
        added = 0
        with self._write() as conn:
            for link in links:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO links (agent, source, target, kind, weight) VALUES (?, ?, ?, ?, ?)",
                    (agent, link.source, link.target, link.kind.value, link.weight),
                )
                added += cursor.rowcount
        return added

    def links_of(self, agent: str, ids: Sequence[str]) -> list[Link]:
        out: list[Link] = []
        for chunk in _chunks(list(ids), 400):
            marks = ",".join("?" * len(chunk))
            rows = self._conn().execute(
                f"SELECT source, target, kind, weight FROM links WHERE agent = ? AND (source IN ({marks})"
                f" OR target IN ({marks}))",
                (agent, *chunk, *chunk),
            )
            out.extend(Link(source=r[0], target=r[1], kind=LinkKind(r[2]), weight=r[3]) for r in rows)
        return list({(link.source, link.target, link.kind): link for link in out}.values())

    # search --------------------------------------------------------------------------------------
    def _load_partition(self, part: str) -> tuple[int, RowIds, Matrix]:
        conn = self._conn()
        # one read transaction, so the version matches the rows
        conn.execute("BEGIN")
        try:
            row = conn.execute("SELECT version FROM partitions WHERE part = ?", (part,)).fetchone()
            rows = conn.execute("SELECT rowid, vector FROM memory_vectors WHERE part = ? ORDER BY rowid", (part,))
            rowids: list[int] = []
            blobs: list[bytes] = []
            for rowid, blob in rows:
                rowids.append(rowid)
                blobs.append(blob)
        finally:
            conn.execute("COMMIT")
        if not blobs:
            return (int(row[0]) if row else 0), np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(blobs), -1).astype(np.float32)
        return (int(row[0]) if row else 0), np.asarray(rowids, dtype=np.int64), matrix

    def _versions(self, parts: Sequence[str]) -> dict[str, int]:
        marks = ",".join("?" * len(parts))
        rows = self._conn().execute(f"SELECT part, version FROM partitions WHERE part IN ({marks})", list(parts))
        return {part: int(version) for part, version in rows}

    def _ids_of(self, rowids: Sequence[int]) -> dict[int, str]:
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        rows = self._conn().execute(f"SELECT rowid, id FROM memories WHERE rowid IN ({marks})", list(rowids))
        return {int(rowid): str(id_) for rowid, id_ in rows}

    def search_dense(self, scopes: Sequence[Scope], query: Vectors, limit: int) -> RouteHits:
        started = time.perf_counter()
        parts = [partition_key(s.agent, s) for s in scopes]
        versions = self._versions(parts)
        present = [p for p in parts if p in versions]
        found = self._vectors.search(np.asarray(query, dtype=np.float32).reshape(-1), present, versions, limit)
        ids = self._ids_of(found.rowids)
        hits = [
            ScoredId(ids[rowid], float(score), rowid)
            for rowid, score in zip(found.rowids, found.scores, strict=True)
            if rowid in ids
        ]
        return RouteHits(hits, (time.perf_counter() - started) * 1000, found.score_of)

    def search_keyword(self, scopes: Sequence[Scope], query: Terms, limit: int) -> RouteHits:
        from itertools import pairwise

        def _is_cjk(char: str) -> bool:
            return "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"

        started = time.perf_counter()
        parts = [partition_key(s.agent, s) for s in scopes]
        clauses = []
        # adjacent query words also as phrases, so "support group" outscores "support" … "group";
        # and the character bigrams of CJK words, which survive a different segmentation
        pairs = [f"{a} {b}" for a, b in pairwise(query.words)]
        bigrams = [f"{a} {b}" for w in query.words for a, b in pairwise(w) if _is_cjk(a) and _is_cjk(b)]
        if query.words:
            clauses.append("words : (" + " OR ".join(_quote(w) for w in [*query.words, *pairs]) + ")")
        if query.chars:
            clauses.append("chars : (" + " OR ".join(_quote(c) for c in [*query.chars, *bigrams]) + ")")
        if not parts or not clauses:
            return RouteHits([], (time.perf_counter() - started) * 1000)
        match = "part : (" + " OR ".join(parts) + ") AND (" + " OR ".join(clauses) + ")"
        rows = (
            self._conn()
            .execute(
                "SELECT f.rowid, m.id, -bm25(memory_fts, 0.0, 1.0, 0.5) AS score FROM memory_fts f"
                " JOIN memories m ON m.rowid = f.rowid WHERE memory_fts MATCH ?"
                " ORDER BY bm25(memory_fts, 0.0, 1.0, 0.5) LIMIT ?",
                (match, limit),
            )
            .fetchall()
        )
        hits = [ScoredId(str(id_), float(score), int(rowid)) for rowid, id_, score in rows]
        return RouteHits(hits, (time.perf_counter() - started) * 1000)


def _statements(script: str) -> Iterator[str]:
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()


def _chunks(values: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _person(row: sqlite3.Row | tuple[Any, ...]) -> Person:
    return Person(id=row[0], name=row[1], aliases=json.loads(row[2]), platform_ids=json.loads(row[3]))


def _message(row: sqlite3.Row | tuple[Any, ...]) -> Message:
    agent, id_, space, scope, speaker, role, text, when, seq = row
    return Message(
        id=id_,
        agent=agent,
        space=space,
        scope=Scope.from_tag(agent, scope),
        speaker=speaker,
        role=role,
        text=text,
        time=from_epoch(when) or datetime.min,
        seq=seq,
    )


def _column_value(name: str, value: Any) -> Any:
    """A field's value as its column stores it."""
    if name in {"valid_to", "last_access"}:
        return to_epoch(value)
    if name in {"keywords", "data"}:
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _entity(row: sqlite3.Row | tuple[Any, ...]) -> Entity:
    id_, agent, scope, name, type_, aliases, sources, merged_into = row
    return Entity(
        id=id_,
        scope=Scope.from_tag(agent, scope),
        name=name,
        type=EntityType(type_),
        aliases=json.loads(aliases),
        sources=json.loads(sources),
        merged_into=merged_into,
    )


def _merge(row: sqlite3.Row | tuple[Any, ...]) -> EntityMerge:
    id_, agent, source, target, reason, at, undone, _ = row
    return EntityMerge(
        id=id_, agent=agent, source=source, target=target, reason=reason, at=from_epoch(at), undone=bool(undone)
    )


def _job(row: sqlite3.Row | tuple[Any, ...]) -> Job:
    id_, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at = row
    return Job(
        id=id_,
        kind=kind,
        agent=agent,
        key=key,
        payload=json.loads(payload),
        state=JobState(state),
        attempts=attempts,
        last_error=last_error,
        run_after=from_epoch(run_after),
        lease_until=from_epoch(lease_until),
        worker=worker,
        created_at=from_epoch(created_at),
    )


def _memory_row(item: MemoryItem, part: str, now: float | None) -> tuple[Any, ...]:
    dump = json.dumps
    return (
        item.id,
        item.scope.agent,
        item.scope.tag,
        part,
        item.kind.value,
        item.text,
        to_epoch(item.time),
        item.place,
        dump(item.participants, ensure_ascii=False),
        dump(item.keywords, ensure_ascii=False),
        item.insight,
        item.importance,
        item.strength,
        item.access_count,
        to_epoch(item.last_access),
        to_epoch(item.created_at) or now,
        dump(item.sources, ensure_ascii=False),
        dump(item.data, ensure_ascii=False, default=str),
        item.feedback,
        to_epoch(item.valid_to),
    )


def _memory(row: sqlite3.Row | tuple[Any, ...]) -> MemoryItem:
    (
        _rowid,
        id_,
        agent,
        scope,
        kind,
        text,
        when,
        place,
        participants,
        keywords,
        insight,
        importance,
        strength,
        access_count,
        last_access,
        created_at,
        sources,
        data,
        feedback,
        valid_to,
    ) = row
    return MemoryItem(
        id=id_,
        scope=Scope.from_tag(agent, scope),
        kind=MemoryKind(kind),
        text=text,
        time=from_epoch(when),
        place=place,
        participants=json.loads(participants),
        keywords=json.loads(keywords),
        insight=insight,
        importance=importance,
        strength=strength,
        access_count=access_count,
        last_access=from_epoch(last_access),
        created_at=from_epoch(created_at),
        sources=json.loads(sources),
        data=json.loads(data),
        feedback=feedback,
        valid_to=from_epoch(valid_to),
    )
