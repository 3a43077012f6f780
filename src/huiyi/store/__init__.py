"""Stores: one contract (``base.Store``) and two backends behind it, each a package of its own.

``sqlite`` is the embedded store, ``postgres`` the server store (needs ``huiyi[postgres]``); ``rows``
is what they share, ``router`` spreads agents over several stores, ``vectors`` is SQLite's in-process
vector cache. ``open_store`` picks the backend by what the path or config names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from huiyi.store.base import Store, TurnContext


class StoreSettings(Protocol):
    """What ``open_store`` reads of the configuration (``huiyi.config.StoreConfig``)."""

    @property
    def url(self) -> str: ...

    @property
    def pool_size(self) -> int: ...

    @property
    def vector_cache_mb(self) -> int: ...

    @property
    def busy_timeout_ms(self) -> int: ...

    @property
    def synchronous(self) -> str: ...


def open_store(path: str | Path, config: StoreSettings, context: TurnContext | None = None) -> Store:
    """The store a path or config names: a PostgreSQL URL, or a ``key=value`` DSN with a ``dbname``
    (in ``path`` or ``store.url``), opens PostgreSQL (needs ``huiyi[postgres]``); anything else is a
    directory for the embedded SQLite store. ``context``: how turn-alone chunks score with their
    context turns (the chunk section's; the contract's default without)."""
    url = _postgres_url(path, config)
    if url:
        from huiyi.store.postgres import PostgresStore

        return PostgresStore(url, pool_size=config.pool_size, context=context)
    from huiyi.store.sqlite import SQLiteStore

    return SQLiteStore(
        path,
        vector_cache_mb=config.vector_cache_mb,
        busy_timeout_ms=config.busy_timeout_ms,
        synchronous=config.synchronous,
        context=context,
    )


def names_postgres(path: str | Path, config: StoreSettings) -> bool:
    """Whether ``open_store`` opens PostgreSQL for this path and config (else a SQLite folder)."""
    return bool(_postgres_url(path, config))


def store_label(path: str | Path, config: StoreSettings) -> str:
    """The store ``open_store`` opens, for people to read: the directory, or the DSN without its password."""
    url = _postgres_url(path, config)
    if not url:
        return str(path)
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict(url)
    if "password" not in params:
        return url
    return make_conninfo(
        **{key: str(value) for key, value in params.items() if key != "password" and value is not None}
    )


def _postgres_url(path: str | Path, config: StoreSettings) -> str:
    """``store.url``, else ``path`` if it names PostgreSQL (a URL or a DSN with a ``dbname``), else ""."""
    text = str(path)
    return config.url or (text if text.startswith(("postgresql://", "postgres://")) or "dbname=" in text else "")
