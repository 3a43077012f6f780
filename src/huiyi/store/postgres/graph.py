"""The server store's graph: entities (with ``halfvec`` vectors for merge candidates), merges, and links."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from huiyi.errors import InvalidInput, StoreError
from huiyi.model import Entity, EntityMerge, Link, LinkKind, Scope
from huiyi.store import rows
from huiyi.store.base import Vectors
from huiyi.store.graph import EntityEdit
from huiyi.store.jsontext import json_text
from huiyi.store.pages import EntityMarked
from huiyi.store.postgres.connection import Cursor, PostgresConnection
from huiyi.store.postgres.search_sql import score, vector_literal
from huiyi.store.rows import (
    ENTITIES_EPOCH,
    ENTITY_COLUMNS,
    MERGE_COLUMNS,
    NATIVE,
    entities_version,
    naive,
    partition_key,
    partition_keys,
)

_REPLACE = (
    "DO UPDATE SET name = excluded.name, type = excluded.type, aliases = excluded.aliases,"
    " sources = excluded.sources, vector = excluded.vector"
    # an id another scope holds is not this entity: never rename it nor move names across scopes
    " WHERE entities.agent = excluded.agent AND entities.scope = excluded.scope"
)


# the epoch and the sum of the partitions' versions (rows.entities_version makes the version of them)
ENTITIES_VERSION = f"SELECT ({ENTITIES_EPOCH}), COALESCE(SUM(version), 0) FROM entity_versions WHERE part = ANY(%s)"


class PostgresGraph(PostgresConnection):
    """``GraphStore`` on PostgreSQL; similar entities are an exact cosine scan of the scopes in SQL."""

    def upsert_entity(self, entity: Entity, vector: Vectors) -> Entity:
        with self._write() as cur:
            put_entity(cur, entity, vector, _REPLACE, self.clock())
        return entity

    def add_entity_names(self, entity: Entity, vector: Vectors) -> Entity:
        with self._write() as cur:
            return add_names(cur, entity, vector, self.clock())

    def drop_entity_aliases(self, agent: str, entity_id: str, names: Sequence[str]) -> Entity | None:
        with self._write() as cur:
            return drop_aliases(cur, agent, entity_id, names)

    def edit_entity(self, agent: str, entity_id: str, edit: EntityEdit, vector: Vectors | None) -> Entity | None:
        with self._write() as cur:
            # the row is locked from this read to the write: no name given meanwhile is lost
            row = cur.execute(
                f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = %s AND id = %s FOR UPDATE", (agent, entity_id)
            ).fetchone()
            if row is None:
                return None
            entity = rows.edited(rows.entity(row, NATIVE), edit)
            cur.execute(
                "UPDATE entities SET name = %s, type = %s, aliases = %s,"
                " vector = COALESCE(%s::halfvec, vector) WHERE id = %s",
                (
                    entity.name,
                    entity.type.value,
                    json_text(entity.aliases),
                    None if vector is None else vector_literal(vector),
                    entity_id,
                ),
            )
        return entity

    def list_entities(self, scopes: Sequence[Scope], include_merged: bool = False) -> list[Entity]:
        return [entity for entity, _ in self._entities(scopes, include_merged, None, None)]

    def entities_version(self, scopes: Sequence[Scope]) -> int:
        found = self._rows(ENTITIES_VERSION, (partition_keys(scopes),))
        return entities_version(int(found[0][0]), int(found[0][1]))

    def page_entities(
        self, scopes: Sequence[Scope], include_merged: bool, limit: int, after: int | None
    ) -> list[EntityMarked]:
        return self._entities(scopes, include_merged, limit, after)

    def _entities(
        self, scopes: Sequence[Scope], include_merged: bool, limit: int | None, after: int | None
    ) -> list[EntityMarked]:
        sql = f"SELECT {ENTITY_COLUMNS}, rowid FROM entities WHERE part = ANY(%s) AND rowid > %s"
        if not include_merged:
            sql += " AND merged_into IS NULL"
        found = self._rows(sql + " ORDER BY rowid LIMIT %s", (partition_keys(scopes), after or 0, limit))
        return [(rows.entity(row, NATIVE), int(row[-1])) for row in found]

    def similar_entities(self, scopes: Sequence[Scope], vector: Vectors, limit: int) -> list[tuple[Entity, float]]:
        found = self._rows(
            f"SELECT {ENTITY_COLUMNS}, vector <=> %(q)s::halfvec AS distance FROM entities"
            " WHERE part = ANY(%(parts)s) AND merged_into IS NULL ORDER BY distance, rowid LIMIT %(limit)s",
            {"q": vector_literal(vector), "parts": partition_keys(scopes), "limit": limit},
        )
        return [(rows.entity(row, NATIVE), score(1.0 - row[-1])) for row in found]

    def merge_entities(self, agent: str, source: str, target: str, reason: str, when: datetime) -> EntityMerge:
        if source == target:
            raise StoreError("an entity cannot be merged into itself")
        with self._write() as cur:
            cur.execute(
                f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = %s AND id = ANY(%s)"
                " AND merged_into IS NULL ORDER BY id FOR UPDATE",
                (agent, [source, target]),
            )
            found = {row[0]: rows.entity(row, NATIVE) for row in cur.fetchall()}
            if len(found) != 2:
                raise StoreError(f"cannot merge {source} into {target}: both must exist and not be merged already")
            kept, gone = found[target], found[source]
            if kept.scope != gone.scope:  # a merge gives the target the source's names: never across scopes
                raise InvalidInput(f"cannot merge {source} into {target}: they belong to different scopes")
            aliases = list(dict.fromkeys([*kept.aliases, *(n for n in gone.names if n != kept.name)]))
            cur.execute("UPDATE entities SET aliases = %s WHERE id = %s", (json_text(aliases), target))
            cur.execute("UPDATE entities SET merged_into = %s WHERE id = %s", (target, source))
            merge = EntityMerge(agent=agent, source=source, target=target, reason=reason, at=naive(when))
            cur.execute(
                "INSERT INTO entity_merges (id, agent, source, target, reason, at, target_aliases)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (merge.id, agent, source, target, reason, merge.at, json_text(kept.aliases)),
            )
        return merge

    def undo_merge(self, agent: str, merge_id: str) -> EntityMerge:
        with self._write() as cur:
            row = cur.execute(
                f"SELECT {MERGE_COLUMNS}, target_aliases FROM entity_merges WHERE agent = %s AND id = %s FOR UPDATE",
                (agent, merge_id),
            ).fetchone()
            if row is None or row[6]:
                raise StoreError(f"no merge {merge_id} to undo for agent {agent}")
            merge = rows.merge(row, NATIVE)
            sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = %s AND (id = ANY(%s) OR merged_into = %s)"
            found = [
                rows.entity(r, NATIVE) for r in cur.execute(sql, (agent, [merge.source, merge.target], merge.target))
            ]
            by_id = {e.id: e for e in found}
            if merge.source in by_id and merge.target in by_id:
                staying = [e for e in found if e.merged_into == merge.target and e.id != merge.source]
                before = list(row[7] or [])
                aliases = rows.aliases_after_undo(by_id[merge.target], before, by_id[merge.source], staying)
                cur.execute("UPDATE entities SET aliases = %s WHERE id = %s", (json_text(aliases), merge.target))
            cur.execute("UPDATE entities SET merged_into = NULL WHERE id = %s", (merge.source,))
            cur.execute("UPDATE entity_merges SET undone = true WHERE id = %s", (merge_id,))
        return merge.model_copy(update={"undone": True})

    def get_entities(self, agent: str, ids: Sequence[str]) -> list[Entity]:
        sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = %s AND id = ANY(%s)"
        found = {row[0]: rows.entity(row, NATIVE) for row in self._rows(sql, (agent, list(ids)))}
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def delete_entities(self, agent: str, ids: Sequence[str]) -> int:
        with self._write() as cur:
            cur.execute(
                "DELETE FROM entity_merges WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, list(ids), list(ids)),
            )
            return cur.execute("DELETE FROM entities WHERE agent = %s AND id = ANY(%s)", (agent, list(ids))).rowcount

    def list_merges(self, agent: str) -> list[EntityMerge]:
        found = self._rows(f"SELECT {MERGE_COLUMNS} FROM entity_merges WHERE agent = %s ORDER BY at, id", (agent,))
        return [rows.merge(row, NATIVE) for row in found]

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


def add_names(cur: Cursor, entity: Entity, vector: Vectors, now: datetime) -> Entity:
    """``add_entity_names`` in the caller's write transaction; the entity as stored."""
    if put_entity(cur, entity, vector, "DO NOTHING", now):
        return entity
    # the row is locked from this read to the write: no name given meanwhile is lost
    row = cur.execute(f"SELECT {ENTITY_COLUMNS} FROM entities WHERE id = %s FOR UPDATE", (entity.id,)).fetchone()
    stored = rows.entity(row, NATIVE) if row is not None else None
    if stored is not None and stored.scope == entity.scope:
        entity = rows.with_names(stored, entity)
    put_entity(cur, entity, vector, _REPLACE, now)
    return entity


def drop_aliases(cur: Cursor, agent: str, entity_id: str, names: Sequence[str]) -> Entity | None:
    """``drop_entity_aliases`` in the caller's write transaction."""
    row = cur.execute(
        f"SELECT {ENTITY_COLUMNS} FROM entities WHERE agent = %s AND id = %s FOR UPDATE", (agent, entity_id)
    ).fetchone()
    if row is None:
        return None
    entity, dropped = rows.entity(row, NATIVE), set(names)
    kept = [a for a in entity.aliases if a not in dropped]
    if kept != entity.aliases:
        cur.execute("UPDATE entities SET aliases = %s WHERE id = %s", (json_text(kept), entity_id))
    return entity.model_copy(update={"aliases": kept})


def put_entity(cur: Cursor, entity: Entity, vector: Vectors, on_conflict: str, now: datetime) -> int:
    """Insert the entity, or do ``on_conflict``; how many rows were written. Replacing, 0 is refused."""
    written = cur.execute(
        "INSERT INTO entities (id, agent, scope, part, name, type, aliases, sources, merged_into, vector,"
        " created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::halfvec, %s) ON CONFLICT (id) " + on_conflict,
        (
            entity.id,
            entity.scope.agent,
            entity.scope.tag,
            partition_key(entity.scope.agent, entity.scope),
            entity.name,
            entity.type.value,
            json_text(entity.aliases),
            json_text(entity.sources),
            entity.merged_into,
            vector_literal(vector),
            now,
        ),
    ).rowcount
    if not written and on_conflict == _REPLACE:
        raise InvalidInput(f"entity id {entity.id!r} is held by another scope or agent")
    return written
