"""Vector search within partitions (one partition = one agent's scope).

A recall may only see a few scopes, so the exact scan over their rows is both the fastest and the only
correct search: HNSW with a scope filter loses most results. Matrices are loaded per partition on
first use and kept under a memory budget; a version number per partition tells when another process
changed it.

A chunk whose vector embeds its turn alone (``TURN_VECTOR``) takes its context turns at query time:
each row knows its place in its chat (space, seq), so the scan's similarities of the turns before it
mix into its score (:func:`with_context`) at the cost of a few array operations, not an embedding.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol

import numpy as np

from huiyi.model import MemoryItem, MemoryKind
from huiyi.store.base import TURN_VECTOR, TurnContext

Matrix = np.ndarray[Any, np.dtype[np.float32]]
RowIds = np.ndarray[Any, np.dtype[np.int64]]
Halves = np.ndarray[Any, np.dtype[np.uint16]]  # bfloat16: the upper half of each float32

BLOCK = 256  # rows widened to float32 at a time: a block stays in cache, the whole matrix never exists


def to_bfloat16(vectors: Matrix) -> Halves:
    """float32 rows kept in half the memory, rounded to the nearest bfloat16 (8 bits of mantissa: cosines
    of random 384-dim unit vectors moved 3e-4 at most; float16 rows took ~10× as long to widen and scan).

    >>> from_bfloat16(to_bfloat16(np.asarray([[1.0, -0.5, 0.1]], np.float32))).tolist()
    [[1.0, -0.5, 0.10009765625]]
    """
    bits = np.ascontiguousarray(vectors, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))  # to nearest, ties to even
    halves: Halves = (rounded >> np.uint32(16)).astype(np.uint16)
    return halves


def well_sized(blobs: Iterable[bytes]) -> list[bool] | None:
    """None when every stored float16 row in ``blobs`` (empty: no row) has one even length, as ever but where
    another program wrote one wrongly; else which to keep: those of the length most have. A row of another
    length failed every recall that read it, where its line is still found by its words.

    >>> well_sized([b"ab", b"", b"cd"]), well_sized([b"ab", b"abc", b"cd"])
    (None, [True, False, True])
    """
    sizes = [len(blob) for blob in blobs]
    if len(widths := set(sizes) - {0}) <= 1 and not any(width % 2 for width in widths):
        return None
    common = Counter(size for size in sizes if size and not size % 2).most_common(1)
    return [bool(common) and size == common[0][0] for size in sizes]


def from_bfloat16(halves: Halves) -> Matrix:
    wide: Matrix = (halves.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return wide


_buffers = threading.local()


def bfloat16_dot(halves: Halves, query: Matrix) -> Matrix:
    """``halves`` (bfloat16 rows) times the float32 ``query``, widened a block at a time into a buffer
    of this thread's, so BLAS does the product."""
    out: Matrix = np.empty(len(halves), np.float32)
    width = halves.shape[1] if halves.ndim == 2 else 0
    buffer = getattr(_buffers, "block", None)
    if buffer is None or buffer.shape[1] != width:
        buffer = _buffers.block = np.empty((BLOCK, width), np.uint32)
    for start in range(0, len(halves), BLOCK):
        block = halves[start : start + BLOCK]
        wide = buffer[: len(block)]
        np.left_shift(block, 16, out=wide, dtype=np.uint32)
        np.matmul(wide.view(np.float32), query, out=out[start : start + len(block)])
    return out


@dataclass
class Places:
    """Where each row sits in its chat: its space and seq (``None`` for what is no chunk) and whether
    its vector is its turn alone."""

    spaces: list[str | None]
    seqs: list[int | None]
    turns: list[bool]

    @staticmethod
    def none(n: int) -> Places:
        return Places([None] * n, [None] * n, [False] * n)


class Chat:
    """A partition's :class:`Places` as arrays: space codes, seqs (-1: no chunk) and the turn flags."""

    def __init__(self, places: Places) -> None:
        self._codes: dict[str, int] = {}
        self.spaces = np.zeros(0, np.int64)
        self.seqs = np.zeros(0, np.int64)
        self.turns = np.zeros(0, bool)
        self._context: RowIds | None = None
        self.extend(places)

    def extend(self, places: Places) -> None:
        codes = [-1 if s is None else self._codes.setdefault(s, len(self._codes)) for s in places.spaces]
        self.spaces = np.concatenate([self.spaces, np.asarray(codes, dtype=np.int64)])
        self.seqs = np.concatenate([self.seqs, np.asarray([-1 if q is None else q for q in places.seqs], np.int64)])
        self.turns = np.concatenate([self.turns, np.asarray(places.turns, dtype=bool)])
        self._context = None

    def keep(self, mask: np.ndarray[Any, np.dtype[np.bool_]]) -> None:
        self.spaces, self.seqs, self.turns = self.spaces[mask], self.seqs[mask], self.turns[mask]
        self._context = None

    def context_rows(self, depth: int) -> RowIds | None:
        """Each row's ``depth`` previous chunks in its space (row positions, -1 where none), or None
        when no row's vector is its turn alone."""
        if depth <= 0 or not self.turns.any():
            return None
        if self._context is None or self._context.shape[1] != depth:
            self._context = context_rows(self.spaces, self.seqs, depth)
        return self._context


def context_rows(spaces: RowIds, seqs: RowIds, depth: int) -> RowIds:
    """Row positions of each chunk's previous ``depth`` chunks in the same space, by seq (-1: none).

    >>> context_rows(np.asarray([0, 0, -1, 0, 1]), np.asarray([2, 1, -1, 3, 4]), 2).tolist()
    [[1, -1], [-1, -1], [-1, -1], [0, 1], [-1, -1]]
    """
    out = np.full((len(seqs), depth), -1, dtype=np.int64)
    chunks = np.flatnonzero((seqs >= 0) & (spaces >= 0))
    order = chunks[np.lexsort((chunks, seqs[chunks], spaces[chunks]))]
    space = spaces[order]
    for k in range(1, min(depth, len(order) - 1) + 1):
        same = space[k:] == space[:-k]
        out[order[k:][same], k - 1] = order[:-k][same]
    return out


@dataclass
class Partition:
    version: int
    rowids: RowIds
    vectors: Halves  # bfloat16: at 100k memories half the resident size of float32 (issue 15)
    places: Places | None = None
    # each row's memory id, when the loader read them: a search then needs no lookup of its hits' ids
    ids: list[str] | None = None
    chat: Chat | None = None

    def __post_init__(self) -> None:
        if self.places is not None:
            self.chat = Chat(self.places)
            self.places = None  # kept as arrays only

    @property
    def nbytes(self) -> int:
        return int(self.rowids.nbytes + self.vectors.nbytes)


def with_context(scores: Matrix, context: RowIds, turns: np.ndarray[Any, Any], how: TurnContext) -> Matrix:
    """The turn-alone rows' scores mixed with their context rows' (:class:`TurnContext`); others kept.

    >>> how = TurnContext(weights=(1.0,), floor=True)
    >>> turns = np.asarray([True, True])
    >>> mixed = with_context(np.asarray([0.9, 0.3], np.float32), np.asarray([[-1], [0]]), turns, how)
    >>> [round(x, 4) for x in mixed.tolist()]
    [0.9, 0.6]
    """
    weights = np.asarray(how.weights[: context.shape[1]], dtype=np.float32)
    present = context >= 0
    earlier = np.where(present, scores[np.maximum(context, 0)], 0.0)
    mixed = (scores + earlier @ weights) / (1.0 + present @ weights)
    combined = np.maximum(scores, mixed) if how.floor else mixed
    out: Matrix = np.where(turns, combined, scores).astype(np.float32, copy=False)
    return out


# (partition key) -> (version, rowids, vectors[, places[, memory ids]]) read from the store
Loader = Callable[
    [str],
    tuple[int, RowIds, Matrix] | tuple[int, RowIds, Matrix, Places] | tuple[int, RowIds, Matrix, Places, list[str]],
]


@dataclass
class DenseHits:
    """The best rows (and their memory ids, when every partition scanned knows its rows'), and every
    scanned row's score so other routes' candidates cost nothing extra."""

    rowids: list[int]
    scores: list[float]
    all_rowids: RowIds
    all_scores: Matrix
    ids: list[str] | None = None

    def score_of(self, rowids: Sequence[int]) -> list[float]:
        if not len(self.all_rowids):
            return [0.0] * len(rowids)
        order = np.argsort(self.all_rowids, kind="stable")
        wanted = np.asarray(rowids, dtype=np.int64)
        pos = np.searchsorted(self.all_rowids, wanted, sorter=order)
        pos = np.clip(pos, 0, len(order) - 1)
        found = self.all_rowids[order[pos]] == wanted
        scores: list[float] = np.where(found, self.all_scores[order[pos]], 0.0).tolist()
        return scores


class VectorIndex(Protocol):
    def search(self, query: Matrix, partitions: Sequence[str], versions: dict[str, int], limit: int) -> DenseHits: ...

    def added(
        self,
        partition: str,
        old_version: int,
        rowids: Sequence[int],
        vectors: Matrix,
        places: Places | None = None,
        ids: Sequence[str] | None = None,
    ) -> None: ...

    def removed(self, partition: str, old_version: int, rowids: Sequence[int]) -> None: ...


class ExactIndex:
    """Exact cosine search over in-memory per-partition matrices (vectors are unit length).

    ``search`` returns the top ``limit`` rowids with scores, and every scanned row's score. Rows that
    score alike across the cut are all left out: which of them made it would follow the order the rows
    were written in (a chat added per message or per chat, two indexing threads), and so would recall.
    """

    def __init__(self, loader: Loader, budget_bytes: int = 512 * 2**20, context: TurnContext | None = None) -> None:
        self._loader = loader
        self._budget = budget_bytes
        self.context = context if context is not None else TurnContext()
        self._parts: OrderedDict[str, Partition] = OrderedDict()
        self._lock = threading.Lock()

    def _partition(self, key: str, version: int) -> Partition:
        with self._lock:
            part = self._parts.get(key)
            if part is not None and part.version == version:
                self._parts.move_to_end(key)
                return part
        version, rowids, vectors, *rest = self._loader(key)
        part = Partition(version, rowids, to_bfloat16(vectors), *rest)
        with self._lock:
            self._parts[key] = part
            self._parts.move_to_end(key)
            self._evict()
        return part

    def _evict(self) -> None:
        total = sum(p.nbytes for p in self._parts.values())
        while total > self._budget and len(self._parts) > 1:
            _, dropped = self._parts.popitem(last=False)
            total -= dropped.nbytes

    def search(self, query: Matrix, partitions: Sequence[str], versions: dict[str, int], limit: int) -> DenseHits:
        parts = [self._partition(key, versions.get(key, 0)) for key in partitions]
        # a partition of another width (vectors another program wrote) has nothing to match the query
        parts = [p for p in parts if len(p.rowids) and p.vectors.shape[-1] == query.shape[-1]]
        if not parts:
            return DenseHits([], [], np.zeros(0, np.int64), np.zeros(0, np.float32))
        with self._lock:  # a write replaces a partition's rowids, ids and vectors together: scored as read
            rows = [(p.rowids, p.ids) for p in parts]
            held = [p.vectors for p in parts]
        rowids = np.concatenate([r for r, _ in rows])
        scores = np.concatenate([self._scores(p, vectors, query) for p, vectors in zip(parts, held, strict=True)])
        k = min(limit, len(scores))
        if 0 < k < len(scores):
            placed = np.argpartition(-scores, k)  # the best k before the next best (one kth: two cost 3× at 100k)
            top, after = placed[:k], scores[placed[k]]
            if scores[top].min() == after:  # equals straddle the cut: none of them
                top = top[scores[top] > after]
        else:
            top = np.arange(k)
        top = top[np.argsort(-scores[top], kind="stable")].tolist()
        ids = None
        if len(scores) == len(rowids) and all(i is not None and len(i) == len(r) for r, i in rows):
            every = rows[0][1] if len(rows) == 1 else list(chain.from_iterable(i or () for _, i in rows))
            ids = [every[i] for i in top] if every is not None else None
        return DenseHits(rowids[top].tolist(), scores[top].tolist(), rowids, scores, ids)

    def ids_of(self, rowids: Sequence[int], versions: Mapping[str, int]) -> dict[int, str]:
        """The memory ids of those ``rowids`` that a partition loaded at its version in ``versions`` (read
        in the snapshot the rowids came from) holds; the others are the caller's to read."""
        wanted = np.asarray(rowids, dtype=np.int64)
        found: dict[int, str] = {}
        with self._lock:
            for key, version in versions.items():
                part = self._parts.get(key)
                if part is None or part.version != version or part.ids is None or not len(part.rowids):
                    continue
                # rowids are loaded in order and grow as rows are added; a row out of order is a miss
                pos = np.minimum(np.searchsorted(part.rowids, wanted), len(part.rowids) - 1)
                held = np.flatnonzero(part.rowids[pos] == wanted)
                ids = part.ids
                found.update(zip(wanted[held].tolist(), [ids[i] for i in pos[held].tolist()], strict=True))
        return found

    def _scores(self, part: Partition, vectors: Halves, query: Matrix) -> Matrix:
        scores = bfloat16_dot(vectors, query)
        chat = part.chat
        context = chat.context_rows(len(self.context.weights)) if chat is not None else None
        # a write landing meanwhile may have grown one array and not yet the other: own scores then
        if context is None or chat is None or len(context) != len(scores) or len(chat.turns) != len(scores):
            return scores
        return with_context(scores, context, chat.turns, self.context)

    def added(
        self,
        partition: str,
        old_version: int,
        rowids: Sequence[int],
        vectors: Matrix,
        places: Places | None = None,
        ids: Sequence[str] | None = None,
    ) -> None:
        """Apply an in-process write; a partition that missed another writer's change is dropped.
        Without ``ids`` the partition forgets its rows' ids (searches look them up again)."""
        with self._lock:
            part = self._current(partition, old_version)
            if part is None:
                return
            part.rowids = np.concatenate([part.rowids, np.asarray(rowids, dtype=np.int64)])
            # a partition loaded while empty has no width yet: its first vectors give it one
            fresh = to_bfloat16(vectors)
            part.vectors = np.concatenate([part.vectors, fresh]) if part.vectors.size else fresh
            if part.chat is not None:
                part.chat.extend(places or Places.none(len(rowids)))
            part.ids = [*part.ids, *ids] if part.ids is not None and ids is not None else None
            part.version = old_version + 1
            self._evict()

    def removed(self, partition: str, old_version: int, rowids: Sequence[int]) -> None:
        with self._lock:
            part = self._current(partition, old_version)
            if part is None:
                return
            keep = ~np.isin(part.rowids, np.asarray(rowids, dtype=np.int64))
            part.rowids = part.rowids[keep]
            part.vectors = part.vectors[keep]
            if part.chat is not None:
                part.chat.keep(keep)
            if part.ids is not None:
                part.ids = [memory_id for memory_id, kept in zip(part.ids, keep.tolist(), strict=True) if kept]
            part.version = old_version + 1

    def touched(self, partition: str, old_version: int) -> None:
        """A write that moved a partition's version without changing its vectors (an update of fields)."""
        with self._lock:
            part = self._current(partition, old_version)
            if part is None:
                return
            part.version = old_version + 1

    def _current(self, partition: str, old_version: int) -> Partition | None:
        """The loaded partition a write moved from ``old_version``; one that missed another writer's
        change is dropped (None), as is one not loaded."""
        part = self._parts.get(partition)
        if part is not None and part.version != old_version:
            del self._parts[partition]
            return None
        return part

    def clear(self) -> None:
        with self._lock:
            self._parts.clear()


def places_of(items: Sequence[MemoryItem]) -> Places:
    """The memories' places in their chats, as the vector cache reads them (``_load_partition``)."""
    chunk = [item.kind is MemoryKind.CHUNK for item in items]
    spaces = [item.data.get("space") for item in items]
    seqs = [item.data.get("seq") for item in items]
    return Places(
        [str(s) if c and s is not None else None for s, c in zip(spaces, chunk, strict=True)],
        [int(q) if c and isinstance(q, int) else None for q, c in zip(seqs, chunk, strict=True)],
        [c and item.data.get("vector") == TURN_VECTOR for item, c in zip(items, chunk, strict=True)],
    )
