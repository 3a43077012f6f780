"""The embedded store's graph: entities (with their vectors for merge candidates), merges, and links."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from huiyi.errors import InvalidInput, StoreError
from huiyi.model import Entity, EntityMerge, Link, LinkKind, Scope
from huiyi.store import rows
from huiyi.store.base import Vectors
from huiyi.store.graph import EntityEdit
from huiyi.store.jsontext import json_text
from huiyi.store.pages import EntityMarked
from huiyi.store.rows import (
    ENTITIES_EPOCH,
    ENTITY_COLUMNS,
    MERGE_COLUMNS,
    TEXT,
    entities_version,
    partition_keys,
    to_epoch,
)
from huiyi.store.sqlite.connection import SQLiteConnection, chunks, marks
from huiyi.store.sqlite.partitions import ensure_partition


class SQLiteGraph(SQLiteConnection):
    """``GraphStore`` on SQLite; similar entities are found with numpy over the scopes' entity vectors."""

    def upsert_entity(self, entity: Entity, vector: Vectors) -> Entity:
        with self._write() as conn:
            _put(conn, entity, vector, to_epoch(self.clock()))
        return entity

    def add_entity_names(self, entity: Entity, vector: Vectors) -> Entity:
        with self._write() as conn:  # read and written under the write lock: no name given meanwhile is lost
            return add_names(conn, entity, vector, to_epoch(self.clock()))

    def drop_entity_aliases(self, agent: str, entity_id: str, names: Sequence[str]) -> Entity | None:
        with self._write() as conn:
            return drop_aliases(conn, agent, entity_id, names)

    def edit_entity(self, agent: str, entity_id: str, edit: EntityEdit, vector: Vectors | None) -> Entity | None:
        with self._write() as conn:  # read and written under the write lock: no name given meanwhile is lost
            row = conn.execute(
                f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = ? AND id = ?", (agent, entity_id)
            ).fetchone()
            if row is None:
                return None
            entity = rows.edited(rows.entity(row, TEXT), edit)
            conn.execute(
                "UPDATE entities SET name = ?, type = ?, aliases = ?, vector = COALESCE(?, vector) WHERE id = ?",
                (entity.name, entity.type.value, json_text(entity.aliases), _blob(vector), entity_id),
            )
        return entity

    def list_entities(self, scopes: Sequence[Scope], include_merged: bool = False) -> list[Entity]:
        return [entity for entity, _ in self.page_entities(scopes, include_merged, -1, None)]

    def entities_version(self, scopes: Sequence[Scope]) -> int:
        parts = partition_keys(scopes)
        if not parts:
            return 0
        sql = (
            f"SELECT ({ENTITIES_EPOCH}), COALESCE(SUM(version), 0) FROM entity_versions"
            f" WHERE part IN ({marks(len(parts))})"
        )
        epoch, total = self._conn().execute(sql, parts).fetchone()
        return entities_version(int(epoch), int(total))

    def page_entities(
        self, scopes: Sequence[Scope], include_merged: bool, limit: int, after: int | None
    ) -> list[EntityMarked]:
        parts = partition_keys(scopes)
        if not parts:
            return []
        sql = f"SELECT {ENTITY_COLUMNS}, rowid FROM entities WHERE part IN ({marks(len(parts))})"
        if not include_merged:
            sql += " AND merged_into IS NULL"
        found = self._conn().execute(sql + " AND rowid > ? ORDER BY rowid LIMIT ?", (*parts, after or 0, limit))
        return [(rows.entity(row, TEXT), int(row[-1])) for row in found]

    def similar_entities(self, scopes: Sequence[Scope], vector: Vectors, limit: int) -> list[tuple[Entity, float]]:
        parts = partition_keys(scopes)
        if not parts:
            return []
        found = (
            self._conn()
            .execute(
                f"SELECT {ENTITY_COLUMNS}, vector FROM entities"
                f" WHERE part IN ({marks(len(parts))}) AND merged_into IS NULL",
                parts,
            )
            .fetchall()
        )
        if not found:
            return []
        matrix = np.frombuffer(b"".join(r[-1] for r in found), dtype=np.float16).reshape(len(found), -1)
        scores = matrix.astype(np.float32) @ np.asarray(vector, dtype=np.float32).reshape(-1)
        order = np.argsort(-scores, kind="stable")[:limit]
        return [(rows.entity(found[i], TEXT), float(scores[i])) for i in order]

    def merge_entities(self, agent: str, source: str, target: str, reason: str, when: datetime) -> EntityMerge:
        if source == target:
            raise StoreError("an entity cannot be merged into itself")
        with self._write() as conn:
            found = {
                row[0]: rows.entity(row, TEXT)
                for row in conn.execute(
                    f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = ? AND id IN (?, ?) AND merged_into IS NULL",
                    (agent, source, target),
                )
            }
            if len(found) != 2:
                raise StoreError(f"cannot merge {source} into {target}: both must exist and not be merged already")
            kept, gone = found[target], found[source]
            if kept.scope != gone.scope:  # a merge gives the target the source's names: never across scopes
                raise InvalidInput(f"cannot merge {source} into {target}: they belong to different scopes")
            aliases = list(dict.fromkeys([*kept.aliases, *(n for n in gone.names if n != kept.name)]))
            conn.execute("UPDATE entities SET aliases = ? WHERE id = ?", (json_text(aliases), target))
            conn.execute("UPDATE entities SET merged_into = ? WHERE id = ?", (target, source))
            merge = EntityMerge(agent=agent, source=source, target=target, reason=reason, at=when)
            conn.execute(
                "INSERT INTO entity_merges (id, agent, source, target, reason, at, target_aliases)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (merge.id, agent, source, target, reason, to_epoch(when), json_text(kept.aliases)),
            )
        return merge

    def undo_merge(self, agent: str, merge_id: str) -> EntityMerge:
        with self._write() as conn:
            row = conn.execute(
                f"SELECT {MERGE_COLUMNS}, target_aliases FROM entity_merges WHERE agent = ? AND id = ?",
                (agent, merge_id),
            ).fetchone()
            if row is None or row[6]:
                raise StoreError(f"no merge {merge_id} to undo for agent {agent}")
            sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = ? AND (id IN (?, ?) OR merged_into = ?)"
            found = [rows.entity(r, TEXT) for r in conn.execute(sql, (agent, row[2], row[3], row[3]))]
            by_id = {e.id: e for e in found}
            if row[2] in by_id and row[3] in by_id:
                staying = [e for e in found if e.merged_into == row[3] and e.id != row[2]]
                before = TEXT.json(row[7]) if row[7] else []
                aliases = rows.aliases_after_undo(by_id[row[3]], before, by_id[row[2]], staying)
                conn.execute("UPDATE entities SET aliases = ? WHERE id = ?", (json_text(aliases), row[3]))
            conn.execute("UPDATE entities SET merged_into = NULL WHERE id = ?", (row[2],))
            conn.execute("UPDATE entity_merges SET undone = 1 WHERE id = ?", (merge_id,))
        return rows.merge(row, TEXT).model_copy(update={"undone": True})

    def list_merges(self, agent: str) -> list[EntityMerge]:
        found = self._conn().execute(
            f"SELECT {MERGE_COLUMNS} FROM entity_merges WHERE agent = ? ORDER BY at, id", (agent,)
        )
        return [rows.merge(row, TEXT) for row in found]

    def get_entities(self, agent: str, ids: Sequence[str]) -> list[Entity]:
        found: dict[str, Entity] = {}
        for chunk in chunks(ids, 400):
            sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = ? AND id IN ({marks(len(chunk))})"
            found.update((row[0], rows.entity(row, TEXT)) for row in self._conn().execute(sql, (agent, *chunk)))
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def delete_entities(self, agent: str, ids: Sequence[str]) -> int:
        deleted = 0
        with self._write() as conn:
            for chunk in chunks(ids, 400):
                m = marks(len(chunk))
                conn.execute(
                    f"DELETE FROM entity_merges WHERE agent = ? AND (source IN ({m}) OR target IN ({m}))",
                    (agent, *chunk, *chunk),
                )
                deleted += conn.execute(
                    f"DELETE FROM entities WHERE agent = ? AND id IN ({m})", (agent, *chunk)
                ).rowcount
        return deleted

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
        for chunk in chunks(ids, 400):
            chunk_marks = marks(len(chunk))
            found = self._conn().execute(
                f"SELECT source, target, kind, weight FROM links WHERE agent = ? AND (source IN ({chunk_marks})"
                f" OR target IN ({chunk_marks}))",
                (agent, *chunk, *chunk),
            )
            out.extend(Link(source=r[0], target=r[1], kind=LinkKind(r[2]), weight=r[3]) for r in found)
        return list({(link.source, link.target, link.kind): link for link in out}.values())


def add_names(conn: sqlite3.Connection, entity: Entity, vector: Vectors, now: float | None) -> Entity:
    """``add_entity_names`` in the caller's write transaction; the entity as stored."""
    row = conn.execute(f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id = ?", (entity.id,)).fetchone()
    stored = rows.entity(row, TEXT) if row is not None else None
    if stored is not None and stored.scope == entity.scope:
        entity = rows.with_names(stored, entity)
    _put(conn, entity, vector, now)
    return entity


def drop_aliases(conn: sqlite3.Connection, agent: str, entity_id: str, names: Sequence[str]) -> Entity | None:
    """``drop_entity_aliases`` in the caller's write transaction."""
    sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = ? AND id = ?"
    row = conn.execute(sql, (agent, entity_id)).fetchone()
    if row is None:
        return None
    entity, dropped = rows.entity(row, TEXT), set(names)
    kept = [a for a in entity.aliases if a not in dropped]
    if kept != entity.aliases:
        conn.execute("UPDATE entities SET aliases = ? WHERE id = ?", (json_text(kept), entity_id))
    return entity.model_copy(update={"aliases": kept})


def _put(conn: sqlite3.Connection, entity: Entity, vector: Vectors, now: float | None) -> None:
    """Insert the entity, or replace its name, type, aliases, sources and vector (same scope only)."""
    blob = _blob(vector)
    part = ensure_partition(conn, entity.scope.agent, entity.scope)
    written = conn.execute(
        "INSERT INTO entities (id, agent, scope, part, name, type, aliases, sources, merged_into, vector,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
        " name = excluded.name, type = excluded.type, aliases = excluded.aliases,"
        " sources = excluded.sources, vector = excluded.vector"
        # an id another scope holds is not this entity: never rename it nor move names across scopes
        " WHERE entities.agent = excluded.agent AND entities.scope = excluded.scope",
        (
            entity.id,
            entity.scope.agent,
            entity.scope.tag,
            part,
            entity.name,
            entity.type.value,
            json_text(entity.aliases),
            json_text(entity.sources),
            entity.merged_into,
            blob,
            now,
        ),
    ).rowcount
    if not written:
        raise InvalidInput(f"entity id {entity.id!r} is held by another scope or agent")


def _blob(vector: Vectors | None) -> bytes | None:
    """An entity's vector as stored: half floats."""
    return None if vector is None else np.asarray(vector, dtype=np.float16).reshape(-1).tobytes()
