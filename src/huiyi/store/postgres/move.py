"""Moving one agent between PostgreSQL databases (stage 3's rebalancing): copy its rows, then delete them.

Row ids (``rowid``, a report's ``seq``) are numbered by each database, so the copy leaves them to the
target and joins the vectors back to their memories by memory id; copying tables as they are collides
with the target's own rows. Rows travel as COPY text, so vectors and ``tsvector``s arrive bit for bit.
The copy is one transaction on the target, refused (nothing written) if the target holds any of the
agent's rows already; the source is read in one snapshot.
"""

from __future__ import annotations

from psycopg import sql

from huiyi.errors import EmbedderMismatch, InvalidInput
from huiyi.store.postgres.connection import Cursor
from huiyi.store.postgres.store import PostgresStore

# every table that names the agent, in the order foreign keys need
AGENT_TABLES = (
    "persons",
    "person_blocks",
    "messages",
    "working_memory",
    "partitions",
    "memories",
    "entities",
    "entity_merges",
    "links",
    "jobs",
    "reports",
)
# tables of memory rows, keyed by the memories' rowid
VECTOR_TABLES = ("memory_vectors", "memory_own_vectors")

_OWN_COLUMNS = """
SELECT column_name FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = %s
  AND is_identity = 'NO' AND COALESCE(column_default, '') NOT LIKE 'nextval(%%'
ORDER BY ordinal_position
"""


def copy_agent(source: PostgresStore, target: PostgresStore, agent: str) -> dict[str, int]:
    """Copy every row of ``agent`` from ``source`` into ``target``; the rows copied, by table."""
    recorded = source.embedding_model(), target.embedding_model()
    if None not in recorded and recorded[0] != recorded[1]:
        raise EmbedderMismatch(f"the target's vectors are {recorded[1]}, the agent's {recorded[0]}")
    copied: dict[str, int] = {}
    with source._cursor(transaction=True) as read, target._write() as write:
        read.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        held = write.execute(_HELD, {"agent": agent}).fetchone()
        if held and held[0]:
            raise InvalidInput(f"the target database holds rows of agent {agent!r} already: nothing copied")
        for table in AGENT_TABLES:
            names = _columns(write, table)
            order = sql.SQL(" ORDER BY rowid" if table in ("messages", "memories", "entities") else "")
            out = sql.SQL("COPY (SELECT {} FROM {} WHERE agent = {}{}) TO STDOUT")
            into = sql.SQL("COPY {} ({}) FROM STDIN")
            copied[table] = _pipe(
                read,
                write,
                out.format(names, sql.Identifier(table), sql.Literal(agent), order),
                into.format(sql.Identifier(table), names),
            )
        for table in VECTOR_TABLES:
            copied[table] = _copy_vectors(read, write, table, agent)
    return copied


def delete_agent(store: PostgresStore, agent: str) -> None:
    """Delete every row of ``agent`` (the old database's copy, once every process routes it elsewhere)."""
    with store._write() as cur:
        for table in reversed(AGENT_TABLES):  # vectors go with their memories (ON DELETE CASCADE)
            cur.execute(sql.SQL("DELETE FROM {} WHERE agent = %s").format(sql.Identifier(table)), (agent,))


_HELD = """
SELECT EXISTS (SELECT 1 FROM partitions WHERE agent = %(agent)s)
    OR EXISTS (SELECT 1 FROM memories WHERE agent = %(agent)s)
    OR EXISTS (SELECT 1 FROM messages WHERE agent = %(agent)s)
"""


def _columns(cur: Cursor, table: str, leave: str = "", of: str = "") -> sql.Composed:
    """The table's columns the database does not number itself, but ``leave``; qualified by ``of``."""
    found = [row[0] for row in cur.execute(_OWN_COLUMNS, (table,)).fetchall() if row[0] != leave]
    return sql.SQL(", ").join(sql.Identifier(*([of] if of else []), name) for name in found)


def _copy_vectors(read: Cursor, write: Cursor, table: str, agent: str) -> int:
    """A vector table's rows of the agent, each joined back to its memory's new rowid by memory id."""
    names = _columns(write, table, leave="rowid")
    write.execute(sql.SQL("CREATE TEMP TABLE moved (LIKE {}) ON COMMIT DROP").format(sql.Identifier(table)))
    write.execute("ALTER TABLE moved ADD COLUMN memory_id TEXT NOT NULL, ALTER COLUMN rowid DROP NOT NULL")
    out = sql.SQL("COPY (SELECT {}, m.id FROM {} v JOIN memories m USING (rowid) WHERE m.agent = {}) TO STDOUT")
    rows = _pipe(
        read,
        write,
        out.format(_columns(read, table, leave="rowid", of="v"), sql.Identifier(table), sql.Literal(agent)),
        sql.SQL("COPY moved ({}, memory_id) FROM STDIN").format(names),
    )
    join = sql.SQL("INSERT INTO {} (rowid, {}) SELECT m.rowid, {} FROM moved JOIN memories m ON m.id = moved.memory_id")
    write.execute(join.format(sql.Identifier(table), names, _columns(write, table, leave="rowid", of="moved")))
    write.execute("DROP TABLE moved")
    return rows


def _pipe(read: Cursor, write: Cursor, out: sql.Composed, into: sql.Composed) -> int:
    """Rows streamed from one database's COPY TO into the other's COPY FROM; how many."""
    rows = 0
    with read.copy(out) as source, write.copy(into) as target:
        for block in source:
            target.write(block)
            rows += bytes(block).count(b"\n")
    return rows
