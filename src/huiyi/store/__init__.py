"""Stores: one contract (``base.Store``), an embedded SQLite backend and a PostgreSQL one."""

from __future__ import annotations

from pathlib import Path

from huiyi.config import StoreConfig
from huiyi.store.base import Store


def open_store(path: str | Path, config: StoreConfig) -> Store:
    """The store a path or config names: a PostgreSQL URL, or a ``key=value`` DSN with a ``dbname``
    (in ``path`` or ``store.url``), opens PostgreSQL (needs ``huiyi[postgres]``); anything else is a
    directory for the embedded SQLite store."""
    text = str(path)
    url = config.url or (text if text.startswith(("postgresql://", "postgres://")) or "dbname=" in text else "")
    if url:
        from huiyi.store.postgres import PostgresStore

        return PostgresStore(url, pool_size=config.pool_size)
    from huiyi.store.sqlite import SQLiteStore

    return SQLiteStore(path, vector_cache_mb=config.vector_cache_mb, busy_timeout_ms=config.busy_timeout_ms)
