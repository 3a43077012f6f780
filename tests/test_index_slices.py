"""Indexing writes a batch's chunks a few per transaction (an add waits behind one slice, not a batch;
issue 15): each slice marks its own messages indexed, so a failure between slices keeps what was
written and gives the rest back, and every message still ends with one chunk."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows import ingest
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store

AGENT, PERSON = "qy", "mumu"
CONFIG = Config(worker={"enabled": False}, embed={"batch_size": 32})


class FailingStore:
    """A store whose ``add_memories`` fails on its ``fail_at``-th call; every call's size is recorded."""

    def __init__(self, inner: Store, fail_at: int) -> None:
        self.inner = inner
        self.fail_at = fail_at
        self.sizes: list[int] = []

    def add_memories(self, items: Any, *args: Any, **kwargs: Any) -> None:
        self.sizes.append(len(items))
        if len(self.sizes) == self.fail_at:
            raise RuntimeError("disk full")
        self.inner.add_memories(items, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_failure_between_slices_keeps_the_written_and_indexes_the_rest_once(tmp_path: Path, backend: str) -> None:
    path = str(tmp_path / "s") if backend == "sqlite" else pg_server.fresh_dsn()
    with Memory(path, embedder=HashEmbedder(32), config=CONFIG) as memory:
        worker = "test:slices"
        stored = memory.store.append_messages(
            ingest.prepare(
                [f"第{i}句" for i in range(20)],
                agent=AGENT,
                person=PERSON,
                space=None,
                now=memory.core.now(),
                config=CONFIG,
            ),
            ingest.index_claim(worker),
        )
        failing = FailingStore(memory.store, fail_at=2)
        with pytest.raises(RuntimeError):
            ingest.index_messages(failing, memory.embedder, stored, CONFIG, worker=worker)  # type: ignore[arg-type]
        assert failing.sizes == [ingest.WRITE_SLICE, ingest.WRITE_SLICE]  # one batch, written in slices
        scope = Scope.of_person(AGENT, PERSON)
        first = memory.store.list_memories([scope], [MemoryKind.CHUNK], 100)
        assert len(first) == ingest.WRITE_SLICE  # the first slice stays, the second rolled back alone
        # the rest was given back at once: the next call indexes exactly it
        assert memory.indexed() == len(stored) - ingest.WRITE_SLICE
        chunks = memory.store.list_memories([scope], [MemoryKind.CHUNK], 100)
        anchors = Counter(chunk.sources[0] for chunk in chunks)
        assert set(anchors) == {m.id for m in stored} and set(anchors.values()) == {1}
