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
from datetime import datetime
from typing import Any

import numpy as np
import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import ConnectionPool

from huiyi.errors import SchemaTooNew, StoreError
from huiyi.model import (
    Entity,
    EntityMerge,
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
from huiyi.store import postgres_rows as pgrows
from huiyi.store import postgres_search as search
from huiyi.store.base import UPDATABLE, RouteHits, ScoredId, Terms, Vectors, Writes
from huiyi.store.postgres_schema import MIGRATION_LOCK, MIGRATIONS, VERSION_TABLE
from huiyi.store.sqlite import partition_key

log = logging.getLogger(__name__)

Cursor = psycopg.Cursor[TupleRow]


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
                (
                    agent,
                    person.id,
                    person.name,
                    pgrows.json_text(person.aliases),
                    pgrows.json_text(person.platform_ids),
                ),
            )

    def get_person(self, agent: str, person_id: str) -> Person | None:
        rows = self._rows(
            "SELECT id, name, aliases, platform_ids FROM persons WHERE agent = %s AND id = %s", (agent, person_id)
        )
        return pgrows.person(rows[0]) if rows else None

    def list_persons(self, agent: str) -> list[Person]:
        rows = self._rows("SELECT id, name, aliases, platform_ids FROM persons WHERE agent = %s ORDER BY id", (agent,))
        return [pgrows.person(row) for row in rows]

    # person blocks -------------------------------------------------------------------------------
    def person_blocks(self, agent: str, person: str) -> dict[str, str]:
        rows = self._rows("SELECT label, text FROM person_blocks WHERE agent = %s AND person = %s", (agent, person))
        return {str(label): str(text) for label, text in rows}

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
                        pgrows.naive(message.time),
                        seq,
                    ),
                )
                if cur.rowcount:
                    next_seq[(message.agent, message.space)] = seq + 1
                    inserted.append(message.model_copy(update={"seq": seq}))
        return inserted

    def get_messages(self, agent: str, ids: Sequence[str]) -> list[Message]:
        rows = self._rows(
            f"SELECT {pgrows.MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))
        )
        found = {row[1]: pgrows.message(row) for row in rows}
        return [found[i] for i in ids if i in found]

    def recent_messages(self, agent: str, space: str, limit: int, before_seq: int | None = None) -> list[Message]:
        rows = self._rows(
            f"SELECT {pgrows.MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND space = %s AND seq < %s"
            " ORDER BY seq DESC LIMIT %s",
            (agent, space, before_seq if before_seq is not None else 2**62, limit),
        )
        return [pgrows.message(row) for row in reversed(rows)]

    def unindexed_messages(self, limit: int) -> list[Message]:
        rows = self._rows(
            f"SELECT {pgrows.MESSAGE_COLUMNS} FROM messages WHERE NOT indexed ORDER BY rowid LIMIT %s", (limit,)
        )
        return [pgrows.message(row) for row in rows]

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
                cur.execute(pgrows.INSERT_MEMORIES, pgrows.memory_columns(items, vectors, terms))
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
                    pgrows.json_text(job.payload),
                    pgrows.naive(job.run_after),
                    pgrows.naive(job.created_at) or pgrows.now(),
                ),
            )
            return bool(cur.rowcount)

    def claim_job(self, worker: str, now: datetime, lease_seconds: float, kinds: Sequence[str] = ()) -> Job | None:
        at = pgrows.naive(now)
        kind_filter = " AND kind = ANY(%(kinds)s)" if kinds else ""
        with self._write() as cur:
            row = cur.execute(
                f"UPDATE jobs SET state = 'running', worker = %(worker)s, attempts = attempts + 1,"
                f" lease_until = %(at)s + make_interval(secs => %(lease)s)"
                f" WHERE id = (SELECT id FROM jobs WHERE state IN ('pending', 'running')"
                f" AND ((state = 'pending' AND COALESCE(run_after, '-infinity') <= %(at)s)"
                f" OR (state = 'running' AND lease_until < %(at)s)){kind_filter}"
                f" ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                f" RETURNING {pgrows.JOB_COLUMNS}",
                {"worker": worker, "at": at, "lease": lease_seconds, "kinds": list(kinds)},
            ).fetchone()
        return pgrows.job(row) if row else None

    def fail_job(self, job_id: str, worker: str, error: str, retry_at: datetime | None) -> None:
        with self._write() as cur:
            cur.execute(
                "UPDATE jobs SET state = %s, last_error = %s, run_after = %s, lease_until = NULL"
                " WHERE id = %s AND worker = %s AND state = 'running'",
                ("pending" if retry_at else "failed", error[:2000], pgrows.naive(retry_at), job_id, worker),
            )

    def list_jobs(self, agent: str | None = None, states: Sequence[JobState] = (), limit: int = 100) -> list[Job]:
        sql = f"SELECT {pgrows.JOB_COLUMNS} FROM jobs WHERE true"
        args: list[Any] = []
        if agent is not None:
            sql += " AND agent = %s"
            args.append(agent)
        if states:
            sql += " AND state = ANY(%s)"
            args.append([s.value for s in states])
        sql += " ORDER BY created_at, id LIMIT %s"
        args.append(limit)
        return [pgrows.job(row) for row in self._rows(sql, args)]

    # memories ------------------------------------------------------------------------------------

    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        rows = self._rows(
            f"SELECT {pgrows.MEMORY_COLUMNS} FROM memories WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))
        )
        found = {row[1]: pgrows.memory(row) for row in rows}
        return [found[i] for i in ids if i in found]

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int:
        with self._write() as cur:
            row = cur.execute(pgrows.DELETE_MEMORIES, (agent, list(ids))).fetchone()
            # a forgotten memory takes its links with it
            cur.execute(
                "DELETE FROM links WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, list(ids), list(ids)),
            )
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
        sql = f"SELECT {pgrows.MEMORY_COLUMNS} FROM memories WHERE part = ANY(%s)"
        args: list[Any] = [_parts(scopes)]
        if kinds:
            sql += " AND kind = ANY(%s)"
            args.append([k.value for k in kinds])
        sql += " ORDER BY COALESCE(time, created_at) DESC, rowid DESC LIMIT %s OFFSET %s"
        args.extend([limit, offset])
        return [pgrows.memory(row) for row in self._rows(sql, args)]

    def record_access(self, agent: str, ids: Sequence[str], when: datetime, strength_bonus: float = 0.0) -> None:
        if not ids:
            return
        with self._write() as cur:
            cur.execute(
                "UPDATE memories SET access_count = access_count + 1, last_access = %s, strength = strength + %s"
                " WHERE agent = %s AND id = ANY(%s)",
                (pgrows.naive(when), strength_bonus, agent, list(ids)),
            )

    def update_memories(self, agent: str, changes: Sequence[tuple[str, dict[str, Any]]]) -> int:
        for _, fields in changes:
            unknown = set(fields) - UPDATABLE
            if unknown:
                raise StoreError(f"these memory fields cannot be updated: {sorted(unknown)}")
        changed = 0
        with self._write() as cur:
            for memory_id, fields in changes:
                if not fields:
                    continue
                # names come from UPDATABLE only, so they are safe inside the statement
                assignments = ", ".join(
                    f"{name} = %s::jsonb" if name in pgrows.JSON_FIELDS else f"{name} = %s" for name in fields
                )
                values = [pgrows.column_value(name, value) for name, value in fields.items()]
                cur.execute(
                    f"UPDATE memories SET {assignments} WHERE agent = %s AND id = %s", (*values, agent, memory_id)
                )
                changed += cur.rowcount
        return changed

    # the graph -----------------------------------------------------------------------------------
    def upsert_entity(self, entity: Entity, vector: Vectors) -> Entity:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO entities (id, agent, scope, part, name, type, aliases, sources, merged_into, vector,"
                " created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::halfvec, %s) ON CONFLICT (id) DO UPDATE"
                " SET name = excluded.name, type = excluded.type, aliases = excluded.aliases,"
                " sources = excluded.sources, vector = excluded.vector",
                (
                    entity.id,
                    entity.scope.agent,
                    entity.scope.tag,
                    partition_key(entity.scope.agent, entity.scope),
                    entity.name,
                    entity.type.value,
                    pgrows.json_text(entity.aliases),
                    pgrows.json_text(entity.sources),
                    entity.merged_into,
                    search.vector_literal(vector),
                    pgrows.now(),
                ),
            )
        return entity

    def list_entities(self, scopes: Sequence[Scope], include_merged: bool = False) -> list[Entity]:
        sql = f"SELECT {pgrows.ENTITY_COLUMNS} FROM entities WHERE part = ANY(%s)"
        if not include_merged:
            sql += " AND merged_into IS NULL"
        return [pgrows.entity(row) for row in self._rows(sql + " ORDER BY rowid", (_parts(scopes),))]

    def similar_entities(self, scopes: Sequence[Scope], vector: Vectors, limit: int) -> list[tuple[Entity, float]]:
        found = self._rows(
            f"SELECT {pgrows.ENTITY_COLUMNS}, vector <=> %(q)s::halfvec AS distance FROM entities"
            " WHERE part = ANY(%(parts)s) AND merged_into IS NULL ORDER BY distance, rowid LIMIT %(limit)s",
            {"q": search.vector_literal(vector), "parts": _parts(scopes), "limit": limit},
        )
        return [(pgrows.entity(row), _score(1.0 - row[-1])) for row in found]

    def merge_entities(self, agent: str, source: str, target: str, reason: str, when: datetime) -> EntityMerge:
        if source == target:
            raise StoreError("an entity cannot be merged into itself")
        with self._write() as cur:
            cur.execute(
                f"SELECT {pgrows.ENTITY_COLUMNS} FROM entities WHERE agent = %s AND id = ANY(%s)"
                " AND merged_into IS NULL ORDER BY id FOR UPDATE",
                (agent, [source, target]),
            )
            found = {row[0]: pgrows.entity(row) for row in cur.fetchall()}
            if len(found) != 2:
                raise StoreError(f"cannot merge {source} into {target}: both must exist and not be merged already")
            kept, gone = found[target], found[source]
            aliases = list(dict.fromkeys([*kept.aliases, *(n for n in gone.names if n != kept.name)]))
            cur.execute("UPDATE entities SET aliases = %s WHERE id = %s", (pgrows.json_text(aliases), target))
            cur.execute("UPDATE entities SET merged_into = %s WHERE id = %s", (target, source))
            merge = EntityMerge(agent=agent, source=source, target=target, reason=reason, at=pgrows.naive(when))
            cur.execute(
                "INSERT INTO entity_merges (id, agent, source, target, reason, at, target_aliases)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (merge.id, agent, source, target, reason, merge.at, pgrows.json_text(kept.aliases)),
            )
        return merge

    def undo_merge(self, agent: str, merge_id: str) -> EntityMerge:
        with self._write() as cur:
            row = cur.execute(
                f"SELECT {pgrows.MERGE_COLUMNS}, target_aliases FROM entity_merges WHERE agent = %s AND id = %s"
                " FOR UPDATE",
                (agent, merge_id),
            ).fetchone()
            if row is None or row[6]:
                raise StoreError(f"no merge {merge_id} to undo for agent {agent}")
            merge = pgrows.merge(row)
            cur.execute("UPDATE entities SET aliases = %s WHERE id = %s", (pgrows.json_text(row[7]), merge.target))
            cur.execute("UPDATE entities SET merged_into = NULL WHERE id = %s", (merge.source,))
            cur.execute("UPDATE entity_merges SET undone = true WHERE id = %s", (merge_id,))
        return merge.model_copy(update={"undone": True})

    def list_merges(self, agent: str) -> list[EntityMerge]:
        found = self._rows(
            f"SELECT {pgrows.MERGE_COLUMNS} FROM entity_merges WHERE agent = %s ORDER BY at, id", (agent,)
        )
        return [pgrows.merge(row) for row in found]

    def add_links(self, agent: str, links: Sequence[Link]) -> int:
        if not links:
            return 0
        with self._write() as cur:
            cur.execute(
                "INSERT INTO links (agent, source, target, kind, weight)"
                " SELECT %s, * FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[]) ON CONFLICT DO NOTHING",
                (
                    agent,
                    [link.source for link in links],
                    [link.target for link in links],
                    [link.kind.value for link in links],
                    [float(link.weight) for link in links],
                ),
            )
            return cur.rowcount

    def links_of(self, agent: str, ids: Sequence[str]) -> list[Link]:
        found = self._rows(
            "SELECT source, target, kind, weight FROM links WHERE agent = %(agent)s"
            " AND (source = ANY(%(ids)s) OR target = ANY(%(ids)s))",
            {"agent": agent, "ids": list(ids)},
        )
        return [Link(source=r[0], target=r[1], kind=LinkKind(r[2]), weight=r[3]) for r in found]

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
            row = cur.execute(search.LEXEMES, {**text, "each": list(query.words)})
            wlex, clex, docs, firsts, lasts = row.fetchone() or ([], [], 0, [], [])
            # as the SQLite store: adjacent words as phrases; CJK bigrams only beside the characters
            wpairs = search.word_pairs(firsts, lasts)
            cpairs = search.cjk_bigrams(query.words) if query.chars else []
            wkeep = sorted({*wlex, *(x for pair in wpairs for x in pair)})
            ckeep = sorted({*clex, *(x for pair in cpairs for x in pair)})
            pairs = [("w", a, b) for a, b in wpairs] + [("c", a, b) for a, b in cpairs]
            # a phrase is matched through its lexemes; only one with a lexeme outside them needs <->
            args = {
                "parts": parts,
                "wlex": wlex,
                "clex": clex,
                "wkeep": wkeep,
                "ckeep": ckeep,
                "pfield": [p[0] for p in pairs],
                "pleft": [p[1] for p in pairs],
                "pright": [p[2] for p in pairs],
                "wq": search.any_of(wlex, [p for p in wpairs if not set(p) <= set(wlex)]),
                "cq": search.any_of(clex, [p for p in cpairs if not set(p) <= set(clex)]),
                "limit": limit,
            }
            sql = search.KEYWORD_SCANNED if docs <= search.SCAN_DOCS else search.KEYWORD_INDEXED
            rows = cur.execute(sql, args).fetchall() if docs and (args["wq"] or args["cq"]) else []
        hits = [ScoredId(str(id_), float(score), int(rowid)) for rowid, id_, score in rows]
        return RouteHits(hits, (time.perf_counter() - started) * 1000)

    # search across an agent's scopes: outside the contract, for operators' tools -----------------
    def create_hnsw_index(self, dim: int) -> None:
        """An HNSW index over the vectors of dimension ``dim``, used by ``search_dense_agent`` only.

        ``search_dense`` never uses it: its query orders by the plain column, which this expression
        index does not cover, so recall within scopes stays an exact scan (HNSW with a scope filter
        would return the whole table's neighbours and drop most of them).
        """
        dim = int(dim)
        with self._cursor(transaction=False) as cur:
            cur.execute(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_vectors_hnsw_{dim} ON memory_vectors"
                f" USING hnsw ((embedding::halfvec({dim})) halfvec_cosine_ops) WHERE vector_dims(embedding) = {dim}"
            )

    def search_dense_agent(self, agent: str, query: Vectors, limit: int, ef_search: int = 100) -> RouteHits:
        """Approximate nearest memories across every scope of ``agent``, through the HNSW index of the
        query's dimension (``create_hnsw_index``), scanning on until ``limit`` of the agent's are found."""
        started = time.perf_counter()
        dim = int(np.asarray(query).size)
        sql = search.DENSE_ACROSS.replace("{dim}", str(dim))
        with self._write() as cur:
            cur.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            cur.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(max(ef_search, limit)),))
            found = cur.execute(sql, {"q": search.vector_literal(query), "agent": agent, "limit": limit}).fetchall()
        hits = [ScoredId(str(id_), _score(1.0 - distance), int(rowid)) for rowid, id_, distance in found]
        return RouteHits(hits, (time.perf_counter() - started) * 1000)


def _configure(conn: psycopg.Connection[TupleRow]) -> None:
    # JIT compiling a vector scan costs more than the scan
    conn.execute("SET jit = off")


def _parts(scopes: Sequence[Scope]) -> list[str]:
    return [partition_key(s.agent, s) for s in scopes]


def _score(value: Any) -> float:
    score = float(value) if value is not None else 0.0
    return score if score == score else 0.0  # NaN (a zero vector) scores nothing
