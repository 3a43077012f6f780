"""The server store: PostgreSQL with pgvector, through psycopg 3 and a connection pool.

Same contract as the SQLite store (``huiyi.store.base``); what differs is where the work happens.
Vectors are ``halfvec`` columns scanned exactly in SQL within the caller's scopes; keyword search is
BM25 over ``tsvector``s of the pre-tokenised text (``postgres_search`` explains both); jobs are rows
taken with ``FOR UPDATE SKIP LOCKED`` under a lease; every write is one transaction. Any number of
processes may share one database: there is no in-process cache to go stale.

Times are stored as ``timestamp`` (no zone), the wall-clock value the caller gave, as SQLite does.
The database user needs ``CREATE`` on the database the first time (``CREATE EXTENSION vector`` and the
tables); after that only reads and writes of the tables.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import ConnectionPool

from huiyi.errors import SchemaTooNew, StoreError
from huiyi.model import Job, JobState, MemoryItem, MemoryKind, Message, Person, Scope
from huiyi.store import postgres_search as search
from huiyi.store.base import RouteHits, ScoredId, Terms, Vectors, Writes
from huiyi.store.postgres_schema import MIGRATION_LOCK, MIGRATIONS, VERSION_TABLE
from huiyi.store.sqlite import partition_key

log = logging.getLogger(__name__)

Cursor = psycopg.Cursor[TupleRow]


def naive(value: datetime | None) -> datetime | None:
    """The wall-clock value without its zone, as the SQLite store reads it."""
    return value.replace(tzinfo=None) if value is not None and value.tzinfo is not None else value


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class PostgresStore:
    """``PostgresStore("postgresql://user@host/db")`` migrates the database if needed and pools connections."""

    def __init__(self, dsn: str, *, pool_size: int = 8, connect_timeout: float = 15.0) -> None:
        self.dsn = dsn
        self._closed = False
        self._pool: ConnectionPool[psycopg.Connection[TupleRow]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True},
            configure=_configure,
            open=False,
            name="huiyi",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout)
            self._migrate()
        except BaseException as exc:
            self._pool.close()
            if isinstance(exc, psycopg.Error | TimeoutError):
                raise StoreError(f"cannot open the PostgreSQL store: {exc}") from exc
            raise

    # connections -----------------------------------------------------------------------------
    @contextmanager
    def _cursor(self, transaction: bool) -> Iterator[Cursor]:
        if self._closed:
            raise StoreError("the store is closed")
        try:
            with self._pool.connection() as conn:
                if transaction:
                    with conn.transaction(), conn.cursor() as cur:
                        yield cur
                else:
                    with conn.cursor() as cur:
                        yield cur
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL: {exc}") from exc

    def _write(self) -> AbstractContextManager[Cursor]:
        return self._cursor(transaction=True)

    def _rows(self, sql: str, args: Any = None) -> list[TupleRow]:
        with self._cursor(transaction=False) as cur:
            cur.execute(sql, args)
            return cur.fetchall()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()

    # schema -------------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._write() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            cur.execute(VERSION_TABLE)
            current = self._version(cur)
            if current > len(MIGRATIONS):
                raise SchemaTooNew(
                    f"the database has schema version {current}, this huiyi knows {len(MIGRATIONS)}: upgrade huiyi"
                )
            for version in range(current + 1, len(MIGRATIONS) + 1):
                log.info("migrating the PostgreSQL store to schema version %d", version)
                cur.execute(MIGRATIONS[version - 1])
                cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))

    @staticmethod
    def _version(cur: Cursor) -> int:
        row = cur.execute("SELECT COALESCE(max(version), 0) FROM schema_migrations").fetchone()
        return int(row[0]) if row else 0

    def schema_version(self) -> int:
        with self._cursor(transaction=False) as cur:
            return self._version(cur)

    def embedding_model(self) -> tuple[str, int] | None:
        rows = self._rows("SELECT value FROM meta WHERE key = 'embedding_model'")
        if not rows:
            return None
        name, dim = json.loads(rows[0][0])
        return str(name), int(dim)

    def set_embedding_model(self, name: str, dim: int) -> None:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO meta (key, value) VALUES ('embedding_model', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps([name, dim]),),
            )

    # persons -------------------------------------------------------------------------------------
    def upsert_person(self, agent: str, person: Person) -> None:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO persons (agent, id, name, aliases, platform_ids) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (agent, id) DO UPDATE SET name = excluded.name, aliases = excluded.aliases,"
                " platform_ids = excluded.platform_ids",
                (agent, person.id, person.name, _json(person.aliases), _json(person.platform_ids)),
            )

    def get_person(self, agent: str, person_id: str) -> Person | None:
        rows = self._rows(
            "SELECT id, name, aliases, platform_ids FROM persons WHERE agent = %s AND id = %s", (agent, person_id)
        )
        return _person(rows[0]) if rows else None

    def list_persons(self, agent: str) -> list[Person]:
        rows = self._rows("SELECT id, name, aliases, platform_ids FROM persons WHERE agent = %s ORDER BY id", (agent,))
        return [_person(row) for row in rows]

    # messages ------------------------------------------------------------------------------------
    def append_messages(self, messages: Sequence[Message]) -> list[Message]:
        inserted: list[Message] = []
        with self._write() as cur:
            next_seq: dict[tuple[str, str], int] = {}
            # one writer per space at a time, locked in a fixed order so two batches cannot deadlock
            for agent, space in sorted({(m.agent, m.space) for m in messages}):
                cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{agent}\x1f{space}",))
                row = cur.execute(
                    "SELECT COALESCE(max(seq), 0) FROM messages WHERE agent = %s AND space = %s", (agent, space)
                ).fetchone()
                next_seq[(agent, space)] = int(row[0] if row else 0) + 1
            for message in messages:
                seq = next_seq[(message.agent, message.space)]
                cur.execute(
                    "INSERT INTO messages (agent, id, space, scope, speaker, role, text, time, seq)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (agent, id) DO NOTHING",
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
                    ),
                )
                if cur.rowcount:
                    next_seq[(message.agent, message.space)] = seq + 1
                    inserted.append(message.model_copy(update={"seq": seq}))
        return inserted

    _MESSAGE_COLUMNS = "agent, id, space, scope, speaker, role, text, time, seq"

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]:
        rows = self._rows(
            f"SELECT {self._MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))
        )
        found = {row[1]: _message(row) for row in rows}
        return [found[i] for i in ids if i in found]

    def recent_messages(self, agent: str, space: str, limit: int, before_seq: int | None = None) -> list[Message]:
        rows = self._rows(
            f"SELECT {self._MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND space = %s AND seq < %s"
            " ORDER BY seq DESC LIMIT %s",
            (agent, space, before_seq if before_seq is not None else 2**62, limit),
        )
        return [_message(row) for row in reversed(rows)]

    def unindexed_messages(self, limit: int) -> list[Message]:
        rows = self._rows(
            f"SELECT {self._MESSAGE_COLUMNS} FROM messages WHERE NOT indexed ORDER BY rowid LIMIT %s", (limit,)
        )
        return [_message(row) for row in rows]

    def working_start(self, agent: str, space: str) -> int:
        rows = self._rows("SELECT start_seq FROM working_memory WHERE agent = %s AND space = %s", (agent, space))
        return int(rows[0][0]) if rows else 1

    # writes --------------------------------------------------------------------------------------
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
        with self._write() as cur:
            if complete_job is not None:
                job_id, worker = complete_job
                cur.execute(
                    "UPDATE jobs SET state = 'done', lease_until = NULL"
                    " WHERE id = %s AND state = 'running' AND worker = %s",
                    (job_id, worker),
                )
                if not cur.rowcount:
                    raise StoreError(f"job {job_id} is not running for {worker}: its lease may have expired")
            if items:
                cur.execute(_INSERT_MEMORIES, _memory_columns(items, vectors, terms))
            by_agent: dict[str, list[str]] = {}
            for agent, message_id in writes.indexed_messages:
                by_agent.setdefault(agent, []).append(message_id)
            for agent, ids in by_agent.items():
                cur.execute("UPDATE messages SET indexed = true WHERE agent = %s AND id = ANY(%s)", (agent, ids))
            for agent, space, start_seq in writes.fold_points:
                cur.execute(
                    "INSERT INTO working_memory (agent, space, start_seq) VALUES (%s, %s, %s)"
                    " ON CONFLICT (agent, space) DO UPDATE"
                    " SET start_seq = GREATEST(working_memory.start_seq, excluded.start_seq)",
                    (agent, space, start_seq),
                )

    # jobs ----------------------------------------------------------------------------------------
    def enqueue_job(self, job: Job) -> bool:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO jobs (id, kind, agent, key, payload, state, run_after, created_at)"
                " VALUES (%s, %s, %s, %s, %s, 'pending', %s, %s) ON CONFLICT DO NOTHING",
                (
                    job.id,
                    job.kind,
                    job.agent,
                    job.key,
                    _json(job.payload),
                    naive(job.run_after),
                    naive(job.created_at) or _now(),
                ),
            )
            return bool(cur.rowcount)

    _JOB_COLUMNS = (
        "id, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at"
    )

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        at = naive(now)
        kind_filter = " AND kind = ANY(%(kinds)s)" if kinds else ""
        with self._write() as cur:
            row = cur.execute(
                f"UPDATE jobs SET state = 'running', worker = %(worker)s, attempts = attempts + 1,"
                f" lease_until = %(at)s + make_interval(secs => %(lease)s)"
                f" WHERE id = (SELECT id FROM jobs WHERE state IN ('pending', 'running')"
                f" AND ((state = 'pending' AND COALESCE(run_after, '-infinity') <= %(at)s)"
                f" OR (state = 'running' AND lease_until < %(at)s)){kind_filter}"
                f" ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                f" RETURNING {self._JOB_COLUMNS}",
                {"worker": worker, "at": at, "lease": lease_seconds, "kinds": list(kinds)},
            ).fetchone()
        return _job(row) if row else None

    def fail_job(self, job_id: str, worker: str, error: str, retry_at: datetime | None) -> None:
        with self._write() as cur:
            cur.execute(
                "UPDATE jobs SET state = %s, last_error = %s, run_after = %s, lease_until = NULL"
                " WHERE id = %s AND worker = %s AND state = 'running'",
                ("pending" if retry_at else "failed", error[:2000], naive(retry_at), job_id, worker),
            )

    def list_jobs(self, agent: str | None = None, states: Sequence[JobState] = (), limit: int = 100) -> list[Job]:
        sql = f"SELECT {self._JOB_COLUMNS} FROM jobs WHERE true"
        args: list[Any] = []
        if agent is not None:
            sql += " AND agent = %s"
            args.append(agent)
        if states:
            sql += " AND state = ANY(%s)"
            args.append([s.value for s in states])
        sql += " ORDER BY created_at, id LIMIT %s"
        args.append(limit)
        return [_job(row) for row in self._rows(sql, args)]

    # memories ------------------------------------------------------------------------------------
    _MEMORY_COLUMNS = (
        "rowid, id, agent, scope, kind, text, time, place, participants, keywords, insight,"
        " importance, strength, access_count, last_access, created_at, sources, data"
    )

    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        rows = self._rows(
            f"SELECT {self._MEMORY_COLUMNS} FROM memories WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))
        )
        found = {row[1]: _memory(row) for row in rows}
        return [found[i] for i in ids if i in found]

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int:
        with self._write() as cur:
            row = cur.execute(_DELETE_MEMORIES, (agent, list(ids))).fetchone()
        return int(row[0]) if row else 0

    def count_memories(self, agent: str | None = None, scopes: Sequence[Scope] | None = None) -> int:
        if scopes is not None:
            parts = _parts(scopes)
            rows = self._rows("SELECT COALESCE(sum(docs), 0) FROM partitions WHERE part = ANY(%s)", (parts,))
        elif agent is not None:
            rows = self._rows("SELECT count(*) FROM memories WHERE agent = %s", (agent,))
        else:
            rows = self._rows("SELECT count(*) FROM memories")
        return int(rows[0][0])

    def list_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryItem]:
        sql = f"SELECT {self._MEMORY_COLUMNS} FROM memories WHERE part = ANY(%s)"
        args: list[Any] = [_parts(scopes)]
        if kinds:
            sql += " AND kind = ANY(%s)"
            args.append([k.value for k in kinds])
        sql += " ORDER BY COALESCE(time, created_at) DESC, rowid DESC LIMIT %s OFFSET %s"
        args.extend([limit, offset])
        return [_memory(row) for row in self._rows(sql, args)]

    def record_access(self, agent: str, ids: Sequence[str], when: datetime) -> None:
        if not ids:
            return
        with self._write() as cur:
            cur.execute(
                "UPDATE memories SET access_count = access_count + 1, last_access = %s"
                " WHERE agent = %s AND id = ANY(%s)",
                (naive(when), agent, list(ids)),
            )

    # search --------------------------------------------------------------------------------------
    def search_dense(self, scopes: Sequence[Scope], query: Vectors, limit: int) -> RouteHits:
        started = time.perf_counter()
        parts = _parts(scopes)
        q = search.vector_literal(query)
        rows = self._rows(search.DENSE, {"q": q, "parts": parts, "limit": limit}) if parts and limit > 0 else []
        hits = [ScoredId(str(id_), _score(1.0 - distance), int(rowid)) for rowid, id_, distance in rows]

        def score_of(keys: Sequence[int]) -> list[float]:
            wanted = [int(k) for k in keys]
            if not wanted or not parts:
                return [0.0] * len(wanted)
            rows = self._rows(search.DENSE_OF_KEYS, {"q": q, "keys": wanted, "parts": parts})
            found: dict[int, float] = {int(key): float(score) for key, score in rows}
            return [_score(found.get(k)) for k in wanted]

        return RouteHits(hits, (time.perf_counter() - started) * 1000, score_of)

    def search_keyword(self, scopes: Sequence[Scope], query: Terms, limit: int) -> RouteHits:
        started = time.perf_counter()
        parts = _parts(scopes)
        if not parts or limit <= 0 or not (query.words or query.chars):
            return RouteHits([], (time.perf_counter() - started) * 1000)
        with self._cursor(transaction=False) as cur:
            text = {"words": " ".join(query.words), "chars": " ".join(query.chars), "parts": parts}
            row = cur.execute(search.LEXEMES, text)
            wlex, clex, docs = row.fetchone() or ([], [], 0)
            args = {
                "parts": parts,
                "wlex": wlex,
                "clex": clex,
                "wq": search.any_of(wlex),
                "cq": search.any_of(clex),
                "limit": limit,
            }
            sql = search.KEYWORD_SCANNED if docs <= search.SCAN_DOCS else search.KEYWORD_INDEXED
            rows = cur.execute(sql, args).fetchall() if docs and (wlex or clex) else []
        hits = [ScoredId(str(id_), float(score), int(rowid)) for rowid, id_, score in rows]
        return RouteHits(hits, (time.perf_counter() - started) * 1000)


# SQL of the write path -------------------------------------------------------------------------------
# one statement inserts a batch (skipping ids already stored) and adds what it inserted to the counters
_INSERT_MEMORIES = """
WITH batch AS (
    SELECT * FROM unnest(
        %(id)s::text[], %(agent)s::text[], %(scope)s::text[], %(part)s::text[], %(kind)s::text[],
        %(text)s::text[], %(time)s::timestamp[], %(place)s::text[], %(participants)s::text[],
        %(keywords)s::text[], %(insight)s::text[], %(importance)s::float8[], %(strength)s::float8[],
        %(access_count)s::int[], %(last_access)s::timestamp[], %(created_at)s::timestamp[],
        %(sources)s::text[], %(data)s::text[], %(embedding)s::text[], %(words)s::text[], %(chars)s::text[],
        %(words_len)s::int[], %(chars_len)s::int[]
    ) AS b (id, agent, scope, part, kind, text, time, place, participants, keywords, insight, importance,
            strength, access_count, last_access, created_at, sources, data, embedding, words, chars,
            words_len, chars_len)
), inserted AS (
    INSERT INTO memories (id, agent, scope, part, kind, text, time, place, participants, keywords, insight,
        importance, strength, access_count, last_access, created_at, sources, data, words, chars,
        words_len, chars_len)
    SELECT id, agent, scope, part, kind, text, time, place, participants::jsonb, keywords::jsonb, insight,
        importance, strength, access_count, last_access, created_at, sources::jsonb, data::jsonb,
        to_tsvector('huiyi_words', words), to_tsvector('simple', chars), words_len, chars_len
    FROM batch
    ON CONFLICT (id) DO NOTHING
    RETURNING rowid, id, part, agent, scope, words_len, chars_len
), vectors AS (
    INSERT INTO memory_vectors (rowid, part, embedding)
    SELECT i.rowid, i.part, b.embedding::halfvec FROM inserted i JOIN batch b USING (id)
)
INSERT INTO partitions AS p (part, agent, scope, docs, words_total, chars_total)
SELECT part, min(agent), min(scope), count(*), sum(words_len), sum(chars_len)
FROM inserted GROUP BY part ORDER BY part
ON CONFLICT (part) DO UPDATE SET docs = p.docs + excluded.docs, words_total = p.words_total + excluded.words_total,
    chars_total = p.chars_total + excluded.chars_total
"""

_DELETE_MEMORIES = """
WITH deleted AS (
    DELETE FROM memories WHERE agent = %s AND id = ANY(%s) RETURNING part, words_len, chars_len
), counted AS (
    SELECT part, count(*) AS docs, sum(words_len) AS words, sum(chars_len) AS chars FROM deleted GROUP BY part
), updated AS (
    UPDATE partitions p SET docs = p.docs - c.docs, words_total = p.words_total - c.words,
        chars_total = p.chars_total - c.chars
    FROM counted c WHERE p.part = c.part
)
SELECT COALESCE(sum(docs), 0) FROM counted
"""


def _configure(conn: psycopg.Connection[TupleRow]) -> None:
    # JIT compiling a vector scan costs more than the scan
    conn.execute("SET jit = off")


def _parts(scopes: Sequence[Scope]) -> list[str]:
    return [partition_key(s.agent, s) for s in scopes]


def _score(value: Any) -> float:
    score = float(value) if value is not None else 0.0
    return score if score == score else 0.0  # NaN (a zero vector) scores nothing


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _memory_columns(items: Sequence[MemoryItem], vectors: Vectors, terms: Sequence[Terms]) -> dict[str, list[Any]]:
    now = _now()
    return {
        "id": [i.id for i in items],
        "agent": [i.scope.agent for i in items],
        "scope": [i.scope.tag for i in items],
        "part": [partition_key(i.scope.agent, i.scope) for i in items],
        "kind": [i.kind.value for i in items],
        "text": [i.text for i in items],
        "time": [naive(i.time) for i in items],
        "place": [i.place for i in items],
        "participants": [_json(i.participants) for i in items],
        "keywords": [_json(i.keywords) for i in items],
        "insight": [i.insight for i in items],
        "importance": [float(i.importance) for i in items],
        "strength": [float(i.strength) for i in items],
        "access_count": [i.access_count for i in items],
        "last_access": [naive(i.last_access) for i in items],
        "created_at": [naive(i.created_at) or now for i in items],
        "sources": [_json(i.sources) for i in items],
        "data": [_json(i.data) for i in items],
        "embedding": [search.vector_literal(v) for v in vectors],
        "words": [" ".join(t.words) for t in terms],
        "chars": [" ".join(t.chars) for t in terms],
        "words_len": [len(t.words) for t in terms],
        "chars_len": [len(t.chars) for t in terms],
    }


def _person(row: TupleRow) -> Person:
    return Person(id=row[0], name=row[1], aliases=row[2], platform_ids=row[3])


def _message(row: TupleRow) -> Message:
    agent, id_, space, scope, speaker, role, text, when, seq = row
    return Message(
        id=id_,
        agent=agent,
        space=space,
        scope=Scope.from_tag(agent, scope),
        speaker=speaker,
        role=role,
        text=text,
        time=when,
        seq=seq,
    )


def _job(row: TupleRow) -> Job:
    id_, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at = row
    return Job(
        id=id_,
        kind=kind,
        agent=agent,
        key=key,
        payload=payload,
        state=JobState(state),
        attempts=attempts,
        last_error=last_error,
        run_after=run_after,
        lease_until=lease_until,
        worker=worker,
        created_at=created_at,
    )


def _memory(row: TupleRow) -> MemoryItem:
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
    ) = row
    return MemoryItem(
        id=id_,
        scope=Scope.from_tag(agent, scope),
        kind=MemoryKind(kind),
        text=text,
        time=when,
        place=place,
        participants=participants,
        keywords=keywords,
        insight=insight,
        importance=importance,
        strength=strength,
        access_count=access_count,
        last_access=last_access,
        created_at=created_at,
        sources=sources,
        data=data,
    )
