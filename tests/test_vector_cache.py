"""The in-process vector cache keeps partitions current as memories are written."""

from __future__ import annotations

import threading

import numpy as np

from huiyi.store.base import OwnVectors
from huiyi.store.owncache import OwnVectorCache, own_vectors
from huiyi.store.vectors import BLOCK, ExactIndex, from_bfloat16, to_bfloat16


def test_a_partition_first_loaded_empty_takes_its_first_vectors() -> None:
    # a recall before anything is indexed loads the scope's partition empty, without a width; the
    # background indexer's first write must then extend it, not fail (found by the HTTP fuzz test)
    index = ExactIndex(lambda key: (0, np.zeros(0, np.int64), np.zeros((0, 0), np.float32)))
    query = np.ones(4, np.float32) / 2
    assert index.search(query, ["p"], {"p": 0}, 5).rowids == []
    index.added("p", 0, [7, 8], np.eye(4, dtype=np.float32)[:2])
    found = index.search(query, ["p"], {"p": 1}, 5)
    assert sorted(found.rowids) == [7, 8]


def test_partitions_keep_half_the_bytes_and_score_as_float32_would() -> None:
    # bfloat16 rows: at 100k memories the scopes' vectors were half the resident size (issue 15); the
    # scan widens them a block at a time, so a partition longer than one block is scored across blocks
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((BLOCK * 2 + 37, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[5] + 0.1 * vectors[BLOCK + 30]
    query /= np.linalg.norm(query)
    index = ExactIndex(lambda key: (0, np.arange(len(vectors), dtype=np.int64), vectors))
    found = index.search(query, ["p"], {"p": 0}, len(vectors))
    exact = vectors @ query
    assert found.rowids[:2] == [5, BLOCK + 30]
    assert np.abs(np.asarray(found.scores) - exact[found.rowids]).max() < 1e-3
    assert index._parts["p"].nbytes == len(vectors) * (8 + 384 * 2)
    index.added("p", 0, [10_000], -query[None, :])  # a write in this process is kept the same way
    assert index.search(-query, ["p"], {"p": 1}, 1).rowids == [10_000]
    assert index._parts["p"].vectors.dtype == np.uint16


def test_own_vectors_answer_as_a_mapping_empty_or_not() -> None:
    empty = OwnVectors([])
    assert "m1" not in empty and empty.get("m1") is None and dict(empty) == {}
    matrix = np.arange(6, dtype=np.float32).reshape(2, 3)
    found = OwnVectors(["m1", "m2"], matrix)
    assert "m2" in found and found.get("m3") is None and list(found) == ["m1", "m2"]
    assert np.array_equal(found["m2"], matrix[1])


class _WriteAfterRowsAreRead:
    """The index's lock, with a write landing right after search has read the partition's rows: the
    background indexer appending a chunk while a recall of the same chat scores it."""

    def __init__(self, write: object) -> None:
        self._lock = threading.Lock()
        self._write = write
        self.exits_before_write = 2  # the partition looked up, then its rows read

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *_: object) -> None:
        self._lock.release()
        self.exits_before_write -= 1
        if self.exits_before_write == 0:
            self._write()  # type: ignore[operator]


def test_a_write_landing_during_a_search_scores_the_rows_it_read() -> None:
    # a half-year companion chat crashed in context(): IndexError, index 1983 out of bounds for size 1983
    vectors = np.eye(4, dtype=np.float32)[:3]
    index = ExactIndex(lambda key: (0, np.asarray([1, 2, 3], dtype=np.int64), vectors))
    query = np.ones(4, np.float32) / 2
    assert sorted(index.search(query, ["p"], {"p": 0}, 10).rowids) == [1, 2, 3]  # loaded
    index._lock = _WriteAfterRowsAreRead(lambda: index.added("p", 0, [4], np.eye(4, dtype=np.float32)[3:]))  # type: ignore[assignment]
    found = index.search(query, ["p"], {"p": 0}, 10)
    assert sorted(found.rowids) == [1, 2, 3] and len(found.all_scores) == len(found.all_rowids) == 3
    assert sorted(index.search(query, ["p"], {"p": 1}, 10).rowids) == [1, 2, 3, 4]  # the write is kept


def test_own_vectors_round_to_bfloat16_as_the_matrix_conversion_did() -> None:
    # the own-line rows are widened and rounded by one lookup of each float16 (store.owncache): every
    # float16 there is, infinities, NaNs and subnormals too, must come out as converting the joined
    # matrix to float32 and rounding it to bfloat16 gave, bit for bit (issue 15: rankings unchanged)
    every = np.arange(1 << 16, dtype=np.uint16)
    rows = {f"m{i}": every[i * 256 : (i + 1) * 256].tobytes() for i in range(256)}  # each one once
    rows["none"] = b""  # a memory without one: no row
    found = own_vectors(OwnVectorCache(), "a", list(rows), lambda missing: {i: rows[i] for i in missing}, True)
    joined = np.frombuffer(b"".join(rows.values()), dtype=np.float16).reshape(len(rows) - 1, -1)
    expected = from_bfloat16(to_bfloat16(joined.astype(np.float32)))
    assert found.matrix is not None and list(found) == [i for i in rows if i != "none"]
    assert np.array_equal(found.matrix.view(np.uint32), expected.view(np.uint32))
