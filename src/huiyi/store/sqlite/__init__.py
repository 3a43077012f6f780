"""The embedded SQLite store, one module per aggregate of the contract.

``connection`` (the file, connections, migrations), ``messages`` (persons, core blocks, messages,
working memory), ``jobs``, ``memories`` (the write of a unit of work, memories read and changed),
``graph`` (entities, merges, links), ``search`` (dense and keyword), ``schema`` (the migrations);
``store`` composes them into ``SQLiteStore``.
"""

from __future__ import annotations

from huiyi.store.rows import from_epoch, partition_key, to_epoch
from huiyi.store.sqlite.connection import DB_NAME
from huiyi.store.sqlite.schema import statements as _statements
from huiyi.store.sqlite.store import SQLiteStore

__all__ = ["DB_NAME", "SQLiteStore", "_statements", "from_epoch", "partition_key", "to_epoch"]
