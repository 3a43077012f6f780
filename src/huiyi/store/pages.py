"""Where a listing of memories stopped, so the next page starts right after it.

A listing runs newest first by its sort key (``list_key``), then row number; a mark is the sort key and
row number of the last memory read. The key is a wall-clock time in the store's zone: ``said_at``, else
``time``, else ``created_at`` (stamped in UTC) read in that zone, so an undated note sorts among dated
memories by when it was written there, not 8 hours early in Shanghai. Rows after a mark stay after it
however many memories are written or deleted meanwhile, where an offset counts rows, which move (a
deletion skipped one, a newer memory repeated one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from huiyi.checks import wall_of
from huiyi.model import Entity, MemoryItem


def list_key(written_wall: str) -> str:
    """The sort key in SQL, given the backend's expression of ``created_at`` as the zone's wall clock."""
    return f"COALESCE(said_at, time, {written_wall})"


def list_order(key: str) -> str:
    """Newest first by ``key``; memories on one key, newest written first."""
    return f"{key} DESC, rowid DESC"


@dataclass(frozen=True)
class ListMark:
    key: datetime  # the memory's said_at, else its time, else its created_at in the zone (zone-less)
    row: int  # its row number: memories on one key go newest written first


Marked = tuple[MemoryItem, ListMark]
JobMark = tuple[datetime, str]  # a job's created_at and id: jobs list oldest first by both
ReportMark = tuple[datetime, str]  # a report's at and id: reports list newest first by both
EntityMarked = tuple[Entity, int]  # an entity and its row number: entities list in the order first written


def marked(found: Sequence[Sequence[Any]], items: Sequence[MemoryItem], zone: ZoneInfo) -> list[Marked]:
    """Each memory with its mark, its key as the store's ``list_key`` in ``zone`` reckons it; ``found`` are
    its rows (``MEMORY_COLUMNS``: the row number first)."""
    out: list[Marked] = []
    for row, item in zip(found, items, strict=True):
        key = item.said_at or item.time or wall_of(item.created_at, zone)
        assert key is not None  # created_at is never null
        out.append((item, ListMark(key, int(row[0]))))
    return out
