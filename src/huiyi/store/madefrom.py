"""Which memories of one unit of work are made, however many steps away, from what is no longer stored."""

from __future__ import annotations

from collections.abc import Sequence

from huiyi.errors import StoreError
from huiyi.model import MemoryItem

__all__ = ["left_unindexed", "made_from_gone", "to_look_up"]


def to_look_up(items: Sequence[MemoryItem], made_from: Sequence[Sequence[str]]) -> dict[str, list[str]]:
    """By agent, what ``items`` were made from (``made_from``: one list per item) but themselves, sorted: the
    ids a store looks up among its messages and memories."""
    if len(made_from) != len(items):
        raise StoreError("made_from needs one list per memory")
    wanted: dict[str, set[str]] = {}
    for item, ids in zip(items, made_from, strict=True):
        wanted.setdefault(item.scope.agent, set()).update(ids)
    written = {item.id for item in items}
    return {agent: sorted(ids - written) for agent, ids in wanted.items() if ids - written}


def made_from_gone(items: Sequence[MemoryItem], made_from: Sequence[Sequence[str]], missing: set[str]) -> set[str]:
    """``missing`` and the ids of the ``items`` made from it, however many steps away: a summary of a merge
    that is not written goes with it."""
    missing = set(missing)
    while True:
        dropped = {item.id for item, ids in zip(items, made_from, strict=True) if not missing.isdisjoint(ids)} - missing
        if not dropped:
            return missing
        missing |= dropped


def left_unindexed(
    items: Sequence[MemoryItem], unmade: set[str], indexed: Sequence[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The (agent, id) of ``indexed`` messages whose chunk is left unwritten (``unmade``: made of turns an erasure
    took since they were read, its words in the vector): they stay unindexed and unclaimed, and are indexed again
    from the turns stored then. A chunk's anchor message is its first source."""
    anchors = {(item.scope.agent, item.sources[0]) for item in items if item.id in unmade and item.sources}
    return anchors.intersection(indexed)
