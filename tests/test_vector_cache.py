"""The in-process vector cache keeps partitions current as memories are written."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from huiyi import Memory
from huiyi.config import Config
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


def test_own_vectors_kept_rounded_come_back_as_read_first() -> None:
    # the cache keeps the rows rounded to bfloat16 as read (issue 15): widened from it, the same bits
    every = np.arange(1 << 16, dtype=np.uint16)
    rows = {f"m{i}": every[i * 256 : (i + 1) * 256].tobytes() for i in range(256)}
    rows["none"] = b""
    cache = OwnVectorCache()
    first = own_vectors(cache, "a", list(rows), lambda missing: {i: rows[i] for i in missing}, True)
    reversed_ids = list(reversed(rows))
    again = own_vectors(cache, "a", reversed_ids, lambda missing: pytest.fail(f"read again: {missing}"), True)
    assert first.matrix is not None and again.matrix is not None and list(again) == list(reversed(list(first)))
    assert np.array_equal(again.matrix[::-1].view(np.uint32), first.matrix.view(np.uint32))
    plain = own_vectors(OwnVectorCache(), "a", list(rows), lambda missing: {i: rows[i] for i in missing})
    assert plain.matrix is not None and plain.matrix.dtype == np.float32  # float16 widened, not rounded


def test_own_vector_cache_keeps_the_most_recently_used_and_each_agent_its_own() -> None:
    # recall reads through it on every question: what it keeps and evicts is least-recently-used, by agent
    cache = OwnVectorCache(budget=3)
    cache.put("a", {"m1": b"1", "m2": b"2", "m3": b"3"})
    assert cache.get("a", ["m1", "m9"]) == ({"m1": b"1"}, ["m9"])  # m1 used: m2 is now the oldest
    cache.put("a", {"m4": b"4"})
    assert cache.get("a", ["m2", "m3", "m1", "m4"]) == ({"m3": b"3", "m1": b"1", "m4": b"4"}, ["m2"])
    assert cache.get("b", ["m3", "m1"]) == ({}, ["m3", "m1"])  # another agent's ids are misses
    cache.put("b", {"m3": b"b3"})  # replaces a's row, no more rows: nothing goes
    assert cache.get("a", ["m1", "m3", "m4"]) == ({"m1": b"1", "m4": b"4"}, ["m3"])
    assert cache.get("b", ["m3"]) == ({"m3": b"b3"}, [])
    cache.put("a", {"m5": b"5", "m6": b"6", "m7": b"7", "m8": b"8"})  # more than the budget: m1, m4, m3 go too
    assert cache.get("a", ["m5", "m6", "m7", "m8"]) == ({"m6": b"6", "m7": b"7", "m8": b"8"}, ["m5"])


@pytest.mark.parametrize("size", [3, 100, 256])
@pytest.mark.parametrize("rows", ["one", "every"])
@pytest.mark.parametrize("table", ["memory_own_vectors", "memory_vectors"])
def test_a_vector_of_the_wrong_size_fails_no_recall(tmp_path: Path, size: int, rows: str, table: str) -> None:
    # a blob another program wrote at the wrong length failed every recall that read it (a reshape's
    # ValueError, or a product's of the wrong width); the line is still found, by its words
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 64})
    said = ["我家猫叫布丁", "今天好累啊", "明天去爬山", "我喜欢吃火锅"]
    with Memory(tmp_path / "s", config=config) as memory:
        memory.add([{"speaker": "小明", "text": text} for text in said], agent="a", person="p")
        memory.indexed()
    with sqlite3.connect(tmp_path / "s" / "huiyi.sqlite") as conn:
        assert conn.execute(f"SELECT count(*), min(length(vector)) FROM {table}").fetchone() == (4, 128)
        which = "" if rows == "every" else f" WHERE rowid = (SELECT min(rowid) FROM {table})"
        conn.execute(f"UPDATE {table} SET vector = zeroblob({size}){which}")
    with Memory(tmp_path / "s", config=config) as memory:
        hits = memory.recall("猫叫布丁", agent="a", person="p").hits
    assert "布丁" in hits[0].text
    # with no chunk vector left to match, only the keyword route finds lines: the one holding the words
    assert len(hits) == (1 if (table, rows) == ("memory_vectors", "every") else 4)
