"""Erasure on PostgreSQL: a person or some messages forgotten in one transaction, then vacuumed.

The rows go in one transaction; ``VACUUM`` then frees their dead tuples for reuse, and the keyword
indexes are rebuilt concurrently (a GIN index keeps a key no row holds any more). A mark written in
that transaction stays until both are done, so a process killed between has them run by the next
open of the store (``finish_vacuum``). A vacuum frees the rows' space without zeroing it: their bytes
stay on the pages until overwritten, unless the operator compacts (``compact``, ``VACUUM FULL``, which
locks each table while it is copied). PostgreSQL's own write-ahead log and any backups or replicas keep
older copies until they are recycled: an operator who must prove erasure there also rotates those.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from psycopg import sql

from huiyi.errors import StoreError
from huiyi.model import Scope
from huiyi.store.erasure import Erasure
from huiyi.store.postgres.memories import DELETE_MEMORIES, PostgresMemories
from huiyi.store.rows import BUMP_ENTITIES_EPOCH, partition_key

log = logging.getLogger(__name__)

_VACUUM_PENDING = "vacuum_pending:"  # meta keys of erasures committed and not vacuumed yet

# the tables an erasure writes to, vacuumed after it
_TOUCHED = (
    *("messages", "memories", "memory_vectors", "memory_own_vectors", "links", "entities", "entity_merges", "jobs"),
    *("working_memory", "persons", "person_blocks", "partitions", "entity_versions", "reports"),
)

# GIN indexes: vacuum takes an erased row out of a key's list but leaves the key, a word only the erased said
_KEYWORD_INDEXES = ("memories_words", "memories_chars")
# copies a rebuild cut short left behind: invalid, yet written on every insert, and holding the old keys
_LEFT_BY_REBUILD = (
    "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
    " WHERE i.indrelid = 'memories'::regclass AND NOT i.indisvalid AND c.relname ~ %s"
)
_REBUILD_LOCK = "SELECT pg_advisory_lock(hashtextextended('huiyi keyword rebuild ' || current_schema(), 0))"
_REBUILD_UNLOCK = "SELECT pg_advisory_unlock(hashtextextended('huiyi keyword rebuild ' || current_schema(), 0))"


def _rebuild_keyword_indexes(cur: Any) -> None:
    """REINDEX CONCURRENTLY the keyword indexes: reads and writes go on (SHARE UPDATE EXCLUSIVE), one
    process at a time, so a copy left invalid is one a process died building, never one being built."""
    cur.execute(_REBUILD_LOCK)
    try:
        pattern = f"^({'|'.join(_KEYWORD_INDEXES)})_cc(new|old)[0-9]*$"
        for (name,) in cur.execute(_LEFT_BY_REBUILD, (pattern,)).fetchall():
            cur.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
        for index in _KEYWORD_INDEXES:
            cur.execute(sql.SQL("REINDEX INDEX CONCURRENTLY {}").format(sql.Identifier(index)))
    finally:
        cur.execute(_REBUILD_UNLOCK)


def _derived(cur: Any, agent: str, memory_ids: Sequence[str]) -> list[str]:
    """Memories made from memories that go (a daily summary of events, a global one of dailies): they quote them."""
    gone = set(memory_ids)
    found: list[str] = []
    step = sorted(gone)
    while step:  # each round one step further from the messages; ends when a round finds nothing new
        rows = cur.execute(
            "SELECT id FROM memories WHERE agent = %s AND sources ?| %s::text[] AND NOT (id = ANY(%s))",
            (agent, step, sorted(gone)),
        ).fetchall()
        step = [str(row[0]) for row in rows]
        gone.update(step)
        found += step
    return found


def _names_apart(
    cur: Any,
    agent: str,
    scope: str | None,
    person: str | None,
    names: Sequence[str],
    ids: Sequence[str],
    speaker: str | None,
) -> tuple[list[str], list[str], list[str]]:
    """The person's names no one else goes by, which name them anywhere; those another person of the agent
    also goes by (a record's id, name or alias, or a speaker's id), which name them only in the scopes they
    talk in (elsewhere such a name is that other person's); and those scopes."""
    shared = [
        name
        for name in names
        if cur.execute(
            "SELECT 1 FROM persons WHERE agent = %s AND id <> %s AND (id = %s OR name = %s OR aliases ? %s)"
            " UNION ALL SELECT 1 FROM messages WHERE agent = %s AND speaker = %s AND speaker <> %s LIMIT 1",
            (agent, person, name, name, name, agent, name, speaker),
        ).fetchone()
    ]
    found = cur.execute("SELECT DISTINCT scope FROM messages WHERE agent = %s AND id = ANY(%s)", (agent, list(ids)))
    scopes = sorted({*(str(row[0]) for row in found.fetchall()), *([scope] if scope else [])})
    return [n for n in names if n not in shared], shared, scopes


# a fact read only from lines of others who go by its subject too (阿杰喜欢猫, from the other 阿杰's message)
_THEIRS = (
    "(jsonb_array_length(memories.sources) > 0 AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text("
    "memories.sources) s(id) WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent = memories.agent"
    " AND m.id = s.id AND NOT (m.id = ANY(%(ids)s)) AND (m.speaker = memories.data->>'subject'"
    " OR EXISTS (SELECT 1 FROM persons p WHERE p.agent = m.agent AND p.id = m.speaker"
    " AND (p.name = memories.data->>'subject' OR p.aliases ? (memories.data->>'subject')))))))"
)


class PostgresErase(PostgresMemories):
    """``EraseStore`` on PostgreSQL."""

    def erase(
        self,
        agent: str,
        message_ids: Sequence[str],
        *,
        person: str | None = None,
        names: Sequence[str] = (),
        window: int = 0,
        speaker: str | None = None,
    ) -> Erasure:
        done = Erasure()
        scope = Scope.of_person(agent, person, stored=True).tag if person else None
        names = list(names)
        mark = f"{_VACUUM_PENDING}{uuid.uuid4().hex}"
        with self._write() as cur:
            # a kill before the vacuum below has ended leaves this mark: the next open vacuums (finish_vacuum)
            cur.execute("INSERT INTO meta (key, value) VALUES (%s, '1')", (mark,))
            erased = set(message_ids)
            # locked first: an indexer writing their chunks (store.apply reads them FOR SHARE) either commits
            # before this reads the memories to erase, or finds the messages gone
            cur.execute("SELECT id FROM messages WHERE agent = %s AND id = ANY(%s) FOR UPDATE", (agent, sorted(erased)))
            if person is not None:
                found = cur.execute(
                    "SELECT id FROM messages WHERE agent = %s AND (scope = %s OR speaker = %s) FOR UPDATE",
                    (agent, scope, speaker or person),
                ).fetchall()
                erased.update(str(row[0]) for row in found)
            ids = sorted(erased)
            own, shared, scopes = _names_apart(cur, agent, scope, person, names, ids, speaker or person)
            made_from = "sources ?| %(ids)s::text[]"
            about = (
                " OR scope = %(scope)s OR (kind = 'fact' AND (data->>'subject' = ANY(%(own)s)"
                f" OR (data->>'subject' = ANY(%(shared)s) AND scope = ANY(%(scopes)s) AND NOT {_THEIRS})))"
                " OR (kind = 'summary' AND data->>'person' = %(person)s)"
                if person is not None
                else ""
            )
            args = {"agent": agent, "ids": ids, "scope": scope, "person": person}
            args.update(own=own, shared=shared, scopes=scopes)
            memory_ids = [
                str(row[0])
                for row in cur.execute(
                    f"SELECT id FROM memories WHERE agent = %(agent)s AND ({made_from}{about})", args
                ).fetchall()
            ]
            if window > 0:  # others' chunks whose vectors embedded an erased turn
                memory_ids += [
                    str(row[0])
                    for row in cur.execute(
                        "SELECT c.id FROM messages e JOIN messages m ON m.agent = e.agent AND m.space = e.space"
                        " AND m.seq > e.seq AND m.seq <= e.seq + %s"
                        " JOIN memories c ON c.agent = m.agent AND c.kind = 'chunk' AND c.sources->>0 = m.id"
                        " WHERE e.agent = %s AND e.id = ANY(%s) AND NOT (m.id = ANY(%s))",
                        (window, agent, ids, ids),
                    ).fetchall()
                ]
            memory_ids += _derived(cur, agent, memory_ids)
            # chunks that go take other people's turns with them: their anchors are indexed again, at once (the
            # claims of their first indexing, leased for minutes, would keep every indexer off them)
            done.reindexed = cur.execute(
                "UPDATE messages SET indexed = false, claimed_by = '', claim_until = NULL"
                " WHERE agent = %s AND indexed AND NOT (id = ANY(%s)) AND id IN "
                "(SELECT sources->>0 FROM memories WHERE agent = %s AND kind = 'chunk' AND id = ANY(%s))",
                (agent, ids, agent, memory_ids),
            ).rowcount
            row = cur.execute(DELETE_MEMORIES, (agent, memory_ids)).fetchone()
            done.memories = int(row[0]) if row else 0
            cur.execute(
                "DELETE FROM links WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, memory_ids, memory_ids),
            )
            done.jobs = cur.execute(
                "DELETE FROM jobs WHERE agent = %s AND (payload->>'scope' = %s OR "
                "COALESCE(payload->'message_ids', '[]'::jsonb) ?| %s::text[])",
                (agent, scope, ids),
            ).rowcount
            # maintenance reports that may quote what goes: of the erased messages' scopes, or naming the person
            cur.execute(
                "DELETE FROM reports WHERE agent = %s AND (scope = %s OR scope IN"
                " (SELECT scope FROM messages WHERE agent = %s AND id = ANY(%s))"
                " OR EXISTS (SELECT 1 FROM unnest(%s::text[]) n WHERE n <> '' AND strpos(body::text, n) > 0))",
                (agent, scope, agent, ids, names),
            )
            done.messages = cur.execute("DELETE FROM messages WHERE agent = %s AND id = ANY(%s)", (agent, ids)).rowcount
            # entities of their scope, named by them, or named only by erased messages (a place their words made)
            entity_ids = [
                str(r[0])
                for r in cur.execute(
                    "SELECT id FROM entities WHERE agent = %s AND (scope = %s"
                    " OR name = ANY(%s) OR aliases ?| %s::text[]"
                    " OR ((name = ANY(%s) OR aliases ?| %s::text[]) AND scope = ANY(%s))"
                    " OR (jsonb_array_length(sources) > 0 AND NOT EXISTS"
                    " (SELECT 1 FROM jsonb_array_elements_text(sources) s WHERE NOT (s = ANY(%s)))))",
                    (agent, scope, own, own, shared, shared, scopes, ids),
                ).fetchall()
            ]
            cur.execute(
                "DELETE FROM entity_merges WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, entity_ids, entity_ids),
            )
            done.entities = cur.execute(
                "DELETE FROM entities WHERE agent = %s AND id = ANY(%s)", (agent, entity_ids)
            ).rowcount
            if person is not None:
                cur.execute("DELETE FROM working_memory WHERE agent = %s AND space = %s", (agent, scope))
                done.persons = cur.execute("DELETE FROM persons WHERE agent = %s AND id = %s", (agent, person)).rowcount
                done.blocks = cur.execute(
                    "DELETE FROM person_blocks WHERE agent = %s AND person = %s", (agent, person)
                ).rowcount
                part = partition_key(agent, Scope.of_person(agent, person, stored=True))
                cur.execute(
                    "DELETE FROM partitions WHERE part = %s AND NOT EXISTS (SELECT 1 FROM memories WHERE part = %s)",
                    (part, part),
                )
                # their entities' version row goes too, under a new epoch (rows.ENTITIES_EPOCH)
                cur.execute("DELETE FROM entity_versions WHERE part = %s", (part,))
                cur.execute(BUMP_ENTITIES_EPOCH)
        if done.memories:
            self._own.clear()  # the own-line vectors recall read of the memories that went
        self._vacuum([mark], rebuild=done.memories > 0)
        return done

    def _vacuum(self, marks: Sequence[str], *, rebuild: bool) -> None:
        """Free the dead tuples of the erased rows, with ``rebuild`` rebuild the keyword indexes that held
        their words, then drop the marks of the erasures this covers."""
        with self._cursor(transaction=False) as cur:  # neither VACUUM nor REINDEX CONCURRENTLY runs in a transaction
            for table in _TOUCHED:
                cur.execute(f"VACUUM {table}")
            if rebuild:
                _rebuild_keyword_indexes(cur)
            cur.execute("DELETE FROM meta WHERE key = ANY(%s)", (list(marks),))

    def compact(self) -> None:
        """``VACUUM FULL`` of each table erasures write: a new copy of it, its TOAST and its indexes holding
        only live rows, the old files removed. Each holds its table's ACCESS EXCLUSIVE lock while it is
        copied (reads and writes of that table wait), so the operator picks the time. It covers every
        erasure committed before it: their marks go."""
        marks = [str(row[0]) for row in self._rows("SELECT key FROM meta WHERE key LIKE %s", (f"{_VACUUM_PENDING}%",))]
        with self._cursor(transaction=False) as cur:
            for table in _TOUCHED:
                cur.execute(f"VACUUM FULL {table}")
            cur.execute("DELETE FROM meta WHERE key = ANY(%s)", (marks,))

    def finish_vacuum(self) -> None:
        """Vacuum if an erasure committed and its process died before vacuuming (a mark per erasure, so one
        vacuum finishing never clears the mark of another committed after it began)."""
        marks = [str(row[0]) for row in self._rows("SELECT key FROM meta WHERE key LIKE %s", (f"{_VACUUM_PENDING}%",))]
        if not marks:
            return
        try:
            self._vacuum(marks, rebuild=True)  # whether memories went is not known here
        except StoreError as exc:  # the marks stay: the next open tries again
            log.warning("vacuuming after an erasure cut short failed: %s", exc)
