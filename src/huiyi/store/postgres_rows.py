"""Rows of the PostgreSQL store and the models they hold, and the SQL of its batch writes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.rows import TupleRow

from huiyi.model import Entity, EntityMerge, EntityType, Job, JobState, MemoryItem, MemoryKind, Message, Person, Scope
from huiyi.store.base import Terms, Vectors
from huiyi.store.postgres_search import vector_literal
from huiyi.store.sqlite import partition_key

MEMORY_COLUMNS = (
    "rowid, id, agent, scope, kind, text, time, place, participants, keywords, insight,"
    " importance, strength, access_count, last_access, created_at, sources, data, feedback, valid_to"
)
MESSAGE_COLUMNS = "agent, id, space, scope, speaker, role, text, time, seq"
JOB_COLUMNS = "id, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at"
ENTITY_COLUMNS = "id, agent, scope, name, type, aliases, sources, merged_into"
MERGE_COLUMNS = "id, agent, source, target, reason, at, undone"
JSON_FIELDS = frozenset({"keywords", "data", "participants", "sources"})


def naive(value: datetime | None) -> datetime | None:
    """The wall-clock value without its zone, as the SQLite store reads it."""
    return value.replace(tzinfo=None) if value is not None and value.tzinfo is not None else value


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def column_value(name: str, value: Any) -> Any:
    """A memory field's value as its column takes it (JSON as text, cast by the statement)."""
    if name in JSON_FIELDS:
        return json_text(value)
    if isinstance(value, datetime):
        return naive(value)
    return value


# SQL of the write path -------------------------------------------------------------------------------
# one statement inserts a batch (skipping ids already stored) and adds what it inserted to the counters
INSERT_MEMORIES = """
WITH batch AS (
    SELECT * FROM unnest(
        %(id)s::text[], %(agent)s::text[], %(scope)s::text[], %(part)s::text[], %(kind)s::text[],
        %(text)s::text[], %(time)s::timestamp[], %(place)s::text[], %(participants)s::text[],
        %(keywords)s::text[], %(insight)s::text[], %(importance)s::float8[], %(strength)s::float8[],
        %(access_count)s::int[], %(last_access)s::timestamp[], %(created_at)s::timestamp[],
        %(sources)s::text[], %(data)s::text[], %(embedding)s::text[], %(words)s::text[], %(chars)s::text[],
        %(words_len)s::int[], %(chars_len)s::int[], %(feedback)s::float8[], %(valid_to)s::timestamp[]
    ) AS b (id, agent, scope, part, kind, text, time, place, participants, keywords, insight, importance,
            strength, access_count, last_access, created_at, sources, data, embedding, words, chars,
            words_len, chars_len, feedback, valid_to)
), inserted AS (
    INSERT INTO memories (id, agent, scope, part, kind, text, time, place, participants, keywords, insight,
        importance, strength, access_count, last_access, created_at, sources, data, words, chars,
        words_len, chars_len, feedback, valid_to)
    SELECT id, agent, scope, part, kind, text, time, place, participants::jsonb, keywords::jsonb, insight,
        importance, strength, access_count, last_access, created_at, sources::jsonb, data::jsonb,
        to_tsvector('huiyi_words', words), to_tsvector('simple', chars), words_len, chars_len, feedback, valid_to
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


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def memory_columns(items: Sequence[MemoryItem], vectors: Vectors, terms: Sequence[Terms]) -> dict[str, list[Any]]:
    created = now()
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
    }


def person(row: TupleRow) -> Person:
    return Person(id=row[0], name=row[1], aliases=row[2], platform_ids=row[3])


def message(row: TupleRow) -> Message:
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


def job(row: TupleRow) -> Job:
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


def memory(row: TupleRow) -> MemoryItem:
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
        feedback=feedback,
        valid_to=valid_to,
    )


def entity(row: TupleRow) -> Entity:
    id_, agent, scope, name, type_, aliases, sources, merged_into = row[:8]
    return Entity(
        id=id_,
        scope=Scope.from_tag(agent, scope),
        name=name,
        type=EntityType(type_),
        aliases=aliases,
        sources=sources,
        merged_into=merged_into,
    )


def merge(row: TupleRow) -> EntityMerge:
    id_, agent, source, target, reason, at, undone = row[:7]
    return EntityMerge(id=id_, agent=agent, source=source, target=target, reason=reason, at=at, undone=undone)
