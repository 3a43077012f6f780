"""The store contract for forgetting for good: what one erasure removed, and the call that does it.

Apart from ``huiyi.store.base`` (which joins it into ``Store``) only for the length of that module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass
class Erasure:
    """What one erasure removed, by kind; ``reindexed`` counts others' messages whose chunks held erased turns."""

    messages: int = 0
    memories: int = 0
    entities: int = 0
    jobs: int = 0
    persons: int = 0
    blocks: int = 0
    reindexed: int = 0


@runtime_checkable
class EraseStore(Protocol):
    """Forgetting for good: rows deleted in one transaction, then no byte of them left in the files."""

    def erase(
        self,
        agent: str,
        message_ids: Sequence[str],
        *,
        person: str | None = None,
        names: Sequence[str] = (),
        window: int = 0,
        speaker: str | None = None,
    ) -> Erasure:
        """Forget messages and everything made from them (memories whose sources hold one, jobs that name
        one); with ``person`` also everything of that person: every message they sent or received in
        their private chat or said in a group, their scope, working memory, record and core blocks,
        and the entities and facts named by ``names`` (their id, name and aliases; one another person
        goes by too only in the scopes they talk in). Other people's messages whose chunks held an erased
        turn, or embedded one (the ``window`` turns after it in its space), lose those chunks and are
        marked for indexing again. ``speaker``: the name their group lines are stored under (default
        ``person``; a member called like the agent speaks as ``flows.ingest.namesake``)."""

    def compact(self) -> None:
        """Rewrite the files so no freed byte of an erased row is left: the operator's call, as it may lock
        the store (PostgreSQL rewrites each table its erasures write; SQLite's erasures already did)."""
