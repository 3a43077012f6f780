"""Spread the answer over the chat: a turn next to one already returned gives way to a match elsewhere.

The neighbour bonus lifts a stretch of talk about the question's topic, and the context each chunk is
embedded with makes adjacent turns look alike: half of LoCoMo's top ten were within two turns of a
better hit. A question whose answer lies in several sessions ("what activities does Melanie do?") then
gets one session's stretch and loses the others. So the ranking is re-taken greedily, MMR-like: each
turn's score is scaled by ``1 - weight`` for every turn within ``turns`` of it (same chat) or sharing a
source with it that is already taken. The first hit never moves; a stretch's second turn still comes
when nothing else comes close.

    >>> from collections import namedtuple
    >>> Row = namedtuple("Row", "kind space seq sources")
    >>> from huiyi.model import MemoryKind
    >>> rows = {1: Row(MemoryKind.CHUNK, "s", 10, ("a",)), 2: Row(MemoryKind.CHUNK, "s", 11, ("b",)),
    ...         3: Row(MemoryKind.CHUNK, "s", 40, ("c",)), 4: Row(MemoryKind.FACT, "s", None, ("a",))}
    >>> window = [(1, (1.0, {})), (2, (0.9, {})), (4, (0.85, {})), (3, (0.8, {}))]
    >>> ranked, cut = spread(window, rows, 0.2, 2)
    >>> [key for key, _ in ranked], {key: round(value, 2) for key, value in cut.items()}
    ([1, 3, 2, 4], {2: -0.18, 4: -0.17})
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Protocol

from huiyi.model import MemoryKind

__all__ = ["spread"]

Window = list[tuple[int, tuple[float, dict[str, float]]]]


class _Row(Protocol):  # what spread reads of a RankRow
    @property
    def kind(self) -> MemoryKind: ...
    @property
    def space(self) -> str: ...
    @property
    def seq(self) -> int | None: ...
    @property
    def sources(self) -> tuple[str, ...]: ...


def spread(
    window: Window, rows: Mapping[int, _Row | None], weight: float, turns: int
) -> tuple[Window, dict[int, float]]:
    """The window re-taken greedily with each candidate scaled by ``(1 - weight) ** n`` (``n``: taken
    candidates near it), and what each candidate lost, by key."""
    if weight <= 0 or len(window) < 2:
        return window, {}
    placed: dict[tuple[str, int], int] = {}
    by_source: dict[str, list[int]] = {}
    for key, _ in window:
        row = rows.get(key)
        if row is None:
            continue
        if row.kind is MemoryKind.CHUNK and row.seq is not None:
            placed.setdefault((row.space, row.seq), key)
        for source in row.sources:
            by_source.setdefault(source, []).append(key)

    def near(key: int) -> set[int]:
        row = rows.get(key)
        if row is None:
            return set()
        out = {other for source in row.sources for other in by_source.get(source, ())}
        if row.kind is MemoryKind.CHUNK and row.seq is not None:
            for step in range(-turns, turns + 1):
                other = placed.get((row.space, row.seq + step))
                if other is not None:
                    out.add(other)
        out.discard(key)
        return out

    keep = 1.0 - weight
    score = {key: value for key, (value, _) in window}
    parts = {key: value for key, (_, value) in window}
    order = {key: i for i, (key, _) in enumerate(window)}
    count = dict.fromkeys(score, 0)
    heap = [(-value, order[key], key, 0) for key, value in score.items()]
    heapq.heapify(heap)
    taken: set[int] = set()
    out: Window = []
    lost: dict[int, float] = {}
    while heap:
        negative, _, key, seen = heapq.heappop(heap)
        if key in taken:
            continue
        if seen != count[key]:  # it lost more since it was pushed: back in at its present score
            heapq.heappush(heap, (-score[key] * keep ** count[key], order[key], key, count[key]))
            continue
        taken.add(key)
        if count[key]:
            lost[key] = -negative - score[key]
        out.append((key, (-negative, parts[key])))
        for other in near(key):
            if other not in taken:
                count[other] += 1
    return out, lost
