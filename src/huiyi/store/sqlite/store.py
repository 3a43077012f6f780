"""The embedded store: one SQLite file per store directory (WAL, FTS5, vectors scanned with numpy).

``SQLiteStore`` is the whole ``Store`` contract, composed of one part per aggregate: each part is a
mixin over ``SQLiteConnection`` (the file, its connections and the write transaction) in a module of
its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from huiyi.model import Message, Scope
from huiyi.store.base import NameVersions, TurnContext
from huiyi.store.owncache import OwnVectorCache
from huiyi.store.postings import PostingCache
from huiyi.store.purges import Purges
from huiyi.store.rankcache import RankCache
from huiyi.store.rows import Kept
from huiyi.store.sqlite.erase import SQLiteErase
from huiyi.store.sqlite.graph import SQLiteGraph
from huiyi.store.sqlite.jobs import SQLiteJobs
from huiyi.store.sqlite.memories import SQLiteMemories
from huiyi.store.sqlite.messages import SQLiteMessages
from huiyi.store.sqlite.search import SQLiteSearch
from huiyi.store.vectors import ExactIndex


class SQLiteStore(SQLiteMessages, SQLiteJobs, SQLiteErase, SQLiteMemories, SQLiteGraph, SQLiteSearch):
    """The default store. ``SQLiteStore(directory)`` creates the directory and database if needed."""

    def __init__(
        self,
        directory: str | Path,
        *,
        vector_cache_mb: int = 512,
        busy_timeout_ms: int = 10000,
        synchronous: str = "normal",
        context: TurnContext | None = None,
    ) -> None:
        self._purges = Purges(self._purge_marked, str(directory))  # before the open, which may ask for one
        super().__init__(directory, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous)
        self._vectors = ExactIndex(self._load_partition, vector_cache_mb * 2**20, context)
        self._ranks = RankCache()
        # the hits' rows: ten a recall, often the same ones again (~1 kB a row: 2 MB at most)
        self._hit_rows: RankCache[Kept] = RankCache(budget=2_000, key=_kept_id)
        self._own = OwnVectorCache()
        self._postings = PostingCache()
        self.finish_purge()

    def unindexed_with_versions(
        self, limit: int, scopes: Sequence[Scope], keep: Callable[[str], bool] | None = None
    ) -> tuple[list[Message], NameVersions]:
        persons = self.persons_version(scopes[0].agent) if scopes else 0
        return self.unindexed_messages(limit, scopes, keep), NameVersions(self.entities_version(scopes), persons)


def _kept_id(row: Kept) -> str:
    return str(row[0]["id"])
