"""The keyword index's posting lists recall read before, kept per set of scopes under their partitions' rows.

The keyword route reads each query token's posting list in the caller's scopes (``sqlite.keyword``): a
fifth of a recall without the embedding at 100k (issue 15), though in one scope the same tokens come
back query after query (a chat's common characters and words). A list is served from here only under
the key it was read with, each partition's (version, documents, tokens) as read in the same snapshot:
every write to a partition's memories (add, erase, update) bumps its version, in this process or
another, so a changed list is never served. Merging the index's segments (maintenance) changes no list.
Beside the lists, each query phrase's (rowid, tf, row length) rows made from them (``sqlite.keyword``), under
the same key. Lists are kept for ``budget`` rows at most, whole scope sets evicted least recently used first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["PostingCache", "PostingLists", "ScopesKey"]

Token = tuple[str, str]  # (column, token as the index holds it, the scope's code included)
# each token's (·, rowid, offset, row length) rows, and each phrase's rows under ("<column> phrase", its tokens)
PostingLists = dict[Token, np.ndarray[Any, Any]]
ScopesKey = tuple[tuple[str, tuple[int, int, int]], ...]  # each partition with its (version, docs, tokens)


class PostingCache:
    """Posting lists by scope set (``ScopesKey``) and token, the least recently used sets evicted past
    ``budget`` rows."""

    # 32 bytes a row: 8 MB at most. The bench's 200 questions over 100 scopes of 1 000 read ~60 000 rows
    def __init__(self, budget: int = 250_000) -> None:
        self._budget = budget
        self._sets: OrderedDict[ScopesKey, PostingLists] = OrderedDict()
        self._sizes: dict[ScopesKey, int] = {}
        self._size = 0
        self._lock = threading.Lock()

    def lists(self, key: ScopesKey) -> PostingLists:
        """The lists kept for ``key`` (a new empty one if none): the caller adds what it reads to it, then
        calls :meth:`counted`."""
        with self._lock:
            found = self._sets.get(key)
            if found is None:
                found = self._sets[key] = {}
                self._sizes[key] = 0
            self._sets.move_to_end(key)
            return found

    def counted(self, key: ScopesKey) -> None:
        """Recount ``key``'s rows after the caller added lists, and evict past the budget."""
        with self._lock:
            lists = self._sets.get(key)
            if lists is None:
                return
            size = sum(len(rows) for rows in lists.values())
            self._size += size - self._sizes[key]
            self._sizes[key] = size
            while self._size > self._budget and len(self._sets) > 1:
                self._drop(next(iter(self._sets)))

    def forget(self, parts: Iterable[str]) -> None:
        """Drop every scope set with one of ``parts`` (erased in this process)."""
        gone = set(parts)
        with self._lock:
            for key in [key for key in self._sets if any(part in gone for part, _ in key)]:
                self._drop(key)

    def clear(self) -> None:
        with self._lock:
            self._sets.clear()
            self._sizes.clear()
            self._size = 0

    def _drop(self, key: ScopesKey) -> None:
        del self._sets[key]
        self._size -= self._sizes.pop(key)
