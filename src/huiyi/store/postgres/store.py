"""The server store: PostgreSQL with pgvector, through psycopg 3 and a connection pool.

Same contract as the SQLite store (``huiyi.store.base``); what differs is where the work happens.
Vectors are ``halfvec`` columns scanned exactly in SQL within the caller's scopes; keyword search is
BM25 over ``tsvector``s of the pre-tokenised text (``search_sql`` explains both); jobs are rows
taken with ``FOR UPDATE SKIP LOCKED`` under a lease; every write is one transaction. Any number of
processes may share one database: there is no in-process cache to go stale.

Times are stored as ``timestamp`` (no zone), the wall-clock value the caller gave, as SQLite does.
The database user needs ``CREATE`` on the database the first time (``CREATE EXTENSION vector`` and the
tables); after that only reads and writes of the tables.

``PostgresStore`` is composed of one part per aggregate, each a mixin over ``PostgresConnection``.
"""

from __future__ import annotations

from huiyi.store.base import TurnContext
from huiyi.store.postgres.erase import PostgresErase
from huiyi.store.postgres.graph import PostgresGraph
from huiyi.store.postgres.jobs import PostgresJobs
from huiyi.store.postgres.memories import PostgresMemories
from huiyi.store.postgres.messages import PostgresMessages
from huiyi.store.postgres.search import PostgresSearch


class PostgresStore(PostgresMessages, PostgresJobs, PostgresErase, PostgresMemories, PostgresGraph, PostgresSearch):
    """``PostgresStore("postgresql://user@host/db")`` migrates the database if needed and pools connections."""

    def __init__(
        self, dsn: str, *, pool_size: int = 8, connect_timeout: float = 15.0, context: TurnContext | None = None
    ) -> None:
        super().__init__(dsn, pool_size=pool_size, connect_timeout=connect_timeout, context=context)
        try:
            self.finish_vacuum()  # an erasure whose process died before its vacuum
        except BaseException:
            self.close()
            raise
