"""Which memories of one unit of work are made, however many steps away, from what is no longer stored."""

from __future__ import annotations

from collections.abc import Sequence

from huiyi.model import MemoryItem

__all__ = ["made_from_gone"]


def made_from_gone(items: Sequence[MemoryItem], made_from: Sequence[Sequence[str]], missing: set[str]) -> set[str]:
    """``missing`` and the ids of the ``items`` made from it, however many steps away: a summary of a merge
    that is not written goes with it."""
    missing = set(missing)
    while True:
        dropped = {item.id for item, ids in zip(items, made_from, strict=True) if not missing.isdisjoint(ids)} - missing
        if not dropped:
            return missing
        missing |= dropped
