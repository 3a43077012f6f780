"""Erasure on PostgreSQL: a person or some messages forgotten in one transaction, then vacuumed.

The rows go in one transaction; behind the call (``Purges``), ``VACUUM`` of the tables it deleted rows
from frees their dead tuples for reuse, and the keyword indexes are rebuilt concurrently (a GIN index
keeps a key no row holds any more). Neither blocks reads or writes; both take time that grows with the
tables, which the caller no longer waits for. A mark written in the erasure's transaction names those
tables and stays until both are done, so a process killed between has them run after the next open of
the store (``finish_vacuum``). A vacuum frees the rows' space without zeroing it: their bytes stay on the
pages until overwritten, unless the operator compacts (``compact``, ``VACUUM FULL``, which locks each
table while it is copied). PostgreSQL's own write-ahead log and any backups or replicas keep older
copies until they are recycled: an operator who must prove erasure there also rotates those.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Sequence
from typing import Any

from psycopg import sql

from huiyi.model import Scope
from huiyi.store import rows
from huiyi.store.erasure import Erasure, Refold
from huiyi.store.postgres.jobs import insert_job
from huiyi.store.postgres.memories import DELETE_MEMORIES, PostgresMemories
from huiyi.store.purges import Purges
from huiyi.store.rows import BUMP_ENTITIES_EPOCH, BUMP_ERASURES, MESSAGE_COLUMNS, NATIVE, partition_key

log = logging.getLogger(__name__)

# meta keys of erasures committed and not vacuumed yet; the value names the tables to vacuum and whether
# the keyword indexes are to be rebuilt (JSON), or is '1' (written before: all of them, rebuilt)
_VACUUM_PENDING = "vacuum_pending:"

# the tables an erasure may delete rows from
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

    _purges: Purges  # set by the store: runs ``_purge_marked`` behind the erasures

    def erase(
        self,
        agent: str,
        message_ids: Sequence[str],
        *,
        person: str | None = None,
        names: Sequence[str] = (),
        window: int = 0,
        speaker: str | None = None,
        refold: Refold | None = None,
    ) -> Erasure:
        done = Erasure()
        scope = Scope.of_person(agent, person, stored=True).tag if person else None
        names = list(names)
        wrote: set[str] = set()  # the tables rows were deleted from: their dead tuples hold the erased bytes

        def deleted(count: int, *tables: str) -> int:
            if count:
                wrote.update(tables)
            return count

        with self._write() as cur:
            erased = set(message_ids)
            # locked first: an indexer writing their chunks (store.apply locks them) either commits
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
            # apart from the rest, so the planner can take memories_sources (schema 20) for it
            made_from = "SELECT id FROM memories WHERE agent = %(agent)s AND sources ?| %(ids)s::text[]"
            about = (
                " UNION SELECT id FROM memories WHERE agent = %(agent)s AND (scope = %(scope)s"
                " OR (kind = 'fact' AND (data->>'subject' = ANY(%(own)s)"
                f" OR (data->>'subject' = ANY(%(shared)s) AND scope = ANY(%(scopes)s) AND NOT {_THEIRS})))"
                " OR (kind = 'summary' AND data->>'person' = %(person)s))"
                if person is not None
                else ""
            )
            args = {"agent": agent, "ids": ids, "scope": scope, "person": person}
            args.update(own=own, shared=shared, scopes=scopes)
            memory_ids = [str(row[0]) for row in cur.execute(made_from + about, args).fetchall()]
            if window > 0:  # others' chunks whose vectors embedded an erased turn
                near = cur.execute(
                    "SELECT DISTINCT m.id FROM messages e JOIN messages m ON m.agent = e.agent AND m.space = e.space"
                    " AND m.seq > e.seq AND m.seq <= e.seq + %s WHERE e.agent = %s AND e.id = ANY(%s)"
                    " AND NOT (m.id = ANY(%s))",
                    (window, agent, ids, ids),
                ).fetchall()
                # their chunks by the ids as constants, which memories_sources answers; joined, the planner
                # read every memory
                turns = [str(row[0]) for row in near]
                memory_ids += [
                    str(row[0])
                    for row in cur.execute(
                        "SELECT id FROM memories WHERE agent = %s AND kind = 'chunk' AND sources ?| %s::text[]"
                        " AND sources->>0 = ANY(%s)",
                        (agent, turns, turns),
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
            done.refold = tuple(
                str(row[0])
                for row in cur.execute(
                    "SELECT DISTINCT s.id FROM memories m CROSS JOIN jsonb_array_elements_text(m.sources) AS s (id)"
                    " WHERE m.agent = %s AND m.kind IN ('event', 'fact') AND m.id = ANY(%s) AND NOT (s.id = ANY(%s))"
                    " AND EXISTS (SELECT 1 FROM messages g WHERE g.agent = m.agent AND g.id = s.id)"
                    # one another event or fact is left of, extracted again, would have it twice
                    " AND NOT EXISTS (SELECT 1 FROM memories k WHERE k.agent = m.agent AND k.kind IN ('event', 'fact')"
                    " AND k.sources ? s.id AND NOT (k.id = ANY(%s))) ORDER BY s.id",
                    (agent, memory_ids, ids, memory_ids),
                ).fetchall()
            )
            # others' messages of folds not done that this erasure deletes (they name an erased turn too) and that
            # working memory has passed (queued again by an earlier erasure, or failed for good and planned past):
            # no fold is planned from them again, so they are queued again with the rest
            again = cur.execute(
                "SELECT DISTINCT j.id FROM jobs CROSS JOIN jsonb_array_elements_text(jobs.payload->'message_ids')"
                " AS j (id) JOIN messages g ON g.agent = jobs.agent AND g.id = j.id"
                " WHERE jobs.agent = %s AND jobs.kind = 'fold' AND jobs.state <> 'done'"
                " AND NOT (j.id = ANY(%s)) AND jobs.payload->'message_ids' ?| %s::text[]"
                " AND g.seq < COALESCE((SELECT w.start_seq FROM working_memory w"
                " WHERE w.agent = g.agent AND w.space = g.space), 1)",
                (agent, ids, ids),
            ).fetchall()
            done.refold = tuple(sorted({*done.refold, *(str(row[0]) for row in again)}))
            row = cur.execute(DELETE_MEMORIES, (agent, memory_ids)).fetchone()
            done.memories = deleted(int(row[0]) if row else 0, "memories", "memory_vectors", "memory_own_vectors")
            links = cur.execute(
                "DELETE FROM links WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, memory_ids, memory_ids),
            )
            deleted(links.rowcount, "links")
            done.jobs = cur.execute(
                "DELETE FROM jobs WHERE agent = %s AND (payload->>'scope' = %s OR "
                "COALESCE(payload->'message_ids', '[]'::jsonb) ?| %s::text[])",
                (agent, scope, ids),
            ).rowcount
            deleted(done.jobs, "jobs")
            if refold is not None and done.refold:  # queued in this transaction: a kill after it loses none
                found = cur.execute(
                    f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = %s AND id = ANY(%s)",
                    (agent, list(done.refold)),
                ).fetchall()
                for job in refold([rows.message(row, NATIVE) for row in found]):
                    insert_job(cur, job)
            # maintenance reports that may quote what goes: of the erased messages' scopes, or naming the person
            reports = cur.execute(
                "DELETE FROM reports WHERE agent = %s AND (scope = %s OR scope IN"
                " (SELECT scope FROM messages WHERE agent = %s AND id = ANY(%s))"
                " OR EXISTS (SELECT 1 FROM unnest(%s::text[]) n WHERE n <> '' AND strpos(body::text, n) > 0))",
                (agent, scope, agent, ids, names),
            )
            deleted(reports.rowcount, "reports")
            messages = cur.execute("DELETE FROM messages WHERE agent = %s AND id = ANY(%s)", (agent, ids))
            done.messages = deleted(messages.rowcount, "messages")
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
            merges = cur.execute(
                "DELETE FROM entity_merges WHERE agent = %s AND (source = ANY(%s) OR target = ANY(%s))",
                (agent, entity_ids, entity_ids),
            )
            deleted(merges.rowcount, "entity_merges")
            entities = cur.execute("DELETE FROM entities WHERE agent = %s AND id = ANY(%s)", (agent, entity_ids))
            done.entities = deleted(entities.rowcount, "entities")
            if person is not None:
                working = cur.execute("DELETE FROM working_memory WHERE agent = %s AND space = %s", (agent, scope))
                deleted(working.rowcount, "working_memory")
                persons = cur.execute("DELETE FROM persons WHERE agent = %s AND id = %s", (agent, person))
                done.persons = deleted(persons.rowcount, "persons")
                blocks = cur.execute("DELETE FROM person_blocks WHERE agent = %s AND person = %s", (agent, person))
                done.blocks = deleted(blocks.rowcount, "person_blocks")
                part = partition_key(agent, Scope.of_person(agent, person, stored=True))
                parts = cur.execute(
                    "DELETE FROM partitions WHERE part = %s AND NOT EXISTS (SELECT 1 FROM memories WHERE part = %s)",
                    (part, part),
                )
                deleted(parts.rowcount, "partitions")
                # their entities' version row goes too, under a new epoch (rows.ENTITIES_EPOCH)
                versions = cur.execute("DELETE FROM entity_versions WHERE part = %s", (part,))
                deleted(versions.rowcount, "entity_versions")
                cur.execute(BUMP_ENTITIES_EPOCH)
            cur.execute(BUMP_ERASURES)  # a maintenance run that began before keeps no report (add_report)
            if wrote:  # stays until the vacuum has run: a kill before has the next open vacuum (finish_vacuum)
                plan = json.dumps({"tables": sorted(wrote), "rebuild": done.memories > 0})
                mark = f"{_VACUUM_PENDING}{uuid.uuid4().hex}"
                cur.execute("INSERT INTO meta (key, value) VALUES (%s, %s)", (mark, plan))
        if done.memories:
            self._own.clear()  # the own-line vectors recall read of the memories that went
        if wrote:
            self._purges.ask()
        return done

    def purged(self, timeout: float | None = None) -> bool:
        return self._purges.wait(timeout)

    def _pending(self) -> list[tuple[str, str]]:
        """The marks of erasures not vacuumed yet, with their plans."""
        found = self._rows("SELECT key, value FROM meta WHERE key LIKE %s", (f"{_VACUUM_PENDING}%",))
        return [(str(key), str(value)) for key, value in found]

    def _purge_marked(self) -> bool:
        """Vacuum the tables every erasure marked now deleted rows from, rebuild the keyword indexes if one
        deleted memories, then drop those marks (one written since stays: its vacuum runs next)."""
        pending = self._pending()
        if not pending:
            return True
        tables: set[str] = set()
        rebuild = False
        for _, value in pending:
            plan: dict[str, Any] = json.loads(value) if value.startswith("{") else {"tables": _TOUCHED, "rebuild": True}
            tables.update(table for table in plan["tables"] if table in _TOUCHED)  # names from the store's own list
            rebuild = rebuild or bool(plan["rebuild"])
        with self._cursor(transaction=False) as cur:  # neither VACUUM nor REINDEX CONCURRENTLY runs in a transaction
            for table in sorted(tables):
                cur.execute(f"VACUUM {table}")
            if rebuild:
                _rebuild_keyword_indexes(cur)
            cur.execute("DELETE FROM meta WHERE key = ANY(%s)", ([key for key, _ in pending],))
        return True

    def compact(self) -> None:
        """Let the erasures' vacuums finish, then ``VACUUM FULL`` of each table erasures write: a new copy of
        it, its TOAST and its indexes holding only live rows, the old files removed. Each holds its table's
        ACCESS EXCLUSIVE lock while it is copied (reads and writes of that table wait), so the operator picks
        the time. It covers every erasure committed before it: their marks go."""
        self.finish_vacuum()
        self.purged()
        marks = [key for key, _ in self._pending()]
        with self._cursor(transaction=False) as cur:
            for table in _TOUCHED:
                cur.execute(f"VACUUM FULL {table}")
            cur.execute("DELETE FROM meta WHERE key = ANY(%s)", (marks,))

    def finish_vacuum(self) -> None:
        """Vacuum behind the open if an erasure committed and its process died before vacuuming (a mark per
        erasure, so one vacuum finishing never clears the mark of another committed after it began)."""
        if self._pending():
            self._purges.ask()

    def close(self) -> None:
        self._purges.close()  # the vacuum asked runs before the pool goes
        super().close()
