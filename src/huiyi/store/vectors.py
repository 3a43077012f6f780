"""Vector search within partitions (one partition = one agent's scope).

A recall may only see a few scopes, so the exact scan over their rows is both the fastest and the only
correct search: HNSW with a scope filter loses most results. Matrices are loaded per partition on
first use and kept under a memory budget; a version number per partition tells when another process
changed it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

Matrix = np.ndarray[Any, np.dtype[np.float32]]
RowIds = np.ndarray[Any, np.dtype[np.int64]]


@dataclass
class Partition:
    version: int
    rowids: RowIds
    vectors: Matrix

    @property
    def nbytes(self) -> int:
        return int(self.rowids.nbytes + self.vectors.nbytes)


# (partition key) -> (version, rowids, vectors) read from the store
Loader = Callable[[str], tuple[int, RowIds, Matrix]]


@dataclass
class DenseHits:
    """The best rows, and every scanned row's score so other routes' candidates cost nothing extra."""

    rowids: list[int]
    scores: list[float]
    all_rowids: RowIds
    all_scores: Matrix

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

    def added(self, partition: str, old_version: int, rowids: Sequence[int], vectors: Matrix) -> None: ...

    def removed(self, partition: str, old_version: int, rowids: Sequence[int]) -> None: ...


class ExactIndex:
    """Exact cosine search over in-memory per-partition matrices (vectors are unit length).

    ``search`` returns the top ``limit`` rowids with scores, and every scanned row's score.
    """

    def __init__(self, loader: Loader, budget_bytes: int = 512 * 2**20) -> None:
        self._loader = loader
        self._budget = budget_bytes
        self._parts: OrderedDict[str, Partition] = OrderedDict()
        self._lock = threading.Lock()

    def _partition(self, key: str, version: int) -> Partition:
        with self._lock:
            part = self._parts.get(key)
            if part is not None and part.version == version:
                self._parts.move_to_end(key)
                return part
        loaded_version, rowids, vectors = self._loader(key)
        part = Partition(loaded_version, rowids, vectors)
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
        parts = [p for p in parts if len(p.rowids)]
        if not parts:
            return DenseHits([], [], np.zeros(0, np.int64), np.zeros(0, np.float32))
        rowids = np.concatenate([p.rowids for p in parts])
        scores = np.concatenate([p.vectors @ query for p in parts])
        k = min(limit, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return DenseHits(rowids[top].tolist(), scores[top].tolist(), rowids, scores)

    def added(self, partition: str, old_version: int, rowids: Sequence[int], vectors: Matrix) -> None:
        """Apply an in-process write; a partition that missed another writer's change is dropped."""
        with self._lock:
            part = self._parts.get(partition)
            if part is None:
                return
            if part.version != old_version:
                del self._parts[partition]
                return
            part.rowids = np.concatenate([part.rowids, np.asarray(rowids, dtype=np.int64)])
            # a partition loaded while empty has no width yet: its first vectors give it one
            fresh = vectors.astype(np.float32)
            part.vectors = np.concatenate([part.vectors, fresh]) if part.vectors.size else fresh
            part.version = old_version + 1
            self._evict()

    def removed(self, partition: str, old_version: int, rowids: Sequence[int]) -> None:
        with self._lock:
            part = self._parts.get(partition)
            if part is None:
                return
            if part.version != old_version:
                del self._parts[partition]
                return
            keep = ~np.isin(part.rowids, np.asarray(rowids, dtype=np.int64))
            part.rowids = part.rowids[keep]
            part.vectors = part.vectors[keep]
            part.version = old_version + 1

    def clear(self) -> None:
        with self._lock:
            self._parts.clear()
