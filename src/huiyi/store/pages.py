"""Where a listing of memories stopped, so the next page starts right after it.

A listing runs newest first by ``LIST_ORDER``; a mark is the sort key and row number of the last
memory read. Rows after a mark stay after it however many memories are written or deleted meanwhile,
where an offset counts rows, which move (a deletion skipped one, a newer memory repeated one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from huiyi.model import Entity, MemoryItem

LIST_KEY = "COALESCE(said_at, time, created_at)"
LIST_ORDER = f"{LIST_KEY} DESC, rowid DESC"


@dataclass(frozen=True)
class ListMark:
    key: datetime  # the memory's said_at, else its time, else its created_at (zone-less, as stored)
    row: int  # its row number: memories on one key go newest written first


Marked = tuple[MemoryItem, ListMark]
JobMark = tuple[datetime, str]  # a job's created_at and id: jobs list oldest first by both
ReportMark = tuple[datetime, str]  # a report's at and id: reports list newest first by both
EntityMarked = tuple[Entity, int]  # an entity and its row number: entities list in the order first written


def marked(found: Sequence[Sequence[Any]], items: Sequence[MemoryItem]) -> list[Marked]:
    """Each memory with its mark; ``found`` are its rows (``MEMORY_COLUMNS``: the row number first)."""
    out: list[Marked] = []
    for row, item in zip(found, items, strict=True):
        key = item.said_at or item.time or item.created_at
        assert key is not None  # created_at is never null
        out.append((item, ListMark(key, int(row[0]))))
    return out
