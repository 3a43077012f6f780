"""Erasure on SQLite: a person or some messages forgotten in one transaction, then purged from the files.

Rows go in one ``BEGIN IMMEDIATE`` transaction, with ``secure_delete`` on (``connection``), so the cells
and pages they freed are zeroed in it. Copies outlive that: the keyword index's segments written before
keep an erased row's terms (a delete adds a marker; the term goes when a merge into the oldest segment
passes it); a page that b-tree balancing rebuilt keeps, in its unused space, bytes of cells it moved
away, which ``secure_delete`` never zeroes (SQLite 3.40 has no call that rewrites one page); and the WAL
keeps pages as they were. So the purge merges the segments, vacuums (the file rewritten from its live
rows) and truncates the WAL. It runs behind the call (``Purges``), once for all the erasures pending:
the merge in steps that each hold the write lock for ``MERGE_PAGES`` pages, the vacuum in one hold. A
mark per erasure, written in its transaction, stays until its purge has run, so a process killed first
has it run after the next open.
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from huiyi.model import Scope
from huiyi.store import rows
from huiyi.store.erasure import Erasure, Refold
from huiyi.store.purges import Purges
from huiyi.store.rows import BUMP_ENTITIES_EPOCH, BUMP_ERASURES, MESSAGE_COLUMNS, TEXT, partition_key
from huiyi.store.sqlite.connection import chunks, marks
from huiyi.store.sqlite.fts import merge_step
from huiyi.store.sqlite.jobs import insert_job
from huiyi.store.sqlite.memories import SQLiteMemories, delete_memory_rows
from huiyi.store.sqlite.partitions import drop_partition
from huiyi.store.sqlite.search import MERGE_PAGES

log = logging.getLogger(__name__)

# meta keys of erasures committed and not purged yet: ``purge_pending:<id>``, or ``purge_pending`` as
# written before there was one per erasure; the value says whether keyword rows went ('1') or not ('0')
_PENDING = "SELECT key, value FROM meta WHERE key = 'purge_pending' OR key LIKE 'purge_pending:%'"
_MAX_MERGE_STEPS = 100_000  # a merge still going after this many steps is given up and tried again later


class SQLiteErase(SQLiteMemories):
    """``EraseStore`` on SQLite."""

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
        with self._write() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS erased (id TEXT PRIMARY KEY)")
            conn.execute("DELETE FROM erased")
            for chunk in chunks(message_ids, 500):
                conn.executemany("INSERT OR IGNORE INTO erased VALUES (?)", [(i,) for i in chunk])
            scope = Scope.of_person(agent, person, stored=True).tag if person else None
            if person is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO erased SELECT id FROM messages "
                    "WHERE agent = ? AND (scope = ? OR speaker = ?)",
                    (agent, scope, speaker or person),
                )
            named = _names_apart(conn, agent, scope, person, names, speaker or person)
            memory_ids = _memories_to_erase(conn, agent, scope, person, named) + _chunks_near(conn, agent, window)
            memory_ids += _derived(conn, agent, memory_ids)
            changes = conn.total_changes  # from here on, writes to the store's own tables only
            done.reindexed = _reindex_others(conn, agent, memory_ids)
            done.refold = tuple(sorted({*_made_into_too(conn, agent, memory_ids), *_again_of_others(conn, agent)}))
            removed = delete_memory_rows(conn, agent, memory_ids)
            done.jobs = conn.execute(
                "DELETE FROM jobs WHERE agent = ? AND (json_extract(payload, '$.scope') IS ? OR EXISTS "
                "(SELECT 1 FROM json_each(jobs.payload, '$.message_ids') j JOIN erased e ON e.id = j.value))",
                (agent, scope),
            ).rowcount
            _erase_reports(conn, agent, scope, names)
            done.messages = conn.execute(
                "DELETE FROM messages WHERE agent = ? AND id IN (SELECT id FROM erased)", (agent,)
            ).rowcount
            done.entities = _erase_entities(conn, agent, scope, named)
            if refold is not None and done.refold:
                _queue_refolds(conn, agent, done.refold, refold)
            if person is not None:
                conn.execute("DELETE FROM working_memory WHERE agent = ? AND space = ?", (agent, scope))
                done.persons = conn.execute("DELETE FROM persons WHERE agent = ? AND id = ?", (agent, person)).rowcount
                done.blocks = conn.execute(
                    "DELETE FROM person_blocks WHERE agent = ? AND person = ?", (agent, person)
                ).rowcount
                part = partition_key(agent, Scope.of_person(agent, person, stored=True))
                drop_partition(conn, part)
                # their entities' version row goes too, under a new epoch (rows.ENTITIES_EPOCH, below)
                conn.execute("DELETE FROM entity_versions WHERE part = ?", (part,))
            wrote = conn.total_changes > changes  # a retry, or a person never seen, leaves nothing to purge
            conn.execute(BUMP_ERASURES)  # a maintenance run that began before keeps no report (add_report)
            if person is not None:
                conn.execute(BUMP_ENTITIES_EPOCH)
            conn.execute("DELETE FROM erased")
            if wrote:  # stays until the purge has run: a kill before has the next open purge (finish_purge)
                mark, keywords = f"purge_pending:{uuid.uuid4().hex}", "1" if removed else "0"
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (mark, keywords))
        done.memories = self._uncache(removed)
        if wrote:
            self._purges.ask()
        return done

    def purged(self, timeout: float | None = None) -> bool:
        return self._purges.wait(timeout)

    def _purge_marked(self) -> bool:
        """Purge the files of every erasure marked now; True when none of their bytes is left in them."""
        pending = self._conn().execute(_PENDING).fetchall()
        if not pending:
            return True
        if any(value != "0" for _, value in pending) and not self._merge_keywords():
            return False
        with self._write_lock:  # adds wait: the one step whose cost follows the file's size
            self._conn().execute("VACUUM")
            if not self._checkpoint():
                return False
        with self._write() as conn:  # a mark written since stays: its erasure's purge runs next
            conn.executemany("DELETE FROM meta WHERE key = ?", [(key,) for key, _ in pending])
        return True

    def _merge_keywords(self) -> bool:
        """Merge every segment of the keyword index into one, a step of ``MERGE_PAGES`` pages per transaction
        (adds wait for one step at most): the segments written before an erasure keep its rows' terms,
        deleted only by markers, until a merge into the oldest segment passes them. False if it never ends."""
        # a positive count merges levels of two segments (usermerge 2, schema 23) or carries on a merge begun
        self._merge_step(-MERGE_PAGES)  # negative: every segment, the markers' too, gathered into one merge
        for _ in range(_MAX_MERGE_STEPS):
            # positive: a negative count would gather again the segments adds wrote since, and start over
            if not self._merge_step(MERGE_PAGES):
                return True
        log.warning("merging the keyword index of %s did not end; the purge is tried again", self.path)
        return False

    def _merge_step(self, pages: int) -> bool:
        """One merge of up to ``pages`` pages in a transaction of its own: whether there was anything to merge."""
        with self._write() as conn:
            return merge_step(conn, pages)

    def _checkpoint(self) -> bool:
        """Copy the WAL into the database file and truncate it: its frames held the pages as they were."""
        with self._write_lock:
            busy, _, _ = self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:  # a reader of another process on an older snapshot: tried again
            log.info("the WAL of %s is still read by another process; its purge is tried again", self.path)
        return not busy

    def compact(self) -> None:
        """Let the erasures' purges finish: each has rewritten the file (``_purge_marked``)."""
        self.finish_purge()
        self.purged()

    def finish_purge(self) -> None:
        """Purge behind the open if an erasure committed and its process died before purging the files."""
        if self._conn().execute(_PENDING).fetchone() is not None:
            self._purges.ask()

    def close(self) -> None:
        self._purges.close()  # the purge asked runs before the connections go
        super().close()


@dataclass(frozen=True)
class _Named:
    """Where the erased person's names name them: the names no one else goes by anywhere, the ones another
    person of the agent also goes by (a record's id, name or alias, or a speaker's id) only in the scopes
    the person talks in; elsewhere such a name is that other person's."""

    own: list[str]
    shared: list[str]
    scopes: list[str]

    def where(self, condition: str, theirs: str = "0") -> tuple[str, list[str]]:
        """SQL true where ``condition`` (``{names}`` standing for a list of marks) holds of these names; a
        shared name's row for which ``theirs`` holds is the other person's."""
        uses = condition.count("{names}")
        parts, args = [], []
        if self.own:
            parts.append(condition.format(names=marks(len(self.own))))
            args += self.own * uses
        if self.shared and self.scopes:
            parts.append(
                f"(({condition.format(names=marks(len(self.shared)))}) AND scope IN ({marks(len(self.scopes))})"
                f" AND NOT {theirs})"
            )
            args += [*(self.shared * uses), *self.scopes]
        return f"({' OR '.join(parts) or '0'})", args


def _names_apart(
    conn: sqlite3.Connection,
    agent: str,
    scope: str | None,
    person: str | None,
    names: Sequence[str],
    speaker: str | None,
) -> _Named:
    """The person's names apart by whether someone else goes by them too, and the scopes the person talks in."""
    shared = [
        name
        for name in names
        if conn.execute(
            "SELECT 1 FROM persons WHERE agent = ? AND id <> ? AND (id = ? OR name = ? OR EXISTS "
            "(SELECT 1 FROM json_each(persons.aliases) a WHERE a.value = ?)) "
            "UNION ALL SELECT 1 FROM messages WHERE agent = ? AND speaker = ? AND speaker <> ? LIMIT 1",
            (agent, person, name, name, name, agent, name, speaker),
        ).fetchone()
    ]
    found = conn.execute(
        "SELECT DISTINCT scope FROM messages WHERE agent = ? AND id IN (SELECT id FROM erased)", (agent,)
    )
    scopes = sorted({*(str(row[0]) for row in found), *([scope] if scope else [])})
    return _Named([n for n in names if n not in shared], shared, scopes)


# a fact read only from lines of others who go by its subject too (阿杰喜欢猫, from the other 阿杰's message)
_THEIRS = (
    "(json_array_length(memories.sources) > 0 AND NOT EXISTS (SELECT 1 FROM json_each(memories.sources) s "
    "WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent = memories.agent AND m.id = s.value "
    "AND m.id NOT IN (SELECT id FROM erased) AND (m.speaker = json_extract(memories.data, '$.subject') "
    "OR EXISTS (SELECT 1 FROM persons p WHERE p.agent = m.agent AND p.id = m.speaker "
    "AND (p.name = json_extract(memories.data, '$.subject') OR EXISTS (SELECT 1 FROM json_each(p.aliases) a "
    "WHERE a.value = json_extract(memories.data, '$.subject'))))))))"
)


def _memories_to_erase(
    conn: sqlite3.Connection, agent: str, scope: str | None, person: str | None, named: _Named
) -> list[str]:
    """Memories made from an erased message; with a person also their scope's, and facts and profiles about them."""
    made = _made_from(conn, agent, "erased")
    if person is None:
        return made
    subject, names = named.where("json_extract(data, '$.subject') IN ({names})", _THEIRS)
    rows = conn.execute(
        f"SELECT id FROM memories WHERE agent = ? AND (scope = ? OR (kind = 'fact' AND {subject}) OR "
        "(kind = 'summary' AND json_extract(data, '$.person') = ?))",
        (agent, scope, *names, person),
    )
    return list(dict.fromkeys([*made, *(str(row[0]) for row in rows)]))


def _made_from(conn: sqlite3.Connection, agent: str, erased: str) -> list[str]:
    """Memories with a source in the temp table ``erased``, by a seek per id in ``memory_sources``
    (schema 21), not a read of every memory of the agent."""
    rows = conn.execute(
        f"SELECT DISTINCT m.id FROM {erased} e CROSS JOIN memory_sources s ON s.agent = ? AND s.source = e.id "
        "CROSS JOIN memories m ON m.rowid = s.memory",
        (agent,),
    )
    return [str(row[0]) for row in rows]


def _chunks_near(conn: sqlite3.Connection, agent: str, window: int) -> list[str]:
    """Chunks of others' messages up to ``window`` turns after an erased one: their vectors embedded it."""
    if window <= 0:
        return []
    # CROSS JOIN keeps this order: unanalysed, the planner would start from all the agent's memory_sources
    rows = conn.execute(
        "SELECT c.id FROM erased x CROSS JOIN messages e ON e.agent = ? AND e.id = x.id "
        "CROSS JOIN messages m ON m.agent = e.agent AND m.space = e.space AND m.seq > e.seq AND m.seq <= e.seq + ? "
        "CROSS JOIN memory_sources s ON s.agent = m.agent AND s.source = m.id "
        "CROSS JOIN memories c ON c.rowid = s.memory AND c.kind = 'chunk' AND json_extract(c.sources, '$[0]') = m.id "
        "WHERE m.id NOT IN (SELECT id FROM erased)",
        (agent, window),
    )
    return [str(row[0]) for row in rows]


def _reindex_others(conn: sqlite3.Connection, agent: str, memory_ids: Sequence[str]) -> int:
    """Chunks that go take other people's turns with them: their anchor messages are indexed again, at once
    (the claims of their first indexing, leased for minutes, would keep every indexer off them)."""
    marked = 0
    for chunk in chunks(memory_ids, 500):
        marked += conn.execute(
            "UPDATE messages SET indexed = 0, claimed_by = '', claim_until = NULL "
            "WHERE agent = ? AND indexed = 1 AND id NOT IN (SELECT id FROM erased) "
            "AND id IN (SELECT json_extract(sources, '$[0]') FROM memories "
            f"WHERE agent = ? AND kind = 'chunk' AND id IN ({marks(len(chunk))}))",
            (agent, agent, *chunk),
        ).rowcount
    return marked


def _made_into_too(conn: sqlite3.Connection, agent: str, memory_ids: Sequence[str]) -> tuple[str, ...]:
    """Others' messages that events or facts going now were made from too, and of which no other event or
    fact is left (``Erasure.refold``): extracted again, one that kept a fact would have it twice."""
    going = set(memory_ids)
    found: set[str] = set()
    for chunk in chunks(memory_ids, 500):
        found.update(
            str(row[0])
            for row in conn.execute(
                "SELECT DISTINCT s.value FROM memories m, json_each(m.sources) s WHERE m.agent = ?"
                f" AND m.kind IN ('event', 'fact') AND m.id IN ({marks(len(chunk))})"
                " AND s.value NOT IN (SELECT id FROM erased)"
                " AND EXISTS (SELECT 1 FROM messages g WHERE g.agent = m.agent AND g.id = s.value)",
                (agent, *chunk),
            )
        )
    kept: set[str] = set()
    for chunk in chunks(sorted(found), 500):  # by a seek per id in memory_sources, as _made_from reads
        kept.update(
            str(source)
            for source, memory_id in conn.execute(
                "SELECT s.source, m.id FROM memory_sources s CROSS JOIN memories m ON m.rowid = s.memory"
                f" WHERE s.agent = ? AND s.source IN ({marks(len(chunk))}) AND m.kind IN ('event', 'fact')",
                (agent, *chunk),
            )
            if memory_id not in going
        )
    return tuple(sorted(found - kept))


def _queue_refolds(conn: sqlite3.Connection, agent: str, message_ids: Sequence[str], refold: Refold) -> None:
    """The folds extracting ``message_ids`` again, queued in the erasure's transaction."""
    found = []
    for chunk in chunks(message_ids, 500):
        found += conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE agent = ? AND id IN ({marks(len(chunk))})", (agent, *chunk)
        ).fetchall()
    for job in refold([rows.message(row, TEXT) for row in found]):
        insert_job(conn, job)


def _again_of_others(conn: sqlite3.Connection, agent: str) -> list[str]:
    """Others' messages of folds not done that this erasure deletes (they name an erased turn too) and that
    working memory has passed: a fold queued again by an earlier erasure, or one failed for good that a later
    fold was planned past. No fold is planned from them again, so they are queued again with the rest (those
    still in working memory are planned again from it)."""
    return [
        str(row[0])
        for row in conn.execute(
            "SELECT DISTINCT j.value FROM jobs, json_each(jobs.payload, '$.message_ids') j"
            " JOIN messages g ON g.agent = jobs.agent AND g.id = j.value"
            " WHERE jobs.agent = ? AND jobs.kind = 'fold' AND jobs.state <> 'done'"
            " AND j.value NOT IN (SELECT id FROM erased)"
            " AND EXISTS (SELECT 1 FROM json_each(jobs.payload, '$.message_ids') e"
            " WHERE e.value IN (SELECT id FROM erased))"
            " AND g.seq < COALESCE((SELECT w.start_seq FROM working_memory w"
            " WHERE w.agent = g.agent AND w.space = g.space), 1)",
            (agent,),
        )
    ]


def _derived(conn: sqlite3.Connection, agent: str, memory_ids: Sequence[str]) -> list[str]:
    """Memories made from memories that go (a daily summary of events, a global one of dailies): they quote them."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS erased_memories (id TEXT PRIMARY KEY)")
    gone = set(memory_ids)
    found: list[str] = []
    step = sorted(gone)
    while step:  # each round looks up only what the one before found, one step further from the messages
        conn.execute("DELETE FROM erased_memories")
        conn.executemany("INSERT OR IGNORE INTO erased_memories VALUES (?)", [(i,) for i in step])
        step = [i for i in _made_from(conn, agent, "erased_memories") if i not in gone]
        gone.update(step)
        found += step
    conn.execute("DELETE FROM erased_memories")
    return found


def _erase_entities(conn: sqlite3.Connection, agent: str, scope: str | None, named: _Named) -> int:
    """Entities of the person's scope, named by their names or aliases, or named only by erased messages
    (a place or thing their words made), and the merges that involved them."""
    by_name, names = named.where(
        "name IN ({names}) OR EXISTS (SELECT 1 FROM json_each(entities.aliases) a WHERE a.value IN ({names}))"
    )
    only_erased = (
        "(json_array_length(sources) > 0 AND NOT EXISTS (SELECT 1 FROM json_each(entities.sources) s "
        "WHERE s.value NOT IN (SELECT id FROM erased)))"
    )
    ids = [
        str(row[0])
        for row in conn.execute(
            f"SELECT id FROM entities WHERE agent = ? AND (scope IS ? OR {by_name} OR {only_erased})",
            (agent, scope, *names),
        )
    ]
    for chunk in chunks(ids, 500):
        id_marks = marks(len(chunk))
        conn.execute(
            f"DELETE FROM entity_merges WHERE agent = ? AND (source IN ({id_marks}) OR target IN ({id_marks}))",
            (agent, *chunk, *chunk),
        )
        conn.execute(f"DELETE FROM entities WHERE agent = ? AND id IN ({id_marks})", (agent, *chunk))
    return len(ids)


def _erase_reports(conn: sqlite3.Connection, agent: str, scope: str | None, names: Sequence[str]) -> None:
    """Maintenance reports that may quote what goes: of the erased messages' scopes, or naming the person."""
    conn.execute(
        "DELETE FROM reports WHERE agent = ? AND (scope IS ? OR scope IN "
        "(SELECT scope FROM messages WHERE agent = ? AND id IN (SELECT id FROM erased)))",
        (agent, scope, agent),
    )
    for name in names:
        if name:
            conn.execute("DELETE FROM reports WHERE agent = ? AND instr(body, ?) > 0", (agent, name))
