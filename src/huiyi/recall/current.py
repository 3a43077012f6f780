"""Two open facts of one value: the newer is how things are, the older is history.

A home, a job, a partner hold one value at a time (``ONE_AT_A_TIME``). The fold closes the old value when
a new one is said, but a store written before that rule, an LLM that missed it, or a fact imported as it
was can hold both open: 木木住在上海 and 木木住在杭州, and the older one, which may say more of the
question's words, led. So for each recalled open fact of such a predicate the store is asked for the
subject's newest open one (as of the moment asked); when that is another fact, it takes the old one's
place and the old one goes to the end of the hits (``info["superseded"]``; the context leaves it out like a
closed fact). A question about the past (她以前住哪) keeps the ranking: the old value is its answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from huiyi.flows.extract.closes import one_at_a_time
from huiyi.model import MemoryItem, MemoryKind, RecallHit, Scope
from huiyi.recall.hits import hit_of
from huiyi.recall.validity import asks_past
from huiyi.store.base import OPEN, MemoryFilter, Store

__all__ = ["newest_first"]


def newest_first(
    store: Store,
    scopes: Sequence[Scope],
    query: str,
    hits: list[RecallHit],
    as_of: datetime | None,
    info: dict[str, object],
) -> list[RecallHit]:
    """``hits`` with each superseded open fact's newest value in its place and it at the end; the ids of
    the superseded ones go to ``info["superseded"]``."""
    if asks_past(query):
        return hits
    newest: dict[tuple[str, str], MemoryItem | None] = {}
    for hit in hits:
        key = _slot(hit, as_of)
        if key is not None and key not in newest:
            where = MemoryFilter(
                kinds=(MemoryKind.FACT,),
                subject=key[0],
                predicates=(key[1],),
                said_by=as_of,
                open_at=as_of or OPEN,
            )
            newest[key] = next(iter(store.find_memories(scopes, where, limit=1)), None)
    kept: list[RecallHit] = []
    old: list[RecallHit] = []
    placed: set[str] = set()
    for hit in hits:
        key = _slot(hit, as_of)
        current = newest.get(key) if key is not None else None
        if current is None or current.id == hit.id:
            if hit.id not in placed:
                kept.append(hit)
                placed.add(hit.id)
            continue
        old.append(hit)
        if current.id not in placed:  # the newest value takes the old one's place, with its score
            there = next((h for h in hits if h.id == current.id), None)
            kept.append(there if there is not None else hit_of(current, hit.score, {"current": 1.0}))
            placed.add(current.id)
    if old:
        info["superseded"] = [hit.id for hit in old]
    return [*kept, *old][: len(hits)]


def _slot(hit: RecallHit, as_of: datetime | None) -> tuple[str, str] | None:
    """(subject, predicate) of an open fact of one value, else None."""
    if hit.kind is not MemoryKind.FACT:
        return None
    if hit.valid_to is not None and (as_of is None or hit.valid_to.replace(tzinfo=None) <= as_of.replace(tzinfo=None)):
        return None
    subject, predicate = hit.data.get("subject"), hit.data.get("predicate")
    if not isinstance(subject, str) or not subject or not isinstance(predicate, str) or not one_at_a_time(predicate):
        return None
    return subject, str(predicate)
