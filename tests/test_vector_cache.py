"""The in-process vector cache keeps partitions current as memories are written."""

from __future__ import annotations

import numpy as np

from huiyi.store.vectors import ExactIndex


def test_a_partition_first_loaded_empty_takes_its_first_vectors() -> None:
    # a recall before anything is indexed loads the scope's partition empty, without a width; the
    # background indexer's first write must then extend it, not fail (found by the HTTP fuzz test)
    index = ExactIndex(lambda key: (0, np.zeros(0, np.int64), np.zeros((0, 0), np.float32)))
    query = np.ones(4, np.float32) / 2
    assert index.search(query, ["p"], {"p": 0}, 5).rowids == []
    index.added("p", 0, [7, 8], np.eye(4, dtype=np.float32)[:2])
    found = index.search(query, ["p"], {"p": 1}, 5)
    assert sorted(found.rowids) == [7, 8]
