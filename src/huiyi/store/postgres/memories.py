"""The server store's memories: a unit of work written in one transaction, and memories read and changed.

A batch of memories is one statement (``INSERT_MEMORIES``) that inserts the rows, their ``halfvec``
vectors and their ``tsvector``s, and adds what it inserted to the ``partitions`` counters BM25 reads;
``DELETE_MEMORIES`` takes them back out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from huiyi.errors import StoreError
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.store import rows
from huiyi.store.base import MemoryFilter, OwnVectors, RankRow, Terms, Vectors, Writes
from huiyi.store.jsontext import json_text
from huiyi.store.madefrom import left_unindexed, made_from_gone, to_look_up
from huiyi.store.owncache import own_vectors
from huiyi.store.pages import ListMark, Marked, list_key, list_order, marked
from huiyi.store.postgres.connection import Cursor, PostgresConnection
from huiyi.store.postgres.graph import add_names, drop_aliases
from huiyi.store.postgres.jobs import record_folded
from huiyi.store.postgres.search_sql import vector_literal
from huiyi.store.rows import MEMORY_COLUMNS, NATIVE, fold_of, naive, partition_key, partition_keys
from huiyi.store.writing import AddsByApply, check_updatable, checked_vectors

JSON_FIELDS = frozenset({"keywords", "data", "participants", "sources"})
# created_at (UTC) on the wall clock of the zone given as its parameter: the store's zone, by name
_LIST_KEY = list_key("(created_at AT TIME ZONE 'UTC') AT TIME ZONE %s")

# one statement inserts a batch (skipping ids already stored) and adds what it inserted to the counters
INSERT_MEMORIES = """
WITH batch AS (
    SELECT * FROM unnest(
        %(id)s::text[], %(agent)s::text[], %(scope)s::text[], %(part)s::text[], %(kind)s::text[],
        %(text)s::text[], %(time)s::timestamp[], %(place)s::text[], %(participants)s::text[],
        %(keywords)s::text[], %(insight)s::text[], %(importance)s::float8[], %(strength)s::float8[],
        %(access_count)s::int[], %(last_access)s::timestamp[], %(created_at)s::timestamp[],
        %(sources)s::text[], %(data)s::text[], %(embedding)s::text[], %(words)s::text[], %(chars)s::text[],
        %(words_len)s::int[], %(chars_len)s::int[], %(feedback)s::float8[], %(valid_to)s::timestamp[],
        %(said_at)s::timestamp[], %(own)s::text[], %(time_fold)s::smallint[], %(said_at_fold)s::smallint[]
    ) AS b (id, agent, scope, part, kind, text, time, place, participants, keywords, insight, importance,
            strength, access_count, last_access, created_at, sources, data, embedding, words, chars,
            words_len, chars_len, feedback, valid_to, said_at, own, time_fold, said_at_fold)
), inserted AS (
    INSERT INTO memories (id, agent, scope, part, kind, text, time, place, participants, keywords, insight,
        importance, strength, access_count, last_access, created_at, sources, data, words, chars,
        words_len, chars_len, feedback, valid_to, said_at, time_fold, said_at_fold)
    SELECT id, agent, scope, part, kind, text, time, place, participants::jsonb, keywords::jsonb, insight,
        importance, strength, access_count, last_access, created_at, sources::jsonb, data::jsonb,
        to_tsvector('huiyi_words', words), to_tsvector('simple', chars), words_len, chars_len, feedback, valid_to,
        said_at, time_fold, said_at_fold
    FROM batch
    ON CONFLICT (id) DO NOTHING
    RETURNING rowid, id, part, agent, scope, words_len, chars_len
), vectors AS (
    INSERT INTO memory_vectors (rowid, part, embedding)
    SELECT i.rowid, i.part, b.embedding::halfvec FROM inserted i JOIN batch b USING (id)
), owns AS (
    INSERT INTO memory_own_vectors (rowid, embedding)
    SELECT i.rowid, b.own::halfvec FROM inserted i JOIN batch b USING (id) WHERE b.own IS NOT NULL
)
INSERT INTO partitions AS p (part, agent, scope, docs, words_total, chars_total)
SELECT part, min(agent), min(scope), count(*), sum(words_len), sum(chars_len)
FROM inserted GROUP BY part ORDER BY part
ON CONFLICT (part) DO UPDATE SET docs = p.docs + excluded.docs, words_total = p.words_total + excluded.words_total,
    chars_total = p.chars_total + excluded.chars_total
"""

DELETE_MEMORIES = """
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


class PostgresMemories(AddsByApply, PostgresConnection):
    """``MemoryStore`` on PostgreSQL."""

    def apply(self, writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
        items, terms = writes.memories, writes.terms
        vectors, entity_vectors = checked_vectors(writes)
        with self._write() as cur:
            if complete_job is not None:
                job_id, worker = complete_job
                cur.execute(
                    "UPDATE jobs SET state = 'done', lease_until = NULL,"
                    " last_error = COALESCE(NULLIF(%s, ''), last_error)"
                    " WHERE id = %s AND state = 'running' AND worker = %s",
                    (writes.job_error, job_id, worker),
                )
                if not cur.rowcount:
                    raise StoreError(f"job {job_id} is not running for {worker}: its lease may have expired")
                record_folded(cur, job_id)
            links = _take_out(cur, writes.replaced)
            _update_rows(cur, writes.updates)
            for entity, vector in zip(writes.entities, entity_vectors, strict=True):
                add_names(cur, entity, vector, self.clock())
            for agent, entity_id, names in writes.dropped_aliases:
                drop_aliases(cur, agent, entity_id, names)
            by_agent: dict[str, list[str]] = {}
            for agent, message_id in writes.indexed_messages:
                by_agent.setdefault(agent, []).append(message_id)
            own = writes.own_vectors
            # read in the write transaction (the rows locked), so an erasure is wholly before it or after it
            gone = _erased(cur, by_agent)  # chunks of messages erased while they were embedded
            # a merge or summary of what an erasure took since it was read
            unmade = _unmade(cur, items, writes.made_from) if writes.made_from is not None else set()
            again = left_unindexed(items, unmade, writes.indexed_messages)  # made of turns erased since read
            if gone or unmade:
                kept = [i for i, item in enumerate(items) if gone.isdisjoint(item.sources) and item.id not in unmade]
                items, vectors, terms = [items[i] for i in kept], vectors[kept], [terms[i] for i in kept]
                own = None if own is None else own[kept]
            if items:
                cur.execute(INSERT_MEMORIES, memory_columns(items, vectors, terms, own, created=self.clock()))
            for agent, ids in by_agent.items():
                cur.execute(
                    "UPDATE messages SET indexed = true WHERE agent = %s AND id = ANY(%s)",
                    (agent, [i for i in ids if (agent, i) not in again]),
                )
            for agent, message_id in again:
                cur.execute(
                    "UPDATE messages SET claimed_by = '', claim_until = NULL WHERE agent = %s AND id = %s",
                    (agent, message_id),
                )
            for agent, space, start_seq in writes.fold_points:
                cur.execute(
                    "INSERT INTO working_memory (agent, space, start_seq) VALUES (%s, %s, %s)"
                    " ON CONFLICT (agent, space) DO UPDATE"
                    " SET start_seq = GREATEST(working_memory.start_seq, excluded.start_seq)",
                    (agent, space, start_seq),
                )
            if links:
                cur.executemany(
                    "INSERT INTO links (agent, source, target, kind, weight) VALUES (%s, %s, %s, %s, %s)"
                    " ON CONFLICT DO NOTHING",
                    links,
                )
        if writes.replaced:
            self._own.clear()  # once committed: a recall may read the rows until then

    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        if not ids:  # recall asks for none when it found none: no round trip for that
            return []
        found = self._rows(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))
        )
        by_id = {row[1]: rows.memory(row, NATIVE) for row in found}
        return [by_id[i] for i in ids if i in by_id]

    def taken_ids(self, agent: str, ids: Sequence[str], entities: bool = False) -> list[str]:
        table = "entities" if entities else "memories"
        found = {
            str(row[0])
            for row in self._rows(f"SELECT id FROM {table} WHERE agent <> %s AND id = ANY(%s)", (agent, list(ids)))
        }
        return [i for i in dict.fromkeys(ids) if i in found]

    def recall_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        return self.get_memories(agent, ids)

    def own_vectors(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> OwnVectors:
        def read(missing: list[str]) -> dict[str, bytes]:
            found = self._rows(
                "SELECT m.id, o.embedding::text FROM memories m JOIN memory_own_vectors o ON o.rowid = m.rowid"
                " WHERE m.agent = %s AND m.id = ANY(%s)",
                (agent, missing),
            )
            # stored as halfvec: float16 loses nothing
            return {str(i): np.asarray(json.loads(text), dtype=np.float16).tobytes() for i, text in found}

        return own_vectors(self._own, agent, ids, read)

    def rank_rows(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> list[RankRow]:
        if not ids:  # the late routes added no candidate, as on most recalls: no round trip for that
            return []
        found = self._rows(
            "SELECT id, scope, kind, time, participants, sources, data->'space', data->'seq',"
            " text, importance, data->>'subject', data->'about', valid_to"
            " FROM memories WHERE agent = %s AND id = ANY(%s)",
            (agent, list(ids)),
        )
        by_id = {row.id: row for row in rows.rank_rows(found, NATIVE)}
        return [by_id[i] for i in ids if i in by_id]

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int:
        with self._write() as cur:
            row = cur.execute(DELETE_MEMORIES, (agent, list(ids))).fetchone()
            # a forgotten memory takes its links with it
            cur.execute(
                "DELETE FROM links WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, list(ids), list(ids)),
            )
        self._own.clear()  # once committed: a recall may read the rows until then
        return int(row[0]) if row else 0

    def count_memories(self, agent: str | None = None, scopes: Sequence[Scope] | None = None) -> int:
        if scopes is not None:
            parts = partition_keys(scopes)
            found = self._rows("SELECT COALESCE(sum(docs), 0) FROM partitions WHERE part = ANY(%s)", (parts,))
        elif agent is not None:
            found = self._rows("SELECT count(*) FROM memories WHERE agent = %s", (agent,))
        else:
            found = self._rows("SELECT count(*) FROM memories")
        return int(found[0][0])

    def list_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryItem]:
        return [rows.memory(row, NATIVE) for row in self._listed(scopes, kinds, limit, offset, None)]

    def page_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None, limit: int, after: ListMark | None
    ) -> list[Marked]:
        found = self._listed(scopes, kinds, limit, 0, after)
        return marked(found, [rows.memory(row, NATIVE) for row in found], self.zone)

    def _listed(
        self,
        scopes: Sequence[Scope],
        kinds: Sequence[MemoryKind] | None,
        limit: int,
        offset: int,
        after: ListMark | None,
    ) -> list[Any]:
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE part = ANY(%s)"
        args: list[Any] = [partition_keys(scopes)]
        if kinds:
            sql += " AND kind = ANY(%s)"
            args.append([k.value for k in kinds])
        if after is not None:
            sql += f" AND ({_LIST_KEY}, rowid) < (%s, %s)"
            args.extend([self.zone.key, after.key, after.row])
        sql += f" ORDER BY {list_order(_LIST_KEY)} LIMIT %s OFFSET %s"
        args.extend([self.zone.key, limit, offset])
        return list(self._rows(sql, args))

    def find_memories(self, scopes: Sequence[Scope], where: MemoryFilter, limit: int = 100) -> list[MemoryItem]:
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE part = ANY(%s)"
        args: list[Any] = [partition_keys(scopes)]
        if where.kinds:
            # kinds as literals (enum values) and one kind as ``kind = 'fact'``: the partial index of
            # migration 11 serves only a query that says its condition so
            literals = [f"'{k.value}'" for k in where.kinds]
            sql += f" AND kind = {literals[0]}" if len(literals) == 1 else f" AND kind IN ({', '.join(literals)})"
        if where.said_by is not None:
            sql += f" AND {_LIST_KEY} <= %s"
            args.extend([self.zone.key, naive(where.said_by)])
        if where.open_at is not None:
            sql += " AND (valid_to IS NULL OR valid_to > %s)"
            args.append(naive(where.open_at))
        if where.subject is not None:
            sql += " AND data->>'subject' = %s"
            args.append(where.subject)
        if where.predicates:
            sql += " AND data->>'predicate' = ANY(%s)"
            args.append(list(where.predicates))
        if where.keywords:
            sql += " AND (data->>'keyword' = ANY(%s) OR keywords ?| %s)"
            args.extend([list(where.keywords), list(where.keywords)])
        if where.text is not None:
            sql += " AND text = %s"
            args.append(where.text)
        sql += f" ORDER BY {list_order(_LIST_KEY)} LIMIT %s"
        args.extend([self.zone.key, limit])
        return [rows.memory(row, NATIVE) for row in self._rows(sql, args)]

    def record_access(
        self, agent: str, ids: Sequence[str], when: datetime, strength_bonus: float = 0.0, times: int = 1
    ) -> None:
        times = rows.recall_count(times)
        if not ids:
            return
        with self._write() as cur:
            cur.execute(
                "UPDATE memories SET access_count = access_count + %s, last_access = %s, strength = strength + %s"
                " WHERE agent = %s AND id = ANY(%s)",
                (times, naive(when), strength_bonus * times, agent, list(ids)),
            )

    def update_memories(self, agent: str, changes: Sequence[tuple[str, dict[str, Any]]]) -> int:
        check_updatable(changes)
        with self._write() as cur:
            return _update_rows(cur, [(agent, memory_id, fields) for memory_id, fields in changes])

    def add_feedback(self, agent: str, memory_id: str, value: float) -> float | None:
        with self._write() as cur:
            cur.execute(
                "UPDATE memories SET feedback = LEAST(1.0, GREATEST(-1.0, feedback + %s))"
                " WHERE agent = %s AND id = %s RETURNING feedback",
                (value, agent, memory_id),
            )
            row = cur.fetchone()
        return None if row is None else float(row[0])


def _update_rows(cur: Cursor, changes: Sequence[tuple[str, str, dict[str, Any]]]) -> int:
    """(agent, id, fields) updated in the caller's transaction; how many rows."""
    changed = 0
    for agent, memory_id, fields in changes:
        if not fields:
            continue
        # names come from UPDATABLE only, so they are safe inside the statement
        assignments = ", ".join(f"{name} = %s::jsonb" if name in JSON_FIELDS else f"{name} = %s" for name in fields)
        values = [column_value(name, value) for name, value in fields.items()]
        cur.execute(f"UPDATE memories SET {assignments} WHERE agent = %s AND id = %s", (*values, agent, memory_id))
        changed += cur.rowcount
    return changed


def column_value(name: str, value: Any) -> Any:
    """A memory field's value as its column takes it (JSON as text, cast by the statement)."""
    if name in JSON_FIELDS:
        return json_text(value)
    if isinstance(value, datetime):
        return naive(value)
    return value


def memory_columns(
    items: Sequence[MemoryItem],
    vectors: Vectors,
    terms: Sequence[Terms],
    own: Vectors | None = None,
    *,
    created: datetime,
) -> dict[str, list[Any]]:
    """The parameters of ``INSERT_MEMORIES``: one array per column; ``created`` stamps those without one."""
    return {
        "id": [i.id for i in items],
        "agent": [i.scope.agent for i in items],
        "scope": [i.scope.tag for i in items],
        "part": [partition_key(i.scope.agent, i.scope) for i in items],
        "kind": [i.kind.value for i in items],
        "text": [i.text for i in items],
        "time": [naive(i.time) for i in items],
        "place": [i.place for i in items],
        "participants": [json_text(i.participants) for i in items],
        "keywords": [json_text(i.keywords) for i in items],
        "insight": [i.insight for i in items],
        "importance": [float(i.importance) for i in items],
        "strength": [float(i.strength) for i in items],
        "access_count": [i.access_count for i in items],
        "last_access": [naive(i.last_access) for i in items],
        "created_at": [naive(i.created_at) or created for i in items],
        "sources": [json_text(i.sources) for i in items],
        "data": [json_text(i.data) for i in items],
        "embedding": [vector_literal(v) for v in vectors],
        "words": [" ".join(t.words) for t in terms],
        "chars": [" ".join(t.chars) for t in terms],
        "words_len": [len(t.words) for t in terms],
        "chars_len": [len(t.chars) for t in terms],
        "feedback": [float(i.feedback) for i in items],
        "valid_to": [naive(i.valid_to) for i in items],
        "said_at": [naive(i.said_at) for i in items],
        "own": [vector_literal(v) for v in own] if own is not None else [None] * len(items),
        "time_fold": [fold_of(i.time) for i in items],
        "said_at_fold": [fold_of(i.said_at) for i in items],
    }


def _erased(cur: Any, by_agent: dict[str, list[str]]) -> set[str]:
    """The ids of these messages (by agent) that are no longer stored: their chunks must not be written."""
    gone: set[str] = set()
    for agent, ids in by_agent.items():
        # FOR UPDATE, in one order: two writers of one message's chunk (its indexer and an opener taking over
        # the backlog) each holding a share lock would deadlock at the indexed flag's update
        cur.execute(
            "SELECT id FROM messages WHERE agent = %s AND id = ANY(%s) ORDER BY id FOR UPDATE", (agent, sorted(ids))
        )
        gone.update(set(ids) - {str(row[0]) for row in cur.fetchall()})
    return gone


def _unmade(cur: Any, items: Sequence[MemoryItem], made_from: Sequence[Sequence[str]]) -> set[str]:
    """The ids of ``items`` made from what is no longer stored (``made_from``: one list per item), directly or
    through another of ``items`` (read with the rows locked, so an erasure is wholly before or after)."""
    missing: set[str] = set()
    for agent, asked in to_look_up(items, made_from).items():
        cur.execute("SELECT id FROM messages WHERE agent = %s AND id = ANY(%s) FOR SHARE", (agent, asked))
        found = {str(row[0]) for row in cur.fetchall()}
        cur.execute("SELECT id FROM memories WHERE agent = %s AND id = ANY(%s) FOR SHARE", (agent, asked))
        found |= {str(row[0]) for row in cur.fetchall()}
        missing.update(set(asked) - found)
    return made_from_gone(items, made_from, missing) - missing


def _take_out(cur: Any, memories: Sequence[tuple[str, str]]) -> list[Any]:
    """Delete these (agent, id) memories in the caller's transaction; their links, to add back once the
    memories are written again."""
    links: list[Any] = []
    for agent, memory_id in memories:
        cur.execute(
            "DELETE FROM links WHERE agent = %s AND (source = %s OR target = %s)"
            " RETURNING agent, source, target, kind, weight",
            (agent, memory_id, memory_id),
        )
        links += cur.fetchall()
        cur.execute(DELETE_MEMORIES, (agent, [memory_id]))
    return links
