"""Rows of both stores and the models they hold: column lists, partition keys, times, JSON.

The SQLite and PostgreSQL stores keep the same tables with the same columns; what differs is how a
column holds a value. SQLite keeps JSON as text and times as epoch seconds (``TEXT``); PostgreSQL's
``jsonb`` and ``timestamp`` columns arrive already decoded (``NATIVE``). A ``Codec`` names that
difference, and each reader of a row below takes one, so a model is built from a row in one place.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from sys import intern
from typing import Any, TypeVar

from pydantic import BaseModel

from huiyi.checks import wall_of
from huiyi.errors import InvalidInput, StoreError
from huiyi.model import Entity, EntityMerge, EntityType, Job, JobState, MemoryItem, MemoryKind, Message, Person, Scope
from huiyi.store.base import RankRow, ScopeStats
from huiyi.store.graph import EntityEdit
from huiyi.store.jobs import RunReport

Row = Sequence[Any]

MESSAGE_COLUMNS = "agent, id, space, scope, speaker, role, text, time, seq, time_fold"
# everyone who spoke in a space (agent, space, agent, space): one seek per speaker of the space on
# messages_space_speaker (agent, space, speaker), not a read of the space's lines nor of the agent's speakers
EVERY_SPEAKER = (
    "WITH RECURSIVE who(speaker) AS ("
    " SELECT MIN(speaker) FROM messages WHERE agent = %s AND space = %s"
    " UNION ALL SELECT (SELECT MIN(speaker) FROM messages WHERE agent = %s AND space = %s AND speaker > who.speaker)"
    " FROM who WHERE who.speaker IS NOT NULL)"
    " SELECT speaker FROM who WHERE speaker IS NOT NULL"
)
JOB_COLUMNS = (
    "id, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at, claims"
)
ENTITY_COLUMNS = "id, agent, scope, name, type, aliases, sources, merged_into"
MERGE_COLUMNS = "id, agent, source, target, reason, at, undone"
REPORT_COLUMNS = "id, agent, scope, kind, at, dry_run, counts, body"
MEMORY_COLUMNS = (
    "rowid, id, agent, scope, kind, text, time, place, participants, keywords, insight,"
    " importance, strength, access_count, last_access, created_at, sources, data, feedback, valid_to, said_at,"
    " time_fold, said_at_fold"
)


# partitions --------------------------------------------------------------------------------------
def partition_key(agent: str, scope: Scope) -> str:
    """A short token naming one agent's scope; safe inside an FTS5 query."""
    digest = hashlib.blake2b(f"{agent}\x1f{scope.tag}".encode(), digest_size=10).hexdigest()
    return f"p{digest}"


# the scopes' entities version (``Store.entities_version``): the sum of their partitions' versions, which
# only grow, under an epoch that each person's erasure moves when it drops that person's row (a sum lower
# than before would match one another process kept an erased entity list under)
ENTITIES_EPOCH = "SELECT COALESCE(MAX(CAST(value AS BIGINT)), 0) FROM meta WHERE key = 'entities_epoch'"
BUMP_ENTITIES_EPOCH = (
    "INSERT INTO meta (key, value) VALUES ('entities_epoch', '1') ON CONFLICT (key) DO UPDATE"
    " SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT)"
)


# erasures the store has seen, moved by each in its transaction: a maintenance run that began before one
# keeps no report (it may quote what went; ``add_report``)
ERASURES = "SELECT COALESCE(MAX(CAST(value AS BIGINT)), 0) FROM meta WHERE key = 'erasures'"
BUMP_ERASURES = (
    "INSERT INTO meta (key, value) VALUES ('erasures', '1') ON CONFLICT (key) DO UPDATE"
    " SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT)"
)


def entities_version(epoch: int, total: int) -> int:
    return epoch << 40 | total


def partition_keys(scopes: Sequence[Scope]) -> list[str]:
    """The partition of each scope, in order."""
    return [partition_key(s.agent, s) for s in scopes]


# times -------------------------------------------------------------------------------------------
def naive(value: datetime | None) -> datetime | None:
    """The wall-clock value without its zone: both stores keep the time the caller gave, no zone implied."""
    return value.replace(tzinfo=None) if value is not None and value.tzinfo is not None else value


def now() -> datetime:
    """The current UTC time as a zone-less wall-clock value."""
    return datetime.now(UTC).replace(tzinfo=None)


def to_epoch(value: datetime | None) -> float | None:
    """Wall-clock datetimes are stored as seconds, read as if they were UTC (no zone is implied)."""
    value = naive(value)
    if value is None:
        return None
    return value.replace(tzinfo=UTC).timestamp()


_EPOCH = datetime(1970, 1, 1)


def fold_of(value: datetime | None) -> int | None:
    """What a ``*_fold`` column keeps of a wall-clock time: 1 for the second of a repeated hour (clocks
    turned back: the zone's later offset, ``fold=1``), else NULL, as in every row written before.

    >>> fold_of(datetime(2026, 11, 1, 1, 10, fold=1)), fold_of(datetime(2026, 11, 1, 1, 10))
    (1, None)
    """
    return 1 if value is not None and value.fold else None


def folded(value: datetime | None, fold: Any) -> datetime | None:
    """A stored wall-clock time with the fold its ``*_fold`` column kept (NULL or 0: the first)."""
    return value.replace(fold=1) if fold and value is not None else value


def wall_epoch(written: float | None, zone: tzinfo) -> float | None:
    """A ``created_at`` stored as seconds (UTC), as the seconds of its wall clock in ``zone`` (SQLite's list
    key): the very float ``to_epoch`` makes of the mark read from the same row."""
    return to_epoch(wall_of(from_epoch(written), zone))


def recall_count(times: int) -> int:
    """``record_access``'s count of recalls, checked alike by every backend: a whole number, at least 1.

    >>> recall_count(3)
    3
    """
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise StoreError(f"times counts recalls, at least 1: {times!r}")
    return times


def from_epoch(value: float | None) -> datetime | None:
    """The naive datetime ``to_epoch`` stored: the same value as ``datetime.fromtimestamp(value,
    UTC).replace(tzinfo=None)`` (both round to the microsecond, half to even) at half the cost, which
    recall pays for every candidate.

    >>> from_epoch(1701697970.123456), from_epoch(None)
    (datetime.datetime(2023, 12, 4, 13, 52, 50, 123456), None)
    """
    if value is None:
        return None
    return _EPOCH + timedelta(0, value)  # (days, seconds): by place, the keyword cost a third of the call


# JSON --------------------------------------------------------------------------------------------
def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Codec:
    """How a backend's columns hold JSON and times, as functions from the column's value."""

    json: Callable[[Any], Any]
    time: Callable[[Any], datetime | None]


TEXT = Codec(json=json.loads, time=from_epoch)  # SQLite: JSON as text, times as epoch seconds
NATIVE = Codec(json=_same, time=_same)  # PostgreSQL: jsonb and timestamp arrive decoded


# rows -> models ----------------------------------------------------------------------------------
def person(row: Row, codec: Codec) -> Person:
    """A person from ``id, name, aliases, platform_ids``."""
    # checked when stored: made as messages are, so a new process's first recall, which lists the persons a
    # query may name, does not build Person's validator (~30 ms on the GIL; issue 15)
    fields = {"id": row[0], "name": row[1], "aliases": codec.json(row[2]), "platform_ids": codec.json(row[3])}
    return trusted(Person, fields)


def message(row: Row, codec: Codec) -> Message:
    """A message from ``MESSAGE_COLUMNS``."""
    agent, id_, space, scope, speaker, role, text, when, seq, when_fold = row
    # stored by huiyi from a checked message: made as the hits are, without building the validator, which
    # cost the indexing of a new process's first add ~20 ms of the GIL beside the bot's next call (issue 15)
    fields = {"id": id_, "agent": agent, "space": space, "scope": _scope(agent, scope), "speaker": speaker}
    said = folded(codec.time(when), when_fold) or datetime.min
    return trusted(Message, fields | {"role": role, "text": text, "time": said, "seq": seq})


def job(row: Row, codec: Codec) -> Job:
    """A job from ``JOB_COLUMNS``."""
    id_, kind, agent, key, payload, state, attempts, last_error, run_after, lease_until, worker, created_at = row[:12]
    claims = row[12]
    fields = {"id": id_, "kind": kind, "agent": agent, "key": key, "payload": codec.json(payload)}
    fields |= {"state": JobState(state), "attempts": attempts, "last_error": last_error, "worker": worker}
    fields |= {"run_after": codec.time(run_after), "lease_until": codec.time(lease_until)}
    return trusted(Job, fields | {"created_at": codec.time(created_at), "claims": claims})  # as stored (message)


def job_span(job: Job) -> tuple[str, int, int] | None:
    """A fold job's space and the first and last seq it folds (both stores check it when it is queued),
    or None for a job whose payload names no span."""
    payload = job.payload
    if not all(key in payload for key in ("space", "from_seq", "to_seq")):
        return None
    return str(payload["space"]), int(payload["from_seq"]), int(payload["to_seq"])


@lru_cache(maxsize=4096)
def _scope(agent: str, tag: str) -> Scope:
    """Scopes are frozen: the rows of one scope share one, validated once."""
    return Scope.from_tag(agent, tag)


M = TypeVar("M", bound=BaseModel)


@lru_cache(maxsize=64)
def _plain_fields(cls: type[BaseModel]) -> tuple[str, ...] | None:
    """The model's field names, when nothing but them goes into an instance (no aliases, no extras
    kept, no private attributes, no post-init); else None."""
    fields = cls.__pydantic_fields__
    if (
        cls.model_config.get("extra") == "allow"
        or cls.__pydantic_post_init__
        or cls.__private_attributes__
        or cls.__pydantic_root_model__
        or any(f.alias is not None or f.validation_alias is not None for f in fields.values())
    ):
        return None
    return tuple(fields)


@lru_cache(maxsize=64)
def _field_set(cls: type[BaseModel]) -> set[str]:
    return set(cls.__pydantic_fields__)


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """``cls.model_construct(**values)`` when ``values`` holds every field: the same instance (fields in
    declared order, all of them set) at a fifth of the cost, which recall paid for each hit twice."""
    fields = _plain_fields(cls)
    if fields is None or len(values) != len(fields):
        return cls.model_construct(**values)
    try:
        ordered = {name: values[name] for name in fields}
    except KeyError:
        return cls.model_construct(**values)
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", ordered)
    object.__setattr__(model, "__pydantic_fields_set__", _field_set(cls).copy())  # copied: faster than set(fields)
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


def memories(found: Sequence[Row], codec: Codec) -> list[MemoryItem]:
    """Memories from ``MEMORY_COLUMNS``; with JSON as text, every row's four JSON columns are decoded
    as one document (the same values: a hundred small parses cost more, as in :func:`rank_rows`)."""
    found = list(found)
    if codec is not TEXT or not found:
        return [memory(row, codec) for row in found]
    decoded = json.loads("[" + ",".join(map(_json_columns, found)) + "]")
    return [memory(row, codec, decoded[4 * i : 4 * i + 4]) for i, row in enumerate(found)]


def _json_columns(row: Row) -> str:
    """A row's four JSON columns as text, comma-separated (participants, keywords, sources, data)."""
    return f"{row[8]},{row[9]},{row[16]},{row[17]}"


Kept = tuple[dict[str, Any], str]  # a memory's fields but its JSON ones, and those as text (TEXT codec)


def kept(row: Row) -> Kept:
    """A row of ``MEMORY_COLUMNS`` (JSON as text) decoded but for its JSON columns, to keep: each
    :func:`from_kept` then builds fresh memories without decoding its times and scope again."""
    return memory_fields(row, TEXT, (None, None, None, None)), _json_columns(row)


def from_kept(found: Sequence[Kept]) -> list[MemoryItem]:
    """Memories from kept rows; their JSON is decoded anew, so no caller shares a list or dict with another."""
    decoded = json.loads("[" + ",".join(text for _, text in found) + "]")
    out = []
    for i, (fields, _) in enumerate(found):
        values = dict(fields)
        values["participants"], values["keywords"], values["sources"], values["data"] = decoded[4 * i : 4 * i + 4]
        out.append(trusted(MemoryItem, values))
    return out


def memory(row: Row, codec: Codec, decoded: Sequence[Any] | None = None) -> MemoryItem:
    """A memory from ``MEMORY_COLUMNS`` (``decoded``: its participants, keywords, sources and data, decoded)."""
    # rows were validated when written; building them again unvalidated is ~5x cheaper on recall's path
    return trusted(MemoryItem, memory_fields(row, codec, decoded))


def memory_fields(row: Row, codec: Codec, decoded: Sequence[Any] | None = None) -> dict[str, Any]:
    """:func:`memory`'s fields, by name in declared order."""
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
        said_at,
        time_fold,
        said_at_fold,
    ) = row
    if decoded is None:
        decoded = [codec.json(participants), codec.json(keywords), codec.json(sources), codec.json(data)]
    return {
        "id": id_,
        "scope": _scope(agent, scope),
        "kind": KINDS[kind],
        "text": text,
        "time": folded(codec.time(when), time_fold),
        "place": place,
        "participants": decoded[0],
        "keywords": decoded[1],
        "insight": insight,
        "importance": float(importance),
        "strength": float(strength),
        "access_count": int(access_count),
        "last_access": codec.time(last_access),
        "created_at": codec.time(created_at),
        "sources": decoded[2],
        "data": decoded[3],
        "feedback": float(feedback),
        "valid_to": codec.time(valid_to),
        "said_at": folded(codec.time(said_at), said_at_fold),
    }


KINDS = {kind.value: kind for kind in MemoryKind}


def _shared(value: Any) -> Any:
    return intern(value) if type(value) is str else value


def rank_rows(found: Sequence[Row], codec: Codec) -> list[RankRow]:
    """What ranking reads of each memory, from ``id, scope, kind, time, participants, sources``, then
    ``data``'s space and seq, then ``text, importance`` and ``data``'s subject and about, then ``valid_to``
    (each backend extracts ``data``'s fields in SQL, so ``data`` is never decoded; SQLite's about comes as
    JSON)."""
    found = list(found)
    if codec is TEXT:  # one JSON document for every row's lists: a hundred small parses cost more
        lists = json.loads("[" + ",".join(f"{row[4]},{row[5]},{row[11]}" for row in found) + "]") if found else []
    else:
        lists = [value for row in found for value in (row[4], row[5], row[11])]
    return [
        RankRow(
            row[0],
            _shared(row[1]),
            KINDS[row[2]],
            codec.time(row[3]),
            tuple(map(_shared, lists[3 * i])),
            tuple(lists[3 * i + 1]),
            intern(str(row[6])),
            row[7] if isinstance(row[7], int) else None,  # a seq stored as anything else is no place in a chat
            row[8],
            float(row[9]),
            row[10] if isinstance(row[10], str) and row[10] else None,
            lists[3 * i + 2],
            codec.time(row[12]),
        )
        for i, row in enumerate(found)
    ]


def entity(row: Row, codec: Codec) -> Entity:
    """An entity from the first columns of a row, ``ENTITY_COLUMNS``."""
    id_, agent, scope, name, type_, aliases, sources, merged_into = row[:8]
    fields = {"id": id_, "scope": Scope.from_tag(agent, scope), "name": name, "type": EntityType(type_)}
    fields |= {"aliases": codec.json(aliases), "sources": codec.json(sources), "merged_into": merged_into}
    return trusted(Entity, fields)  # checked when stored, as persons and messages are


def merge(row: Row, codec: Codec) -> EntityMerge:
    """A merge from the first columns of a row, ``MERGE_COLUMNS``."""
    id_, agent, source, target, reason, at, undone = row[:7]
    return EntityMerge(
        id=id_, agent=agent, source=source, target=target, reason=reason, at=codec.time(at), undone=bool(undone)
    )


def scope_stats(messages: Sequence[Row], memories: Sequence[Row], codec: Codec) -> list[ScopeStats]:
    """Scopes from ``agent, scope, count, last time`` rows of messages and of memories, merged and sorted.

    A message's time is wall-clock and a memory's ``created_at`` UTC, so each stays in its own field."""
    found: dict[tuple[str, str], ScopeStats] = {}
    for source, counted in ((messages, "messages"), (memories, "memories")):
        for agent, scope, count, last in source:
            old = found.get((agent, scope)) or ScopeStats(agent=agent, scope=scope)
            if counted == "messages":
                found[agent, scope] = replace(old, messages=int(count), last_activity=codec.time(last))
            else:
                found[agent, scope] = replace(old, memories=int(count), last_written=codec.time(last))
    return sorted(found.values(), key=lambda s: (s.agent, s.scope != "official", s.scope))


def report(row: Row, codec: Codec) -> RunReport:
    """A maintenance report from the columns ``REPORT_COLUMNS``."""
    id_, agent, scope, kind, at, dry_run, counts, body = row[:8]
    return RunReport(
        id=id_,
        agent=agent,
        scope=scope,
        kind=kind,
        at=codec.time(at) or datetime.min,
        dry_run=bool(dry_run),
        counts=codec.json(counts),
        body=codec.json(body),
    )


def id_taken(message: Message) -> str:
    """Why a message whose id another conversation of its agent already holds is refused."""
    return (
        f"message id {message.id!r} is already used in another conversation of agent {message.agent!r}; "
        "message ids are unique per agent (prefix a platform's per-chat ids with the chat's)"
    )


def aliases_after_undo(target: Entity, before: Sequence[str], gone: Entity, staying: Sequence[Entity]) -> list[str]:
    """The target's aliases once the merge of ``gone`` into it is undone: the names that merge added go,
    unless an entity still merged into it (``staying``) brings them too; names given since stay.

    Restoring the snapshot taken at the merge instead dropped the names of every later merge into the
    same target (小霓 merged after 霓霓: undoing 霓霓 made 小霓 a name of nobody).
    """
    kept = set(before)
    for other in staying:
        kept.update(other.names)
    added = {name for name in gone.names if name not in kept and name != target.name}
    return [name for name in target.aliases if name not in added]


def with_names(stored: Entity, given: Entity) -> Entity:
    """``stored`` with the aliases and sources ``given`` adds (its last 50 sources): its name, type and
    merge stay. ``add_entity_names`` does this inside its write, so no name given meanwhile is lost."""
    return stored.model_copy(
        update={
            "aliases": list(dict.fromkeys([*stored.aliases, *given.aliases])),
            "sources": list(dict.fromkeys([*stored.sources, *given.sources]))[-50:],
        }
    )


def edited(stored: Entity, edit: EntityEdit) -> Entity:
    """``stored`` with a correction by hand, applied to it as it is now (see ``EntityEdit``): the aliases
    the editor added or kept in the editor's order, then those another writer gave since the read. One
    merged away since the read is refused: its names are its target's now."""
    if stored.merged_into:
        raise InvalidInput(f"entity {stored.id!r} is merged into {stored.merged_into!r}: undo the merge to edit it")
    name = edit.name if edit.name is not None else stored.name
    aliases = stored.aliases
    if edit.aliases is not None:
        wanted, read, now = set(edit.aliases), set(edit.aliases_read), set(stored.aliases)
        aliases = [
            *(a for a in edit.aliases if a in now or a not in read),
            *(a for a in stored.aliases if a not in wanted and a not in read),
        ]
    return stored.model_copy(
        update={
            "name": name,
            "type": edit.type if edit.type is not None else stored.type,
            "aliases": [a for a in dict.fromkeys(aliases) if a != name],
        }
    )
