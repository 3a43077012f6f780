"""The posting-list cache's bookkeeping (``huiyi.store.postings``): kept per scope set and its
partitions' versions, evicted least recently used past its budget, forgotten with an erased partition."""

from __future__ import annotations

import numpy as np

from huiyi.store.postings import PostingCache


def _key(part: str, version: int) -> tuple[tuple[str, tuple[int, int, int]], ...]:
    return ((part, (version, 10, 100)),)


def _rows(n: int) -> np.ndarray:
    return np.zeros((n, 4), dtype=np.int64)


def test_lists_are_kept_per_version_and_evicted_oldest_first_past_the_budget() -> None:
    cache = PostingCache(budget=10)
    cache.lists(_key("a", 1))[("chars", "a猫")] = _rows(4)
    cache.counted(_key("a", 1))
    assert ("chars", "a猫") in cache.lists(_key("a", 1))
    assert cache.lists(_key("a", 2)) == {}  # another version: nothing of the first
    cache.lists(_key("b", 1))[("chars", "b猫")] = _rows(4)
    cache.counted(_key("b", 1))
    cache.lists(_key("a", 1))  # used last: b's version 1 goes before it
    cache.lists(_key("c", 1))[("chars", "c猫")] = _rows(4)
    cache.counted(_key("c", 1))
    assert cache.lists(_key("b", 1)) == {}
    assert ("chars", "a猫") in cache.lists(_key("a", 1))


def test_an_erased_partition_forgets_every_scope_set_it_is_in() -> None:
    cache = PostingCache()
    both = (*_key("a", 1), *_key("b", 1))
    for key in (both, _key("b", 1), _key("c", 1)):
        cache.lists(key)[("words", "x")] = _rows(1)
        cache.counted(key)
    cache.forget(["b"])
    assert cache.lists(both) == {} and cache.lists(_key("b", 1)) == {}
    assert cache.lists(_key("c", 1)) != {}
