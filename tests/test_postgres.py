"""What is specific to PostgreSQL: several processes on one database, dead workers, migrations.

The store contract itself runs on PostgreSQL through ``STORE_FACTORIES`` (test_store_contract.py).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from datetime import datetime, timedelta
from multiprocessing.synchronize import Barrier, Event

import numpy as np
import psycopg
import pytest

import pg_server
from huiyi.errors import SchemaTooNew, ScopeError
from huiyi.model import Job, JobState, MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Terms, Writes
from huiyi.store.postgres import PostgresStore
from huiyi.store.postgres import search_sql as search
from huiyi.store.postgres.schema import MIGRATIONS
from huiyi.store.router import RoutedStore
from huiyi.store.rows import partition_key
from huiyi.text import tokens

EMB = HashEmbedder(16)
SCOPE = Scope.of_person("qy", "mumu")
# spawned, not forked: the parent holds a connection pool with threads of its own
SPAWN = multiprocessing.get_context("spawn")


@pytest.fixture
def dsn() -> str:
    return pg_server.fresh_dsn()


def job_writes(job: Job) -> Writes:
    """What running a job writes; its memory id is derived from the job, as real jobs' ids are."""
    item = MemoryItem(id=f"mem_{job.id}", scope=SCOPE, kind=MemoryKind.NOTE, text=f"job {job.key}")
    return Writes(memories=[item], vectors=EMB.embed_passages([item.text]), terms=[Terms([job.key], [])])


def work_until_empty(dsn: str, worker: str, start: Barrier, claimed: multiprocessing.Queue[str]) -> None:
    store = PostgresStore(dsn, pool_size=2)
    start.wait(60)
    while (job := store.claim_job(worker, datetime.now(), lease_seconds=60)) is not None:
        claimed.put(job.id)
        time.sleep(0.002)  # the "work": long enough for the other worker to interleave
        store.apply(job_writes(job), complete_job=(job.id, worker))
    store.close()


def claim_and_die(dsn: str, claimed: Event) -> None:
    store = PostgresStore(dsn, pool_size=1)
    assert store.claim_job("doomed", datetime.now(), lease_seconds=60) is not None
    claimed.set()
    time.sleep(600)  # killed long before this ends


def lock_and_die(dsn: str, locked: Event) -> None:
    conn = psycopg.connect(dsn)
    conn.execute("SELECT id FROM jobs FOR UPDATE")  # a claim caught mid-transaction
    locked.set()
    time.sleep(600)


def test_two_worker_processes_run_every_job_once(dsn: str) -> None:
    store = PostgresStore(dsn)
    jobs = [Job(kind="fold", agent="qy", key=f"k{i:03d}") for i in range(80)]
    assert all(store.enqueue_job(job) for job in jobs)
    start, claimed = SPAWN.Barrier(2), SPAWN.Queue()
    workers = [SPAWN.Process(target=work_until_empty, args=(dsn, f"w{n}", start, claimed)) for n in (1, 2)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
    assert [p.exitcode for p in workers] == [0, 0]
    seen = [claimed.get(timeout=5) for _ in range(len(jobs))]
    assert claimed.empty()
    assert sorted(seen) == sorted(job.id for job in jobs)  # each claimed once, none lost
    done = store.list_jobs("qy", limit=1000)
    assert {j.state for j in done} == {JobState.DONE} and {(j.claims, j.attempts) for j in done} == {(1, 0)}
    assert {j.worker for j in done} == {"w1", "w2"}  # both really worked
    assert store.count_memories(scopes=[SCOPE]) == len(jobs)
    store.close()


def test_a_dead_workers_job_is_taken_again_after_its_lease(dsn: str) -> None:
    store = PostgresStore(dsn)
    job = Job(kind="fold", agent="qy", key="k")
    store.enqueue_job(job)
    claimed = SPAWN.Event()
    doomed = SPAWN.Process(target=claim_and_die, args=(dsn, claimed))
    doomed.start()
    assert claimed.wait(60)
    os.kill(doomed.pid or 0, signal.SIGKILL)
    doomed.join(10)
    now = datetime.now()
    assert store.claim_job("w2", now + timedelta(seconds=30), 60) is None  # the lease still holds
    again = store.claim_job("w2", now + timedelta(seconds=61), 60)
    assert again is not None and (again.id, again.claims, again.attempts) == (job.id, 2, 0)  # death is no attempt
    store.apply(job_writes(again), complete_job=(again.id, "w2"))
    (finished,) = store.list_jobs("qy")
    assert (finished.state, finished.worker) == (JobState.DONE, "w2")
    store.close()


def test_a_claim_skips_a_locked_job_and_gets_it_when_the_locker_dies(dsn: str) -> None:
    store = PostgresStore(dsn)
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    locked = SPAWN.Event()
    locker = SPAWN.Process(target=lock_and_die, args=(dsn, locked))
    locker.start()
    assert locked.wait(60)
    started = time.perf_counter()
    assert store.claim_job("w", datetime.now(), 60) is None  # skipped, not waited for
    assert time.perf_counter() - started < 1.0
    os.kill(locker.pid or 0, signal.SIGKILL)
    locker.join(10)
    deadline = time.monotonic() + 10  # the server rolls back the dead session's transaction
    while (job := store.claim_job("w", datetime.now(), 60)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job is not None and (job.claims, job.attempts) == (1, 0)
    store.close()


def test_migrations_are_idempotent_and_refuse_newer_schemas(dsn: str) -> None:
    first = PostgresStore(dsn)
    assert first.schema_version() == len(MIGRATIONS)
    first.close()
    again = PostgresStore(dsn)
    assert again.schema_version() == len(MIGRATIONS)
    again.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == list(range(1, len(MIGRATIONS) + 1))
        conn.execute("INSERT INTO schema_migrations (version) VALUES (999)")
    with pytest.raises(SchemaTooNew, match="upgrade huiyi"):
        PostgresStore(dsn)


def test_stores_opening_a_new_database_at_once_migrate_it_once(dsn: str) -> None:
    opened: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_store() -> None:
        try:
            opened.append(PostgresStore(dsn, pool_size=1))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert {store.schema_version() for store in opened} == {len(MIGRATIONS)}
    for store in opened:
        store.close()


def test_keyword_ranking_weighs_rare_terms_over_common_ones(dsn: str) -> None:
    """BM25's inverse document frequency: a character in every memory counts for little."""
    store = PostgresStore(dsn)
    texts = [f"今天的天气{i}" for i in range(20)] + ["我的猫叫小白"]
    items = [MemoryItem(scope=SCOPE, kind=MemoryKind.NOTE, text=t) for t in texts]
    terms = [Terms(tokens.words(t), tokens.chars(t)) for t in texts]
    store.add_memories(items, EMB.embed_passages(texts), terms)
    hits = store.search_keyword([SCOPE], Terms([], ["的", "猫"]), 5).hits
    assert hits[0].id == items[-1].id
    assert hits[0].score > 2 * hits[1].score
    store.close()


def test_phrases_rank_alike_through_gin_and_scope_scan(dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both plans count phrase and bigram occurrences the same way (a scope past SCAN_DOCS takes the GIN one)."""
    store = PostgresStore(dsn)
    texts = ["我们下周去参加支持小组", "小组里大家互相支持", "support group on monday", "group work, then support"]
    texts += [f"今天的天气{i}" for i in range(6)]
    items = [MemoryItem(scope=SCOPE, kind=MemoryKind.NOTE, text=t) for t in texts]
    store.add_memories(items, EMB.embed_passages(texts), [Terms(tokens.words(t), tokens.chars(t)) for t in texts])
    queries = [Terms(["支持小组"], ["支", "持", "小", "组"]), Terms(["support", "group"], [])]
    scanned = [store.search_keyword([SCOPE], q, 10).hits for q in queries]
    monkeypatch.setattr(search, "SCAN_DOCS", 0)
    indexed = [store.search_keyword([SCOPE], q, 10).hits for q in queries]
    assert [[h.id for h in hits] for hits in indexed] == [[h.id for h in hits] for hits in scanned]
    for a, b in zip(indexed, scanned, strict=True):
        assert [h.score for h in a] == pytest.approx([h.score for h in b])
    assert scanned[0][0].id == items[0].id and scanned[1][0].id == items[2].id
    store.close()


def test_a_bigram_alone_makes_a_memory_a_candidate(dsn: str) -> None:
    """A bigram whose characters are not among the query's (stop characters, say) is matched with <->,
    so its document frequency stays exact and a memory holding only it is found, as in SQLite."""
    store = PostgresStore(dsn)
    texts = ["真好的天气", "好天气的时候", "我家的猫"]
    items = [MemoryItem(scope=SCOPE, kind=MemoryKind.NOTE, text=t) for t in texts]
    store.add_memories(items, EMB.embed_passages(texts), [Terms(tokens.words(t), tokens.chars(t)) for t in texts])
    hits = store.search_keyword([SCOPE], Terms(["好的"], ["狗"]), 5).hits  # 好的 is no word of any memory
    assert [h.id for h in hits] == [items[0].id]
    # no characters asked: the bigram still counts, as in FTS5's query (store.bm25)
    assert [h.id for h in store.search_keyword([SCOPE], Terms(["好的"], []), 5).hits] == [items[0].id]
    store.close()


def test_a_second_process_sees_writes_at_once(dsn: str) -> None:
    one, two = PostgresStore(dsn), PostgresStore(dsn)
    item = MemoryItem(scope=SCOPE, kind=MemoryKind.NOTE, text="第一条")
    query = EMB.embed_queries(["第一条"])[0]
    assert two.search_dense([SCOPE], query, 5).hits == []
    one.add_memories([item], EMB.embed_passages([item.text]), [Terms(["第一条"], [])])
    assert [h.id for h in two.search_dense([SCOPE], query, 5).hits] == [item.id]
    assert two.count_memories(scopes=[SCOPE]) == 1
    one.delete_memories("qy", [item.id])
    assert two.count_memories(scopes=[SCOPE]) == 0
    one.close()
    two.close()


# routing agents across several databases ------------------------------------------------------------
def test_a_routed_store_keeps_each_agent_in_one_database() -> None:
    shards = {"pg1": PostgresStore(pg_server.fresh_dsn()), "pg2": PostgresStore(pg_server.fresh_dsn())}
    routed = RoutedStore(shards)
    assert isinstance(routed, Store)
    agents = [f"agent{i}" for i in range(40)]
    homes = {agent: routed.name_for(agent) for agent in agents}
    assert set(homes.values()) == {"pg1", "pg2"}
    assert RoutedStore(shards).name_for("agent7") == homes["agent7"]  # stable across instances
    for agent in agents:
        scope = Scope.of_person(agent, "mumu")
        item = MemoryItem(scope=scope, kind=MemoryKind.NOTE, text=f"{agent}: 我的猫叫团子")
        routed.add_memories([item], EMB.embed_passages([item.text]), [Terms(tokens.words(item.text), [])])
        hits = routed.search_keyword([scope], Terms(["团子"], []), 5).hits
        assert [h.id for h in hits] == [item.id]
        assert shards[homes[agent]].count_memories(agent) == 1
        assert shards["pg1" if homes[agent] == "pg2" else "pg2"].count_memories(agent) == 0
    assert routed.count_memories() == len(agents)
    # a call naming two agents has no single home
    with pytest.raises(ScopeError, match="several agents"):
        routed.search_dense([Scope.official("agent1"), Scope.official("agent2")], EMB.embed_queries(["猫"])[0], 5)
    # workers claim from every database; completion goes back to the job's own
    for agent in agents[:6]:
        routed.enqueue_job(Job(kind="fold", agent=agent, key=f"fold:{agent}"))
    worker = RoutedStore(shards)  # another process: it did not enqueue the jobs
    while (job := worker.claim_job("w", datetime.now(), 60)) is not None:
        worker.apply(Writes(), complete_job=(job.id, "w"))
    assert [j.state for j in routed.list_jobs()] == [JobState.DONE] * 6
    # adding a store moves only the agents it wins
    grown = RoutedStore({**shards, "pg3": shards["pg1"]})
    moved = [a for a in agents if grown.name_for(a) != homes[a]]
    assert all(grown.name_for(a) == "pg3" for a in moved) and len(moved) < len(agents) / 2
    routed.close()


def test_hnsw_serves_search_across_scopes_and_never_scoped_recall(dsn: str) -> None:
    store = PostgresStore(dsn)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((600, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    persons = [Scope.of_person("qy", f"p{i}") for i in range(30)]
    items = [MemoryItem(scope=persons[i % 30], kind=MemoryKind.NOTE, text=f"记忆{i}") for i in range(600)]
    store.add_memories(items, vectors, [Terms([], []) for _ in items])
    stranger = MemoryItem(scope=Scope.official("other"), kind=MemoryKind.NOTE, text="别人的记忆")
    store.add_memories([stranger], vectors[:1], [Terms([], [])])
    scoped = [Scope.official("qy"), persons[3]]
    before = [store.search_dense(scoped, vectors[i], 5).hits for i in range(10)]
    store.create_hnsw_index(16)
    assert [store.search_dense(scoped, vectors[i], 5).hits for i in range(10)] == before
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ANALYZE")
        conn.execute("SET enable_seqscan = off")  # tempt the planner as far as it goes
        args = {"q": search.vector_literal(vectors[0]), "parts": [partition_key("qy", s) for s in scoped], "limit": 5}
        scoped_plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + search.DENSE, args))
        across = search.DENSE_ACROSS.replace("{dim}", "16")
        across_plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + across, {**args, "agent": "qy"}))
    assert "hnsw" not in scoped_plan and "memory_vectors_hnsw_16" in across_plan
    found = store.search_dense_agent("qy", vectors[0], 5).hits
    assert found[0].id == items[0].id and found[0].score == pytest.approx(1.0, abs=1e-2)
    assert stranger.id not in {h.id for h in found}
    store.close()


def test_a_postgresql_url_selects_the_postgresql_store() -> None:
    from huiyi import Memory
    from huiyi.config import Config

    dsn = pg_server.fresh_dsn()
    with Memory(dsn, embedder=HashEmbedder(16), config=Config(worker={"enabled": False})) as memory:
        assert isinstance(memory.store, PostgresStore)
        memory.add(["我家的猫叫团子"], agent="a", person="p")
        assert memory.recall("猫", agent="a", person="p").hits
