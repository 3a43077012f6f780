"""The server store: PostgreSQL with pgvector, through psycopg 3 and a connection pool.

Same contract as the SQLite store (``huiyi.store.base``); what differs is where the work happens.
Vectors are ``halfvec`` columns scanned exactly in SQL within the caller's scopes; keyword search is
BM25 over ``tsvector``s of the pre-tokenised text (``search_sql`` explains both); jobs are rows
taken with ``FOR UPDATE SKIP LOCKED`` under a lease; every write is one transaction. Any number of
processes may share one database: there is no in-process cache to go stale.

Times are stored as ``timestamp`` (no zone), the wall-clock value the caller gave, as SQLite does.
The database user needs ``CREATE`` on the database the first time (``CREATE EXTENSION vector`` and the
tables); after that only reads and writes of the tables.

``PostgresStore`` is composed of one part per aggregate, each a mixin over ``PostgresConnection``; it
holds the one read of two aggregates, recall's first (``unindexed_with_versions``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from huiyi.model import Message, Scope
from huiyi.store.base import NameVersions, TurnContext
from huiyi.store.postgres.erase import PostgresErase
from huiyi.store.postgres.graph import ENTITIES_VERSION, PostgresGraph
from huiyi.store.postgres.jobs import PostgresJobs
from huiyi.store.postgres.memories import PostgresMemories
from huiyi.store.postgres.messages import PERSONS_VERSION, UNINDEXED_TEXTS, PostgresMessages, of_scopes
from huiyi.store.postgres.search import PostgresSearch
from huiyi.store.purges import Purges
from huiyi.store.rows import entities_version, partition_keys

# the scopes' entities version and their agent's persons version beside their newest unindexed texts, in one
# statement (one snapshot): the versions' one row, joined to each text, or alone when nothing waits
_VERSIONS_AND_TEXTS = (
    f"SELECT v.*, ({PERSONS_VERSION}), t.* FROM ({ENTITIES_VERSION}) v LEFT JOIN LATERAL ({UNINDEXED_TEXTS}) t ON true"
)


class PostgresStore(PostgresMessages, PostgresJobs, PostgresErase, PostgresMemories, PostgresGraph, PostgresSearch):
    """``PostgresStore("postgresql://user@host/db")`` migrates the database if needed and pools connections."""

    def __init__(
        self, dsn: str, *, pool_size: int = 8, connect_timeout: float = 15.0, context: TurnContext | None = None
    ) -> None:
        self._purges = Purges(self._purge_marked, "PostgreSQL")  # before the open, which may ask for one
        super().__init__(dsn, pool_size=pool_size, connect_timeout=connect_timeout, context=context)
        try:
            self.finish_vacuum()  # an erasure whose process died before its vacuum: behind the open
        except BaseException:
            self.close()
            raise

    def unindexed_with_versions(
        self, limit: int, scopes: Sequence[Scope], keep: Callable[[str], bool] | None = None
    ) -> tuple[list[Message], NameVersions]:
        if not scopes:
            return [], NameVersions(self.entities_version(scopes), 0)
        either, args = of_scopes(scopes)
        sql = _VERSIONS_AND_TEXTS.format(either=either)
        found = self._rows(sql, (scopes[0].agent, partition_keys(scopes), *args, limit))
        versions = NameVersions(entities_version(int(found[0][0]), int(found[0][1])), int(found[0][2]))
        return self.kept_messages([row[3:] for row in found], keep or (lambda _: True)), versions
