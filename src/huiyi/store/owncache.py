"""The own-line vectors recall read before (``Store.own_vectors``), kept by memory id.

recall.own_floor reads the own-line vectors of its 200 best dense candidates on every recall; in one
scope they are mostly the same ones query after query, and reading them was a third of a recall without
the embedding. A memory's own-line vector is written with it and never changes, so an id's entry stays
right until the memory goes: every deletion (an erasure, a text edited, which writes the memory again
without one) in this process empties the cache. A chunk erased or edited in another process and written
again under the same id keeps its old vector here until evicted or this process deletes anything: a
score, never a text, since the candidate itself is read fresh.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import cast

import numpy as np

from huiyi.store.base import OwnVectors
from huiyi.store.vectors import from_bfloat16, to_bfloat16, well_sized

__all__ = ["OwnVectorCache", "own_vectors"]

log = logging.getLogger(__name__)

_NONE = b""  # asked for, and the memory has none
_AGENT = itemgetter(0)  # a kept row's agent and bytes
_BLOB = itemgetter(1)


class OwnVectorCache:
    """Own-line vectors (float16 bytes as stored, or bfloat16 once rounded: ``own_vectors``) by (agent,
    memory id), the least recently used evicted past ``budget``. A memory without one (a fact, an event, a
    chunk indexed without) is kept as empty bytes, so it is not asked for again. Bytes, not arrays: a tenth
    of the overhead per row, and rows read together become one matrix in one step."""

    # 384 dims: ~30 MB at most (peak RSS, issue 15: 218 -> 237 MB at 100k). 6 000 rows held 30 recalls'
    # 200: asked in turn in more scopes than that (bench's 200 probes in 100), every row was read again
    def __init__(self, budget: int = 40_000) -> None:
        self._budget = budget
        # by memory id, each row with its agent: a string key hashes once, where a tuple key hashed on
        # every one of the 200 look-ups a recall makes (ids are unique; another agent's id is a miss)
        self._rows: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, agent: str, ids: Sequence[str]) -> tuple[dict[str, bytes], list[str]]:
        """The cached ones among ``ids`` and the ids not cached."""
        found: dict[str, bytes] = {}
        missing: list[str] = []
        rows = self._rows
        with self._lock:
            entries = cast("list[tuple[str, bytes]]", list(map(rows.get, ids)))  # None where not kept
            if None not in entries and all(map(agent.__eq__, map(_AGENT, entries))):  # all kept: loops in C
                deque(map(rows.move_to_end, ids), maxlen=0)
                return dict(zip(ids, map(_BLOB, entries), strict=True)), missing
            for i in ids:
                row = rows.get(i)
                if row is None or row[0] != agent:
                    missing.append(i)
                else:
                    rows.move_to_end(i)
                    found[i] = row[1]
        return found, missing

    def put(self, agent: str, rows: Mapping[str, bytes]) -> None:
        with self._lock:
            for i, row in rows.items():
                self._rows[i] = (agent, row)
                self._rows.move_to_end(i)
            while len(self._rows) > self._budget:
                self._rows.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()


def own_vectors(
    cache: OwnVectorCache,
    agent: str,
    ids: Sequence[str],
    read: Callable[[list[str]], Mapping[str, bytes]],
    bfloat16: bool = False,
) -> OwnVectors:
    """``Store.own_vectors`` through ``cache``: ``read`` gives the float16 bytes of the ids not cached
    (those it leaves out have none), and every row found becomes float32 in one matrix. ``bfloat16``:
    rounded as the embedded store's partitions hold vectors (store.vectors), so a line whose own vector is
    its chunk's scores the same by both (recall.anchor compares them to 1e-4). The rows are rounded once,
    as read, and kept as bfloat16 (the same two bytes a value): widening the rows of a recall is then one
    shift, where looking each float16 up in a table of its rounding took ~0.3 ms for 200 rows."""
    found, missing = cache.get(agent, ids)
    if missing:
        read_now = dict(read(missing))
        found.update(read_now)
        if (keep := well_sized(found.values())) is not None:  # a blob of another program's making
            bad = [i for i, kept in zip(found, keep, strict=True) if not kept and found[i]]
            log.warning("%d own-line vectors of the wrong size are left out (%s …)", len(bad), bad[0])
            for i in bad:
                found[i] = _NONE
                read_now[i] = _NONE
        if bfloat16:
            rounded = _rounded(read_now)
            found.update(rounded)
            read_now.update(rounded)
        cache.put(agent, {i: read_now.get(i, _NONE) for i in missing})
    kept = [i for i, blob in found.items() if blob]
    if not kept:
        return OwnVectors([])
    joined = b"".join(found.values())  # a memory without one adds no bytes
    if bfloat16:  # bfloat16 already: widened by a shift
        return OwnVectors(kept, from_bfloat16(np.frombuffer(joined, np.uint16)).reshape(len(kept), -1))
    return OwnVectors(kept, np.frombuffer(joined, dtype=np.float16).reshape(len(kept), -1).astype(np.float32))


def _rounded(rows: Mapping[str, bytes]) -> dict[str, bytes]:
    """Float16 rows as bfloat16 rows (each value widened, then rounded to the nearest bfloat16), in one step
    over the rows joined.

    >>> _rounded({"m": np.asarray([1.0, 0.1], np.float16).tobytes(), "none": b""})["m"] == to_bfloat16(
    ...     np.asarray([1.0, 0.1], np.float16).astype(np.float32)).tobytes()
    True
    """
    held = [i for i, blob in rows.items() if blob]
    if not held:
        return {}
    halves = to_bfloat16(np.frombuffer(b"".join(rows[i] for i in held), np.float16).astype(np.float32)).tobytes()
    width = len(rows[held[0]])  # one length: well_sized left out the others
    return {i: halves[n * width : (n + 1) * width] for n, i in enumerate(held)}
