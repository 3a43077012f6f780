"""The store contract for forgetting for good: what one erasure removed, and the call that does it.

Apart from ``huiyi.store.base`` (which joins it into ``Store``) only for the length of that module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Protocol, runtime_checkable

from huiyi.model import Job, Message

# the folds that extract messages again, planned inside the erasure's transaction: a kill after its commit
# cannot leave a group's lines unextracted
Refold = Callable[[Sequence[Message]], Sequence[Job]]


@dataclass
class Erasure:
    """What one erasure removed, by kind; ``reindexed`` counts others' messages whose chunks held erased turns;
    ``purged``: whether the store's files held none of its bytes when the call returned (the purge runs
    behind the call unless the caller waited for it)."""

    messages: int = 0
    memories: int = 0
    entities: int = 0
    jobs: int = 0
    persons: int = 0
    blocks: int = 0
    reindexed: int = 0
    purged: bool = False
    # others' messages an event or fact that went was made from too, and of which nothing extracted is left:
    # folds of them were queued again in the erasure's transaction (``refold``), so a group keeps its events
    # when one member is forgotten (no count: no part of any report)
    refold: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def counts(self) -> dict[str, int]:
        """What went, by kind: every field but ``purged`` and ``refold``."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("purged", "refold")}

    def __add__(self, other: Erasure) -> Erasure:
        """Two erasures of one call as one (``purged`` as this one's)."""
        summed = Erasure(purged=self.purged, refold=(*self.refold, *other.refold))
        for name, count in self.counts().items():
            setattr(summed, name, count + getattr(other, name))
        return summed


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
        refold: Refold | None = None,
    ) -> Erasure:
        """Forget messages and everything made from them (memories whose sources hold one, jobs that name
        one); with ``person`` also everything of that person: every message they sent or received in
        their private chat or said in a group, their scope, working memory, record and core blocks,
        and the entities and facts named by ``names`` (their id, name and aliases; one another person
        goes by too only in the scopes they talk in). Other people's messages whose chunks held an erased
        turn, or embedded one (the ``window`` turns after it in its space), lose those chunks and are
        marked for indexing again. ``speaker``: the name their group lines are stored under (default
        ``person``; a member called like the agent speaks as ``flows.ingest.namesake``). ``refold`` plans
        the jobs extracting ``Erasure.refold`` again; they are queued in the same transaction.

        Nothing erased is read again once it returns. The purge of the files (no byte of the rows left
        in them) runs behind it, in short steps (``purged`` waits for it); a mark written in the
        erasure's transaction has the store's next open run it if this process dies first."""

    def purged(self, timeout: float | None = None) -> bool:
        """Wait until the files hold no byte of the erasures made through this store object (and of those a
        dead process left unpurged when it opened): True then; False once ``timeout`` seconds have passed
        (None: no bound) or a purge failed (it is tried again)."""

    def compact(self) -> None:
        """Rewrite the files so no freed byte of an erased row is left: the operator's call, as it may lock
        the store (PostgreSQL rewrites each table its erasures write; SQLite's purges already did, and this
        waits for the pending ones)."""
