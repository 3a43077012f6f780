"""Indexing across processes: while one process adds, others open the store; every message gets one chunk.

Opening a store indexes what was accepted but never indexed, so an opener racing an ``add`` used to
index the adder's fresh messages a second time (the "Trust" issue: 120 messages, 210 chunks).
"""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from collections.abc import Sequence
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path

import pg_server
from huiyi import Memory
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Vectors

SPAWN = multiprocessing.get_context("spawn")
AGENT, PERSON = "qy", "mumu"
CALLS, PER_CALL = 8, 16  # 128 messages


class SlowEmbedder(HashEmbedder):
    """Embedding takes a while, as a real model's does: the window in which an opener can race an add."""

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        time.sleep(0.02)
        return super().embed_passages(texts)


def adder(path: str, start: Barrier, done: Event) -> None:
    try:
        with Memory(path, embedder=SlowEmbedder(32)) as memory:
            start.wait(60)
            for call in range(CALLS):
                texts = [f"第{call}批第{i}句：话题{call * PER_CALL + i}" for i in range(PER_CALL)]
                memory.add(texts, agent=AGENT, person=PERSON, extract=False)
    finally:
        done.set()


def opener(path: str, start: Barrier, done: Event) -> None:
    start.wait(60)
    while not done.is_set():
        with Memory(path, embedder=SlowEmbedder(32)):
            pass  # opening indexes what it finds unindexed


def race(path: str) -> tuple[int, int, int, int]:
    """Run one adder and two openers on the store.

    Returns the messages, their chunks, the duplicate chunks, and the recalls that named a message twice.
    """
    with Memory(path, embedder=SlowEmbedder(32)):
        pass  # migrate once before the race, as a deployed store would be
    start, done = SPAWN.Barrier(3), SPAWN.Event()
    processes = [SPAWN.Process(target=adder, args=(path, start, done))]
    processes += [SPAWN.Process(target=opener, args=(path, start, done)) for _ in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(240)
    assert [p.exitcode for p in processes] == [0, 0, 0]
    with Memory(path, embedder=SlowEmbedder(32)) as memory:
        scope = Scope.of_person(AGENT, PERSON)
        chunks = memory.store.list_memories([scope], [MemoryKind.CHUNK], limit=10000)
        anchors = Counter(c.sources[0] for c in chunks)
        messages = len(memory.store.recent_messages(AGENT, scope.tag, 10000))
        repeated = 0
        for query in ("第3批第5句", "话题77", "第7批", "第0批第1句"):
            hits = memory.recall(query, agent=AGENT, person=PERSON, limit=30).hits
            said = [h.sources[0] for h in hits if h.kind is MemoryKind.CHUNK]
            repeated += len(said) != len(set(said))
    return messages, len(chunks), sum(n - 1 for n in anchors.values()), repeated


def test_three_processes_on_one_sqlite_store_index_each_message_once(tmp_path: Path) -> None:
    messages, chunks, duplicates, repeated = race(str(tmp_path / "store"))
    assert messages == CALLS * PER_CALL
    assert (chunks, duplicates, repeated) == (messages, 0, 0), f"{chunks} chunks for {messages} messages"


def test_three_processes_on_one_postgres_store_index_each_message_once() -> None:
    messages, chunks, duplicates, repeated = race(pg_server.fresh_dsn())
    assert messages == CALLS * PER_CALL
    assert (chunks, duplicates, repeated) == (messages, 0, 0), f"{chunks} chunks for {messages} messages"
