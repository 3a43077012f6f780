"""What every store does the same before it writes a unit of work: ``add_memories`` as one ``apply``, and the
checks that refuse a malformed unit before any row is touched."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from huiyi.errors import StoreError
from huiyi.model import MemoryItem
from huiyi.store.base import UPDATABLE, Terms, Vectors, Writes

__all__ = ["AddsByApply", "check_updatable", "checked_vectors"]


class AddsByApply:
    """``add_memories`` written as one ``apply``, the same unit a fold or a merge commits."""

    def apply(self, writes: Writes, complete_job: tuple[str, str] | None = None) -> None:
        raise NotImplementedError

    def add_memories(
        self,
        items: Sequence[MemoryItem],
        vectors: Vectors,
        terms: Sequence[Terms],
        indexed_messages: Sequence[tuple[str, str]] = (),
        own_vectors: Vectors | None = None,
        made_from: Sequence[Sequence[str]] | None = None,
    ) -> None:
        self.apply(
            Writes(
                memories=items,
                vectors=vectors,
                terms=terms,
                indexed_messages=indexed_messages,
                own_vectors=own_vectors,
                made_from=made_from,
            )
        )


def checked_vectors(writes: Writes) -> tuple[Vectors, Vectors]:
    """The unit's memory and entity vectors (empty when it has none), once each row has what it needs and each
    update names only fields that may change."""
    vectors = writes.vectors if writes.vectors is not None else np.zeros((0, 0), np.float32)
    if not (len(writes.memories) == len(vectors) == len(writes.terms)):
        raise StoreError("add_memories needs one vector and one Terms per memory")
    if writes.own_vectors is not None and len(writes.own_vectors) != len(writes.memories):
        raise StoreError("add_memories needs one own vector per memory, or none")
    check_updatable([(memory_id, fields) for _, memory_id, fields in writes.updates])
    entity_vectors = writes.entity_vectors if writes.entity_vectors is not None else np.zeros((0, 0), np.float32)
    if len(entity_vectors) != len(writes.entities):
        raise StoreError("apply needs one vector per entity")
    return vectors, entity_vectors


def check_updatable(changes: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """(id, fields) of an update: a field outside ``UPDATABLE`` (text, scope, kind) is refused."""
    for _, fields in changes:
        if unknown := set(fields) - UPDATABLE:
            raise StoreError(f"these memory fields cannot be updated: {sorted(unknown)}")
