"""The PostgreSQL store's pool: a connection the server dropped is replaced, not handed to a call."""

from __future__ import annotations

import psycopg
import pytest

import pg_server
from huiyi.model import JobState
from huiyi.store.postgres import PostgresStore


def _drop_connections(dsn: str) -> int:
    """Terminate every other session of the database, as a server restart or failover would."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'"
        ).fetchone()
    return int(row[0]) if row else 0


# 0: every connection is checked before it is lent; never: one just used is lent unchecked, and a call
# finds it dropped (a read is run again, a write's BEGIN fails before anything ran and takes another)
@pytest.mark.parametrize("idle_check", [0.0, 1e9], ids=["checked", "unchecked"])
def test_calls_after_the_server_dropped_the_pools_connections_succeed(idle_check: float) -> None:
    dsn = pg_server.fresh_dsn()
    store = PostgresStore(dsn, pool_size=3)
    store.idle_check_seconds = idle_check
    try:
        assert store.list_jobs("a", [JobState.PENDING]) == []
        assert _drop_connections(dsn) >= 1
        assert store.list_jobs("a", [JobState.PENDING]) == []  # a read, on a new connection
        assert _drop_connections(dsn) >= 1
        store.set_embedding_model("hash", 32)  # a write too
        assert _drop_connections(dsn) >= 1
        store.set_embedding_model("hash", 64)  # a write first
        assert store.embedding_model() == ("hash", 64)
    finally:
        store.close()
