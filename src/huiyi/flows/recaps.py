"""The overview's choice of each conversation, kept between turns while the events it chose among stay.

Choosing (:func:`recap`) reads whose each message the events cite was, and cuts every event into words: a
few milliseconds of every ``Memory.context``, for the same answer turn after turn. A choice is served again
only for the same latest events, to the last thing ``recap`` weighs (id, text, importance, participants,
sources and day, in the same zone): a rewritten summary, a corrected or new event is chosen afresh. An
erased message takes every event citing it along (``EraseStore.erase``), so no later key holds it; the keys
are digests, so no erased text stays behind in one. Only ids are kept: the items served are the caller's
own, just read.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import tzinfo

from huiyi.flows.substance import _said_day, recap
from huiyi.model import MemoryItem, Scope

__all__ = ["Recaps"]


class Recaps:
    """The latest choices of ``recap``, by conversation; the least recently asked go past ``most``."""

    def __init__(self, most: int = 1024) -> None:
        self._most = most
        self._chosen: OrderedDict[tuple[str, Scope], tuple[bytes, frozenset[str]]] = OrderedDict()
        self._lock = threading.Lock()

    def recap(
        self,
        agent: str,
        scope: Scope,
        latest: Sequence[MemoryItem],
        size: int,
        zone: tzinfo,
        spoken: Callable[[list[str]], Mapping[str, bool]],
    ) -> list[MemoryItem]:
        """``recap(latest, agent, size, spoken(cited ids), zone)``, the messages read only when ``latest``
        changed since this conversation's last overview."""
        key = _digest(latest, size, zone)
        with self._lock:
            kept = self._chosen.get((agent, scope))
        if kept is not None and kept[0] == key:
            chosen = kept[1]
        else:
            cited = list(dict.fromkeys(source for item in latest for source in item.sources))
            by_agent = spoken(cited) if cited else {}
            chosen = frozenset(item.id for item in recap(list(latest), agent, size, by_agent, zone))
        with self._lock:
            self._chosen[agent, scope] = (key, chosen)
            self._chosen.move_to_end((agent, scope))
            while len(self._chosen) > self._most:
                self._chosen.popitem(last=False)
        return [item for item in reversed(latest) if item.id in chosen]


def _digest(latest: Sequence[MemoryItem], size: int, zone: tzinfo) -> bytes:
    weighed = [
        (item.id, item.text, item.importance, item.participants, item.sources, _said_day(item, zone)) for item in latest
    ]
    return hashlib.blake2b(repr((size, str(zone), weighed)).encode(), digest_size=16).digest()
