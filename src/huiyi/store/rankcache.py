"""The rows recall read before, kept per partition under the partition's version.

Each recall reads ``Store.rank_rows`` for its ~100 best candidates; in one scope they are mostly the
same rows query after query, and reading and decoding them again was a fifth of a recall without the
embedding (issue 15). The rows of the hits it returns come back as often (``Store.recall_memories``).
A row is served from here only while its partition's version, read from the database by the caller
on every call, is the one it was read under: every write to a partition's memories (add, erase,
update) bumps that version, in this process or another, so a changed row is never served. Rows are
kept for ``budget`` rows at most, whole partitions evicted oldest first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = ["RankCache"]

R = TypeVar("R")


@dataclass
class _Part(Generic[R]):
    agent: str
    version: int
    rows: dict[str, R] = field(default_factory=dict)


def _id_of(row: Any) -> str:
    return str(row.id)


class RankCache(Generic[R]):
    """Rows (rank rows unless told) by (agent, memory id), each valid for one version of its partition;
    ``key`` gives a row's memory id."""

    # ~0.7 kB a row (names and scopes interned by rows.rank_rows): 60,000 rows, ~43 MB at most, keep the last
    # recall's candidates of 600 scopes. At 18,000 a bot serving 200 people cycled through it and missed every
    # time: issue 15's 1M bench (200 questions, 200 scopes) read every row again, 6.7 ms a recall, not 3.2
    def __init__(self, budget: int = 60_000, key: Callable[[R], str] = _id_of) -> None:
        self._budget = budget
        self._key = key
        self._parts: OrderedDict[str, _Part[R]] = OrderedDict()
        self._where: dict[str, dict[str, str]] = {}  # agent -> memory id -> its partition
        self._size = 0
        self._lock = threading.Lock()

    def parts_of(self, agent: str, ids: Iterable[str]) -> set[str]:
        """The partitions the cached ones among ``ids`` were read from."""
        with self._lock:
            where = self._where.get(agent, {})
            return {part for i in ids if (part := where.get(i)) is not None}

    def get(self, agent: str, ids: Sequence[str], versions: Mapping[str, int]) -> tuple[dict[str, R], list[str]]:
        """The rows of ``ids`` cached under their partition's current version (``versions``, read from
        the database), and the ids to read."""
        found: dict[str, R] = {}
        missing: list[str] = []
        with self._lock:
            current: dict[str | None, dict[str, R]] = {}  # the partitions still at their version
            for part, version in versions.items():
                entry = self._parts.get(part)
                if entry is not None and entry.version == version:
                    current[part] = entry.rows
                    self._parts.move_to_end(part)
            where = self._where.get(agent, {})
            for memory_id in ids:
                rows = current.get(where.get(memory_id))
                row = rows.get(memory_id) if rows is not None else None
                if row is None:
                    missing.append(memory_id)
                else:
                    found[memory_id] = row
        return found, missing

    def put(self, agent: str, read: Iterable[tuple[str, int, R]]) -> None:
        """Rows read from the database, each with its partition and that partition's version as of the
        same read (one statement: the version is never newer than the row)."""
        with self._lock:
            where = self._where.setdefault(agent, {})
            for part, version, row in read:
                entry = self._parts.get(part)
                if entry is None or entry.version != version:
                    if entry is not None:
                        self._drop(part)
                    entry = self._parts[part] = _Part(agent, version)
                memory_id = self._key(row)
                if memory_id not in entry.rows:
                    self._size += 1
                entry.rows[memory_id] = row
                where[memory_id] = part
            while self._size > self._budget and len(self._parts) > 1:
                self._drop(next(iter(self._parts)))

    def forget(self, parts: Iterable[str]) -> None:
        """Drop partitions (erased in this process: their rows are gone)."""
        with self._lock:
            for part in parts:
                if part in self._parts:
                    self._drop(part)

    def clear(self) -> None:
        with self._lock:
            self._parts.clear()
            self._where.clear()
            self._size = 0

    def _drop(self, part: str) -> None:
        entry = self._parts.pop(part)
        self._size -= len(entry.rows)
        where = self._where.get(entry.agent, {})
        for memory_id in entry.rows:
            if where.get(memory_id) == part:
                del where[memory_id]
