"""The PostgreSQL store (needs ``huiyi[postgres]``), one module per aggregate of the contract.

``connection`` (the pool, migrations), ``messages`` (persons, core blocks, messages, working memory),
``jobs``, ``memories`` (the write of a unit of work, memories read and changed), ``graph`` (entities,
merges, links), ``search`` (dense and keyword) with its SQL in ``search_sql``, ``schema`` (the
migrations); ``store`` composes them into ``PostgresStore``.
"""

from __future__ import annotations

from huiyi.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
