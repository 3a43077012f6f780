"""The embedded store's memories: a unit of work written in one transaction, and memories read and changed.

A memory is three rows sharing one rowid: ``memories``, its vector in ``memory_vectors`` and its terms
in the FTS5 table ``memory_fts`` (each token prefixed with its partition's code, see ``fts``). Each
write bumps the version of the partitions it touched and tells the in-process vector cache what
changed, so the cache never serves a stale partition.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from huiyi.errors import StoreError
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.store import rows
from huiyi.store.base import MemoryFilter, RankRow, Writes
from huiyi.store.jsontext import json_text
from huiyi.store.madefrom import left_unindexed
from huiyi.store.pages import ListMark, Marked, list_key, list_order, marked
from huiyi.store.rankcache import R, RankCache
from huiyi.store.rows import MEMORY_COLUMNS, TEXT, fold_of, partition_keys, to_epoch
from huiyi.store.sqlite.connection import SQLiteConnection, chunks, marks
from huiyi.store.sqlite.fts import count_row_tokens, merge_pages, merge_step, scope_code, scoped
from huiyi.store.sqlite.gone import erased, unmade_ids
from huiyi.store.sqlite.graph import add_names, drop_aliases
from huiyi.store.sqlite.jobs import record_folded
from huiyi.store.sqlite.partitions import bump_version, count_in, ensure_partition
from huiyi.store.vectors import places_of
from huiyi.store.writing import AddsByApply, check_updatable, checked_vectors

_LIST_KEY = list_key("huiyi_wall(created_at)")  # the connection's function: created_at on the zone's clock

# ``MEMORY_COLUMNS`` of ``memories m``, for a statement that joins another table
_JOINED_COLUMNS = ", ".join(f"m.{name.strip()}" for name in MEMORY_COLUMNS.split(","))


class SQLiteMemories(AddsByApply, SQLiteConnection):
    """``MemoryStore`` on SQLite."""

    def apply(self, writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
        items, terms = writes.memories, writes.terms
        vectors, entity_vectors = checked_vectors(writes)
        own = writes.own_vectors
        now = to_epoch(self.clock())
        added: dict[str, tuple[int, list[int], list[int]]] = {}  # part -> (old version, rowids, item index)
        tokens: dict[str, int] = {}  # part -> its new rows' tokens, for its counters
        with self._write() as conn:
            if complete_job is not None:
                job_id, worker = complete_job
                done = conn.execute(
                    "UPDATE jobs SET state = 'done', lease_until = NULL,"
                    " last_error = COALESCE(NULLIF(?, ''), last_error)"
                    " WHERE id = ? AND state = 'running' AND worker = ?",
                    (writes.job_error, job_id, worker),
                )
                if not done.rowcount:
                    raise StoreError(f"job {job_id} is not running for {worker}: its lease may have expired")
                record_folded(conn, job_id)
            links, removed = _take_out(conn, writes.replaced)
            _, touched = _update_rows(conn, writes.updates)
            for entity, vector in zip(writes.entities, entity_vectors, strict=True):
                add_names(conn, entity, vector, now)
            for agent, entity_id, names in writes.dropped_aliases:
                drop_aliases(conn, agent, entity_id, names)
            # read in the write transaction, so an erasure is wholly before it or after it
            gone = erased(conn, writes.indexed_messages)
            unmade = unmade_ids(conn, items, writes.made_from) if writes.made_from is not None else set()
            for index, (item, term) in enumerate(zip(items, terms, strict=True)):
                if gone and not gone.isdisjoint(item.sources):
                    continue  # a chunk of a message erased while it was embedded (by another instance)
                if item.id in unmade:
                    continue  # a merge or summary of what an erasure took since it was read
                part = ensure_partition(conn, item.scope.agent, item.scope)
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO memories (id, agent, scope, part, kind, text, time, place, participants,"
                    " keywords, insight, importance, strength, access_count, last_access, created_at, sources, data,"
                    " feedback, valid_to, said_at, time_fold, said_at_fold)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    _memory_row(item, part, now),
                )
                if not cursor.rowcount:
                    continue  # already stored by an earlier run of the same work
                rowid = int(cursor.lastrowid or 0)
                # here, not by a trigger: a trigger gives the insert a statement savepoint, at which FTS5 writes
                # out its pending rows, a keyword segment per memory instead of one per transaction
                conn.executemany(
                    "INSERT OR IGNORE INTO memory_sources (agent, source, memory) VALUES (?, ?, ?)",
                    [(item.scope.agent, source, rowid) for source in item.sources],
                )
                conn.execute(
                    "INSERT INTO memory_vectors (rowid, part, vector) VALUES (?, ?, ?)",
                    (rowid, part, np.asarray(vectors[index], dtype=np.float16).tobytes()),
                )
                if own is not None:
                    conn.execute(
                        "INSERT INTO memory_own_vectors (rowid, vector) VALUES (?, ?)",
                        (rowid, np.asarray(own[index], dtype=np.float16).tobytes()),
                    )
                code = scope_code(part)
                conn.execute(
                    "INSERT INTO memory_fts (rowid, part, words, chars) VALUES (?, ?, ?, ?)",
                    (rowid, part, scoped(code, " ".join(term.words)), scoped(code, " ".join(term.chars))),
                )
                length = count_row_tokens(conn, rowid)
                conn.execute(
                    "INSERT INTO memory_fts_lengths (rowid, part, tokens) VALUES (?, ?, ?)", (rowid, part, length)
                )
                tokens[part] = tokens.get(part, 0) + length
                entry = added.setdefault(part, (0, [], []))
                entry[1].append(rowid)
                entry[2].append(index)
            for part, (_, rowids, indexes) in list(added.items()):
                added[part] = (bump_version(conn, part), rowids, indexes)
                count_in(conn, part, len(indexes), tokens[part])
            if added or removed:
                merge_step(conn, merge_pages(sum(len(entry[2]) for entry in added.values())))
            again = left_unindexed(items, unmade, writes.indexed_messages)  # made of turns erased since read
            for agent, message_id in writes.indexed_messages:
                marked = "claimed_by = '', claim_until = NULL" if (agent, message_id) in again else "indexed = 1"
                conn.execute(f"UPDATE messages SET {marked} WHERE agent = ? AND id = ?", (agent, message_id))
            for agent, space, start_seq in writes.fold_points:
                conn.execute(
                    "INSERT INTO working_memory (agent, space, start_seq) VALUES (?, ?, ?) "
                    "ON CONFLICT (agent, space) DO UPDATE SET start_seq = MAX(start_seq, excluded.start_seq)",
                    (agent, space, start_seq),
                )
            conn.executemany(
                "INSERT OR IGNORE INTO links (agent, source, target, kind, weight) VALUES (?, ?, ?, ?, ?)", links
            )
        self._uncache(removed)  # first: the versions the rows added were cached at follow the removal's
        for part, old in touched.items():
            self._vectors.touched(part, old)
        for part, (old, rowids, indexes) in added.items():
            matrix = np.asarray(vectors[indexes], dtype=np.float16).astype(np.float32)
            chosen = [items[i] for i in indexes]
            self._vectors.added(part, old, rowids, matrix, places_of(chosen), [item.id for item in chosen])

    def _cached(self, cache: RankCache[R], agent: str, ids: Sequence[str]) -> tuple[dict[str, R], list[str]]:
        """The rows ``cache`` holds of ``ids`` whose partition's version in the database is still theirs,
        and the ids to read."""
        known = cache.parts_of(agent, ids)
        versions = {part: row[0] for part, row in self._part_rows(sorted(known)).items()} if known else {}
        return cache.get(agent, ids, versions)

    def get_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        found: dict[str, MemoryItem] = {}
        for chunk in chunks(ids, 500):
            cursor = self._conn().execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE agent = ? AND id IN ({marks(len(chunk))})",
                (agent, *chunk),
            )
            found.update((item.id, item) for item in rows.memories(cursor.fetchall(), TEXT))
        return [found[i] for i in ids if i in found]

    def taken_ids(self, agent: str, ids: Sequence[str], entities: bool = False) -> list[str]:
        table = "entities" if entities else "memories"
        found: set[str] = set()
        for chunk in chunks(ids, 500):
            sql = f"SELECT id FROM {table} WHERE agent <> ? AND id IN ({marks(len(chunk))})"
            found.update(str(row[0]) for row in self._conn().execute(sql, (agent, *chunk)))
        return [i for i in dict.fromkeys(ids) if i in found]

    def recall_memories(self, agent: str, ids: Sequence[str]) -> list[MemoryItem]:
        # rows read before serve while their partition's version is unchanged (store.rankcache); only
        # record_access writes without a new version, and a hit shows none of what it changes
        found, missing = self._cached(self._hit_rows, agent, ids)
        for chunk in chunks(missing, 500):
            cursor = self._conn().execute(
                f"SELECT {_JOINED_COLUMNS}, m.part, p.version FROM memories m LEFT JOIN partitions p ON p.part = m.part"
                f" WHERE m.agent = ? AND m.id IN ({marks(len(chunk))})",
                (agent, *chunk),
            )
            read = [(rows.kept(raw[:-2]), raw[-2], raw[-1]) for raw in cursor.fetchall()]
            found.update((row[0]["id"], row) for row, _, _ in read)
            self._hit_rows.put(agent, [(part, int(version), row) for row, part, version in read if version is not None])
        # their JSON decoded anew on each call: a caller may change a hit's data or sources, never the cache
        return rows.from_kept([found[i] for i in ids if i in found])

    def rank_rows(self, agent: str, ids: Sequence[str], keys: Sequence[int] = ()) -> list[RankRow]:
        # rows read before serve while their partition's version in the database is unchanged (store.rankcache)
        found, missing = self._cached(self._ranks, agent, ids)
        wanted = set(missing)
        # by the routes' rowids, one seek each where by id it was two (a row comes back under its own id,
        # whatever it was asked for under), then by id what they did not give
        rowids = [key for i, key in zip(ids, keys, strict=False) if key > 0 and i in wanted]
        for chunk in chunks(rowids, 500):
            self._read_ranks(agent, "m.rowid", chunk, found)
        for left in chunks([i for i in missing if i not in found], 500):
            self._read_ranks(agent, "m.id", left, found)
        return [found[i] for i in ids if i in found]

    def _read_ranks(self, agent: str, column: str, values: Sequence[object], found: dict[str, RankRow]) -> None:
        """The rank rows whose ``column`` is among ``values`` into ``found`` and the rank cache."""
        # one statement: each row's partition version is read in the same snapshot as the row
        cursor = self._conn().execute(
            "SELECT m.id, m.scope, m.kind, m.time, m.participants, m.sources, json_extract(m.data, '$.space'),"
            " json_extract(m.data, '$.seq'), m.text, m.importance, json_extract(m.data, '$.subject'),"
            # as JSON text whatever it holds (json_quote leaves what a JSON function returned as it is)
            " json_quote(json_extract(m.data, '$.about')), m.valid_to, m.part, p.version"
            " FROM memories m LEFT JOIN partitions p ON p.part = m.part"
            f" WHERE m.agent = ? AND {column} IN ({marks(len(values))})",
            (agent, *values),
        )
        read = cursor.fetchall()
        ranked = rows.rank_rows(read, TEXT)
        found.update((row.id, row) for row in ranked)
        self._ranks.put(
            agent, [(raw[13], int(raw[14]), row) for raw, row in zip(read, ranked, strict=True) if raw[14] is not None]
        )

    def delete_memories(self, agent: str, ids: Sequence[str]) -> int:
        with self._write() as conn:
            removed = delete_memory_rows(conn, agent, ids)
            if removed:
                merge_step(conn)
        return self._uncache(removed)

    def _uncache(self, removed: dict[str, tuple[int, list[int]]]) -> int:
        """Tell the vector cache which rows went (after their transaction committed); how many."""
        for part, (old, rowids) in removed.items():
            self._vectors.removed(part, old, rowids)
        self._ranks.forget(removed)  # an emptied partition may go (drop_partition)
        self._hit_rows.forget(removed)
        self._postings.forget(removed)
        if removed:
            self._own.clear()
        return sum(len(rowids) for _, rowids in removed.values())

    def count_memories(self, agent: str | None = None, scopes: Sequence[Scope] | None = None) -> int:
        if scopes is not None:
            parts = partition_keys(scopes)
            if not parts:
                return 0
            row = (
                self._conn()
                .execute(f"SELECT COUNT(*) FROM memories WHERE part IN ({marks(len(parts))})", parts)
                .fetchone()
            )
        elif agent is not None:
            row = self._conn().execute("SELECT COUNT(*) FROM memories WHERE agent = ?", (agent,)).fetchone()
        else:
            row = self._conn().execute("SELECT COUNT(*) FROM memories").fetchone()
        return int(row[0])

    def list_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None = None, limit: int = 100, offset: int = 0
    ) -> list[MemoryItem]:
        return rows.memories(self._listed(scopes, kinds, limit, offset, None), TEXT)

    def page_memories(
        self, scopes: Sequence[Scope], kinds: Sequence[MemoryKind] | None, limit: int, after: ListMark | None
    ) -> list[Marked]:
        found = self._listed(scopes, kinds, limit, 0, after)
        return marked(found, rows.memories(found, TEXT), self.zone)

    def _listed(
        self,
        scopes: Sequence[Scope],
        kinds: Sequence[MemoryKind] | None,
        limit: int,
        offset: int,
        after: ListMark | None,
    ) -> list[Any]:
        parts = partition_keys(scopes)
        if not parts:
            return []
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE part IN ({marks(len(parts))})"
        args: list[Any] = list(parts)
        if kinds:
            sql += f" AND kind IN ({marks(len(kinds))})"
            args.extend(k.value for k in kinds)
        if after is not None:  # the key as stored: to_epoch gives back the very float it was written as
            sql += f" AND ({_LIST_KEY}, rowid) < (?, ?)"
            args.extend([to_epoch(after.key), after.row])
        sql += f" ORDER BY {list_order(_LIST_KEY)} LIMIT ? OFFSET ?"
        args.extend([limit, offset])
        return self._conn().execute(sql, args).fetchall()

    def find_memories(self, scopes: Sequence[Scope], where: MemoryFilter, limit: int = 100) -> list[MemoryItem]:
        parts = partition_keys(scopes)
        if not parts:
            return []
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE part IN ({marks(len(parts))})"
        args: list[Any] = list(parts)
        if where.kinds:
            # kinds as literals (enum values) and one kind as ``kind = 'fact'``: the partial index of
            # migration 12 serves only a query that says its condition so
            literals = [f"'{k.value}'" for k in where.kinds]
            sql += f" AND kind = {literals[0]}" if len(literals) == 1 else f" AND kind IN ({', '.join(literals)})"
        if where.said_by is not None:
            sql += f" AND {_LIST_KEY} <= ?"
            args.append(to_epoch(where.said_by))
        if where.open_at is not None:
            sql += " AND (valid_to IS NULL OR valid_to > ?)"
            args.append(to_epoch(where.open_at))
        if where.subject is not None:
            sql += " AND json_extract(data, '$.subject') = ?"
            args.append(where.subject)
        if where.predicates:
            sql += f" AND json_extract(data, '$.predicate') IN ({marks(len(where.predicates))})"
            args.extend(where.predicates)
        if where.keywords:
            sql += (
                f" AND (json_extract(data, '$.keyword') IN ({marks(len(where.keywords))}) OR EXISTS"
                f" (SELECT 1 FROM json_each(memories.keywords) k WHERE k.value IN ({marks(len(where.keywords))})))"
            )
            args.extend([*where.keywords, *where.keywords])
        if where.text is not None:
            sql += " AND text = ?"
            args.append(where.text)
        sql += f" ORDER BY {list_order(_LIST_KEY)} LIMIT ?"
        args.append(limit)
        return [rows.memory(row, TEXT) for row in self._conn().execute(sql, args)]

    def record_access(
        self, agent: str, ids: Sequence[str], when: datetime, strength_bonus: float = 0.0, times: int = 1
    ) -> None:
        times = rows.recall_count(times)
        if not ids:
            return
        with self._write() as conn:
            for chunk in chunks(ids, 500):
                conn.execute(
                    "UPDATE memories SET access_count = access_count + ?, last_access = ?, strength = strength + ?"
                    f" WHERE agent = ? AND id IN ({marks(len(chunk))})",
                    (times, to_epoch(when), strength_bonus * times, agent, *chunk),
                )

    def update_memories(self, agent: str, changes: Sequence[tuple[str, dict[str, Any]]]) -> int:
        check_updatable(changes)
        with self._write() as conn:
            changed, bumped = _update_rows(conn, [(agent, memory_id, fields) for memory_id, fields in changes])
        for part, old in bumped.items():
            self._vectors.touched(part, old)
        return changed

    def add_feedback(self, agent: str, memory_id: str, value: float) -> float | None:
        with self._write() as conn:
            row = conn.execute(
                "UPDATE memories SET feedback = MIN(1.0, MAX(-1.0, feedback + ?)) WHERE agent = ? AND id = ?"
                " RETURNING feedback, part",
                (value, agent, memory_id),
            ).fetchone()
            bumped = {str(row[1]): bump_version(conn, str(row[1]))} if row is not None else {}
        for part, old in bumped.items():
            self._vectors.touched(part, old)
        return None if row is None else float(row[0])


def _update_rows(
    conn: sqlite3.Connection, changes: Sequence[tuple[str, str, dict[str, Any]]]
) -> tuple[int, dict[str, int]]:
    """(agent, id, fields) updated in the caller's transaction: how many rows, and part -> its version
    before, for the vector cache once committed."""
    changed = 0
    touched: set[str] = set()
    for agent, memory_id, fields in changes:
        if not fields:
            continue
        values = [_column_value(name, value) for name, value in fields.items()]
        # names come from UPDATABLE only, so they are safe inside the statement
        assignments = ", ".join(f"{name} = ?" for name in fields)
        sql = f"UPDATE memories SET {assignments} WHERE agent = ? AND id = ?"
        cursor = conn.execute(sql, (*values, agent, memory_id))
        if cursor.rowcount:
            changed += cursor.rowcount
            where = conn.execute("SELECT part FROM memories WHERE agent = ? AND id = ?", (agent, memory_id))
            touched.update(str(part) for (part,) in where)
    # the rank rows cached of these partitions, in any process, are stale now (store.rankcache)
    return changed, {part: bump_version(conn, part) for part in touched}


def delete_memory_rows(conn: sqlite3.Connection, agent: str, ids: Sequence[str]) -> dict[str, tuple[int, list[int]]]:
    """Delete memories with their vectors, keyword rows and links, inside the caller's transaction.

    Returns part -> (its version before, rowids removed), for the vector cache once committed.
    """
    removed: dict[str, tuple[int, list[int]]] = {}
    tokens: dict[str, int] = {}  # part -> its rows' tokens, for its counters
    for chunk in chunks(ids, 500):
        chunk_marks = marks(len(chunk))
        found = conn.execute(
            "SELECT m.rowid, m.part, COALESCE(l.tokens, 0) FROM memories m LEFT JOIN memory_fts_lengths l"
            f" ON l.rowid = m.rowid WHERE m.agent = ? AND m.id IN ({chunk_marks})",
            (agent, *chunk),
        ).fetchall()
        # a forgotten memory takes its links with it
        conn.execute(
            f"DELETE FROM links WHERE agent = ? AND (source IN ({chunk_marks}) OR target IN ({chunk_marks}))",
            (agent, *chunk, *chunk),
        )
        for rowid, part, length in found:
            removed.setdefault(part, (0, []))[1].append(rowid)
            tokens[part] = tokens.get(part, 0) + length
            conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM memory_fts_lengths WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM memory_vectors WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM memory_own_vectors WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
    for part, (_, rowids) in list(removed.items()):
        removed[part] = (bump_version(conn, part), rowids)
        count_in(conn, part, -len(rowids), -tokens[part])
    return removed


def _column_value(name: str, value: Any) -> Any:
    """A field's value as its column stores it."""
    if name in {"valid_to", "last_access", "created_at"}:
        return to_epoch(value)
    if name in {"keywords", "data"}:
        return json_text(value)
    return value


def _memory_row(item: MemoryItem, part: str, now: float | None) -> tuple[Any, ...]:
    return (
        item.id,
        item.scope.agent,
        item.scope.tag,
        part,
        item.kind.value,
        item.text,
        to_epoch(item.time),
        item.place,
        json_text(item.participants),
        json_text(item.keywords),
        item.insight,
        item.importance,
        item.strength,
        item.access_count,
        to_epoch(item.last_access),
        to_epoch(item.created_at) or now,
        json_text(item.sources),
        json_text(item.data),
        item.feedback,
        to_epoch(item.valid_to),
        to_epoch(item.said_at),
        fold_of(item.time),
        fold_of(item.said_at),
    )


def _take_out(conn: sqlite3.Connection, memories: Sequence[tuple[str, str]]) -> tuple[list[Any], dict[str, Any]]:
    """Delete these (agent, id) memories in the caller's transaction: their links (to add back once the
    memories are written again) and what ``delete_memory_rows`` returns."""
    links: list[Any] = []
    removed: dict[str, Any] = {}
    by_agent: dict[str, list[str]] = {}
    for agent, memory_id in memories:
        by_agent.setdefault(agent, []).append(memory_id)
        links += conn.execute(
            "SELECT agent, source, target, kind, weight FROM links WHERE agent = ? AND (source = ? OR target = ?)",
            (agent, memory_id, memory_id),
        ).fetchall()
    for agent, ids in by_agent.items():  # one delete per agent: each partition's version bumped once
        removed.update(delete_memory_rows(conn, agent, ids))
    return links, removed
