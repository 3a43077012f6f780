"""Closed facts in ranking: how things were ranks below how things are, unless the question asks how they were.

A fact with ``valid_to`` set (superseded by a newer one, called off: 搬家泡汤, merged into a description) is
left out of the context already, but recall ranked it like an open one, and the message that stated the
old state too: "陈大川哪天搬家" found 这周六搬家, called off hours later, above 下周六搬 (issue #13, pl7).
:func:`closed_moves` lowers both; a question about the past (她以前住哪, 原来那家公司) keeps them where
meaning and words put them, since they are its answer.

    >>> asks_past("她以前住哪"), asks_past("陈大川原来打算哪天搬"), asks_past("陈大川哪天搬家")
    (True, True, False)
    >>> asks_past("Where did she live before moving?"), asks_past("Where does she live?")
    (True, False)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from huiyi.model import MemoryKind
from huiyi.patterns import lazy
from huiyi.store.base import RankRow

__all__ = ["asks_past", "closed_moves", "is_closed"]

# words that ask how things were: 以前住哪, 原来那家, 之前/本来/起初/当初/一开始打算, 上次说的, 曾经
_PAST_ZH = lazy(r"以前|之前|原来|原先|原本|本来|起初|当初|一开始|最早|最初|上次|上回|曾经|过去")
_PAST_EN = lazy(r"\b(?:before|used to|previous(?:ly)?|former(?:ly)?|original(?:ly)?|at first|back then)\b", re.I)


def asks_past(query: str) -> bool:
    """Whether the question (its last line: the lines before are the chat) asks how things were."""
    last = query.strip().rsplit("\n", 1)[-1]
    return _PAST_ZH.search(last) is not None or _PAST_EN.search(last) is not None


def is_closed(row: RankRow, now: datetime | None) -> bool:
    """A fact closed at or before ``now`` (a fact closed after the moment asked about was still open then)."""
    if row.kind is not MemoryKind.FACT or row.valid_to is None:
        return False
    return now is None or row.valid_to.replace(tzinfo=None) <= now.replace(tzinfo=None)


def closed_moves(
    keys: Sequence[int], rows: Mapping[int, RankRow | None], now: datetime | None, weight: float
) -> dict[int, float]:
    """``-weight`` for each closed fact among ``keys``, and for each chunk whose own message is the source
    of a closed fact there and of no open one (the message that said the old state; a message that says
    the new one too, 良渚那套定了，下周六搬, stays).

    >>> from datetime import timedelta
    >>> t = datetime(2024, 11, 14, 12)
    >>> def row(id_, kind, sources, closed=None):
    ...     return RankRow(id_, "s", kind, t, (), sources, "g", 1, "", 0.5, None, None, closed)
    >>> rows = {1: row("f1", MemoryKind.FACT, ("m1",), t), 2: row("c1", MemoryKind.CHUNK, ("m1",)),
    ...         3: row("f2", MemoryKind.FACT, ("m2",)), 4: row("c2", MemoryKind.CHUNK, ("m2",))}
    >>> closed_moves([1, 2, 3, 4], rows, t + timedelta(hours=1), 0.3)
    {1: -0.3, 2: -0.3}
    >>> closed_moves([1, 2, 3, 4], rows, t - timedelta(hours=1), 0.3)  # asked before it was closed
    {}
    """
    if weight <= 0:
        return {}
    closed_from: set[str] = set()
    open_from: set[str] = set()
    out: dict[int, float] = {}
    for key in keys:
        row = rows.get(key)
        if row is None or row.kind is not MemoryKind.FACT:
            continue
        if is_closed(row, now):
            out[key] = -weight
            closed_from.update(row.sources)
        else:
            open_from.update(row.sources)
    stale = closed_from - open_from
    if stale:
        for key in keys:
            row = rows.get(key)
            if row is not None and row.kind is MemoryKind.CHUNK and row.sources and row.sources[0] in stale:
                out[key] = -weight
    return out
