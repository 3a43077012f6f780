"""The server store's connections: a psycopg pool, migrations under an advisory lock, one transaction per write.

The store's identity (schema version, embedding model) is read here too. Any number of processes may
share one database: nothing is cached in-process, so nothing goes stale.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
from psycopg.errors import QueryCanceled
from psycopg.rows import TupleRow
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool, PoolTimeout

from huiyi.checks import INT64_MAX, INT64_MIN
from huiyi.errors import SchemaTooNew, StoreError, StoreFull
from huiyi.store.base import TurnContext
from huiyi.store.owncache import OwnVectorCache
from huiyi.store.postgres.schema import MIGRATION_LOCK, MIGRATIONS, VERSION_TABLE
from huiyi.store.rows import now

log = logging.getLogger(__name__)

Cursor = psycopg.Cursor[TupleRow]
_USED = "_huiyi_used"  # when a pooled connection was last handed back (as the pool's own _expire_at)


class PostgresConnection:
    """A pool of connections to one database, migrated when opened."""

    def __init__(
        self, dsn: str, *, pool_size: int = 8, connect_timeout: float = 15.0, context: TurnContext | None = None
    ) -> None:
        self.dsn = dsn
        self.clock: Callable[[], datetime] = now  # when rows are written (the contract's ``clock``)
        self.zone = ZoneInfo("UTC")  # whose wall clock memories' times are (the contract's ``zone``)
        self.context = context if context is not None else TurnContext()  # turn-alone chunks' context
        self._closed = False
        self._own = OwnVectorCache()  # the own-line vectors recall read (memories.own_vectors)
        self._pool: ConnectionPool[psycopg.Connection[TupleRow]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True},
            configure=_configure,
            check=self._check_idle,
            open=False,
            name="huiyi",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout)
            self._migrate()
        except BaseException as exc:
            self._pool.close()
            if isinstance(exc, psycopg.Error | TimeoutError):
                raise StoreError(f"cannot open the PostgreSQL store: {exc}") from exc
            raise

    # connections -----------------------------------------------------------------------------
    # a pooled connection idle this long is checked before it is lent: the server may have dropped it
    # (a restart, a failover, an idle timeout), and the call given it would fail for nothing
    idle_check_seconds = 1.0

    def _check_idle(self, conn: psycopg.Connection[TupleRow]) -> None:
        if time.monotonic() - getattr(conn, _USED, 0.0) >= self.idle_check_seconds:
            ConnectionPool.check_connection(conn)  # raises, and the pool replaces it

    @contextmanager
    def _cursor(self, transaction: bool) -> Iterator[Cursor]:
        if self._closed:
            raise StoreError("the store is closed")
        try:
            stack, conn = self._lent(transaction)
            with stack:
                try:
                    with conn.cursor() as cur:
                        yield cur
                finally:
                    setattr(conn, _USED, time.monotonic())
        except psycopg.errors.DiskFull as exc:  # a bot's add sees a huiyi error it can act on
            raise StoreFull(f"PostgreSQL: the disk is full; nothing of this call was written: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL: {exc}") from exc

    def _lent(self, transaction: bool) -> tuple[ExitStack, psycopg.Connection[TupleRow]]:
        """A pooled connection (in a transaction when asked), as a stack to close. A transaction's BEGIN
        is where a connection the server dropped shows: then another is taken, once, since nothing ran."""
        for attempt in range(2):
            stack = ExitStack()
            try:
                conn = stack.enter_context(self._pool.connection())
                if transaction:
                    stack.enter_context(conn.transaction())
                return stack, conn
            except psycopg.Error as exc:
                stack.__exit__(type(exc), exc, exc.__traceback__)  # the pool discards a broken connection
                if attempt or not _dropped(exc):
                    raise
                self._pool.check()  # a restart dropped the others too
        raise AssertionError("unreachable")

    def _write(self) -> AbstractContextManager[Cursor]:
        return self._cursor(transaction=True)

    def _rows(self, sql: str, args: Any = None) -> list[TupleRow]:
        try:
            with self._cursor(transaction=False) as cur:
                cur.execute(sql, args)
                return cur.fetchall()
        except StoreError as exc:
            if not _dropped(exc):
                raise
        # a read is safe to run again: once, when the server dropped its connection, after the pool has
        # replaced the others it dropped with it (a restart drops them all)
        self._pool.check()
        with self._cursor(transaction=False) as cur:
            cur.execute(sql, args)
            return cur.fetchall()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()

    # schema -------------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._write() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            cur.execute(VERSION_TABLE)
            current = self._version(cur)
            if current > len(MIGRATIONS):
                raise SchemaTooNew(
                    f"the database has schema version {current}, this huiyi knows {len(MIGRATIONS)}: upgrade huiyi"
                )
            for version in range(current + 1, len(MIGRATIONS) + 1):
                log.info("migrating the PostgreSQL store to schema version %d", version)
                cur.execute(MIGRATIONS[version - 1])
                cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))

    @staticmethod
    def _version(cur: Cursor) -> int:
        row = cur.execute("SELECT COALESCE(max(version), 0) FROM schema_migrations").fetchone()
        return int(row[0]) if row else 0

    def schema_version(self) -> int:
        with self._cursor(transaction=False) as cur:
            return self._version(cur)

    def embedding_model(self) -> tuple[str, int] | None:
        found = self._rows("SELECT value FROM meta WHERE key = 'embedding_model'")
        if not found:
            return None
        name, dim = json.loads(found[0][0])
        return str(name), int(dim)

    def set_embedding_model(self, name: str, dim: int) -> None:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO meta (key, value) VALUES ('embedding_model', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps([name, dim]),),
            )


def _dropped(exc: BaseException) -> bool:
    """Whether a call failed because its connection was lost (not for a timeout or its statement)."""
    cause = exc.__cause__ if isinstance(exc, StoreError) else exc
    if not isinstance(cause, psycopg.OperationalError) or isinstance(cause, PoolTimeout | QueryCanceled):
        return False
    return cause.sqlstate is None or cause.sqlstate.startswith(("08", "57P"))  # connection or shutdown


def _number(text: str) -> int | float:
    """A JSON integer as jsonb gives it back: one past 64 bits was a float (1e20 comes back as its 21 digits,
    which the store never takes as an integer: checks.check_json), read as SQLite's JSON gives it.

    >>> _number("42"), _number("100000000000000000000")
    (42, 1e+20)
    """
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else float(text)


def _configure(conn: psycopg.Connection[TupleRow]) -> None:
    # jsonb keeps numbers as numeric: 1e20 read back as a 21-digit integer, which an export of it then could not
    # import (helper); only integers in 64 bits are integers
    set_json_loads(functools.partial(json.loads, parse_int=_number), conn)
    # JIT compiling a vector scan costs more than the scan
    conn.execute("SET jit = off")
