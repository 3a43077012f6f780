"""Indexing across processes: while one process adds, others open the store; every message gets one chunk.

Opening a store indexes what was accepted but never indexed, so an opener racing an ``add`` used to
index the adder's fresh messages a second time (the "Trust" issue: 120 messages, 210 chunks).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path

import psycopg

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.flows import ingest
from huiyi.model import Link, LinkKind, MemoryKind, Scope, new_id
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Vectors
from huiyi.store.postgres import PostgresStore
from huiyi.store.sqlite import SQLiteStore
from test_keyword_scope import back_to_schema_15

SPAWN = multiprocessing.get_context("spawn")
AGENT, PERSON = "qy", "mumu"
CALLS, PER_CALL = 8, 16  # 128 messages
EMB = HashEmbedder(32)
T0 = datetime(2024, 5, 1, 9, 0)


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


# stores the race already damaged: migration 6 keeps the oldest chunk of each message ------------------
def damage(store: Store) -> tuple[list[str], str]:
    """Index four messages, then add copies of two of their chunks as the race did; returns the kept ids."""
    scope = Scope.of_person(AGENT, PERSON)
    config = Config()
    prepared = ingest.prepare(
        [f"第{i}句" for i in range(4)], agent=AGENT, person=PERSON, space=None, now=T0, config=config
    )
    ingest.index_messages(store, EMB, store.append_messages(prepared), config)
    kept = store.list_memories([scope], [MemoryKind.CHUNK])
    copies = [c.model_copy(update={"id": new_id("mem")}) for c in kept[:2] for _ in range(2)]
    store.add_memories(copies, EMB.embed_passages([c.text for c in copies]), [ingest.terms_of(c.text) for c in copies])
    store.add_links(AGENT, [Link(source=copies[0].id, target=kept[3].id, kind=LinkKind.RELATED)])
    assert store.count_memories(AGENT) == 8
    return sorted(c.id for c in kept), copies[0].id


def assert_repaired(store: Store, kept: list[str], copy: str) -> None:
    scope = Scope.of_person(AGENT, PERSON)
    assert sorted(c.id for c in store.list_memories([scope], [MemoryKind.CHUNK])) == kept
    assert store.count_memories(scopes=[scope]) == 4  # PostgreSQL's BM25 counters too
    hits = store.search_dense([scope], EMB.embed_queries(["第0句"])[0], 10).hits
    assert sorted(h.id for h in hits) == kept
    assert store.search_keyword([scope], ingest.terms_of("第0句"), 10).hits
    assert {h.id for h in store.search_keyword([scope], ingest.terms_of("第0句"), 10).hits} <= set(kept)
    assert store.links_of(AGENT, [copy]) == []


def test_migration_6_removes_the_duplicate_chunks_of_a_sqlite_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    kept, copy = damage(store)
    store.close()
    with sqlite3.connect(tmp_path / "huiyi.sqlite") as conn:  # back to schema 5, as a damaged store is
        conn.execute("ALTER TABLE messages DROP COLUMN claimed_by")
        conn.execute("ALTER TABLE messages DROP COLUMN claim_until")
        conn.execute("ALTER TABLE jobs DROP COLUMN claims")  # schema 7 goes back too
        conn.execute("ALTER TABLE memories DROP COLUMN said_at")  # and schema 8
        back_to_schema_15(conn)  # and schema 16
        conn.execute("DROP INDEX jobs_space")  # and schema 14
        conn.execute("ALTER TABLE jobs DROP COLUMN space")
        conn.execute("ALTER TABLE jobs DROP COLUMN folded_by")
        conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    store = SQLiteStore(tmp_path)
    assert_repaired(store, kept, copy)
    store.close()


def test_migration_6_removes_the_duplicate_chunks_of_a_postgres_store() -> None:
    dsn = pg_server.fresh_dsn()
    store = PostgresStore(dsn, pool_size=2)
    kept, copy = damage(store)
    store.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE messages DROP COLUMN claimed_by, DROP COLUMN claim_until")
        conn.execute("ALTER TABLE jobs DROP COLUMN claims")  # schema 7 goes back too
        conn.execute("ALTER TABLE memories DROP COLUMN said_at")  # and schema 8
        conn.execute("DELETE FROM schema_migrations WHERE version >= 6")
    store = PostgresStore(dsn, pool_size=2)
    assert_repaired(store, kept, copy)
    store.close()
