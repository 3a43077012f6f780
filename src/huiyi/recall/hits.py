"""A stored memory as a recall hit: every stage that returns memories builds them the same way."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from huiyi.model import MemoryItem, RecallHit
from huiyi.store.rows import trusted

__all__ = ["RouteScores", "hit_of"]


class RouteScores(Mapping[str, float]):
    """A candidate's raw score on each route (``raw``: route -> store key -> score), to 6 places as hits
    show it, worked out when first read: fusion hands on 50 candidates and returns ten (issue 15)."""

    __slots__ = ("_key", "_raw", "_scores")

    def __init__(self, raw: Mapping[str, Mapping[int, float]], key: int) -> None:
        self._raw = raw
        self._key = key
        self._scores: dict[str, float] | None = None

    def _read(self) -> dict[str, float]:
        if self._scores is None:
            self._scores = {route: round(scores.get(self._key, 0.0), 6) for route, scores in self._raw.items()}
        return self._scores

    def __getitem__(self, route: str) -> float:
        return self._read()[route]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._raw)


def _plain(route_scores: Mapping[str, float] | None) -> dict[str, float]:
    """A hit's own dict of the scores; a :class:`RouteScores` hands over its rounded dict in one step
    (``dict()`` of a Mapping went through ``keys`` and ``__getitem__`` in Python for each route)."""
    if isinstance(route_scores, RouteScores):
        return dict(route_scores._read())
    return dict(route_scores) if route_scores else {}


def hit_of(item: MemoryItem, score: float, route_scores: Mapping[str, float] | None = None) -> RecallHit:
    """``item`` as a hit with ``score``; its fields were validated when it was read, and validating them
    again cost a tenth of a recall."""
    return trusted(
        RecallHit,
        {
            "id": item.id,
            "kind": item.kind,
            "text": item.text,
            "score": score,
            "route_scores": _plain(route_scores),
            "time": item.time,
            "scope": item.scope,
            "sources": item.sources,
            "place": item.place,
            "keywords": item.keywords,
            "insight": item.insight,
            "data": item.data,
            "valid_to": item.valid_to,
            "said_at": item.said_at,
        },
    )
