"""The embedded store's keyword route names its hits from the vector cache's partitions (issue 15): a
partition loaded at the version read with the hits knows each of its rows' memory id, so no second read
of ``memories`` maps rowids to ids. The hits, scores and recall are those of reading the ids, and a
partition another process changed is never taken at its old version."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Terms
from huiyi.store.sqlite import SQLiteStore
from huiyi.text import tokens

EMB = HashEmbedder(32)
MUMU, OFFICIAL = Scope.of_person("qy", "mumu"), Scope.official("qy")
TOPICS = ["猫", "咖啡馆", "hiking", "驾照", "莫兰迪色系", "火锅", "图书馆", "support group"]
QUERIES = ["木木喜欢猫", "hiking support group", "咖啡馆 火锅", "考驾照", "图书馆的猫", "莫兰迪"]


def _terms(text: str) -> Terms:
    return Terms(tokens.words(text), tokens.chars(text))


def _add(store: SQLiteStore, scope: Scope, texts: list[str], prefix: str) -> None:
    items = [MemoryItem(id=f"{prefix}{n}", scope=scope, kind=MemoryKind.NOTE, text=t) for n, t in enumerate(texts)]
    store.add_memories(items, EMB.embed_passages(texts), [_terms(t) for t in texts])


def _texts(n: int) -> list[str]:
    return [f"木木第{i}次说起{TOPICS[i % len(TOPICS)]}和{TOPICS[i * 3 % len(TOPICS)]}" for i in range(n)]


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "store")
    _add(store, MUMU, _texts(60), "m")
    _add(store, OFFICIAL, [f"official {t} note" for t in TOPICS], "o")
    yield store
    store.close()


def _keyword(store: SQLiteStore, query: str) -> list[tuple[str, float, int | None]]:
    return [(h.id, h.score, h.key) for h in store.search_keyword([OFFICIAL, MUMU], _terms(query), 20).hits]


def _loaded(store: SQLiteStore) -> None:
    """The scopes' partitions in the vector cache, as a recall's dense route leaves them."""
    store.search_dense([OFFICIAL, MUMU], EMB.embed_queries(["猫"])[0], 5)


def test_the_keyword_route_names_its_hits_from_the_loaded_partitions(filled: SQLiteStore) -> None:
    _loaded(filled)
    read: list[str] = []
    filled._conn().set_trace_callback(read.append)
    try:
        hits = _keyword(filled, "木木喜欢猫")
    finally:
        filled._conn().set_trace_callback(None)
    assert hits
    assert not [sql for sql in read if "FROM memories" in sql]  # the ids came from the cache


def test_ids_from_the_cache_give_the_hits_and_scores_of_reading_them(filled: SQLiteStore) -> None:
    _loaded(filled)
    cached = [_keyword(filled, query) for query in QUERIES]
    filled._vectors.clear()  # nothing loaded: every id is read from the database, as before
    read = [_keyword(filled, query) for query in QUERIES]
    assert cached == read and all(read)


def test_recall_s_top_ten_is_the_same_with_the_ids_cached_or_read(tmp_path: Path) -> None:
    with Memory(tmp_path / "mem", embedder=EMB, config=Config(worker={"enabled": False})) as memory:
        store = memory.store
        assert isinstance(store, SQLiteStore)
        _add(store, MUMU, _texts(60), "m")

        def top(query: str) -> list[tuple[str, float]]:
            now = datetime(2025, 1, 1)
            return [(h.id, h.score) for h in memory.recall(query, agent="qy", person="mumu", limit=10, now=now).hits]

        warm = [top(query) for query in QUERIES]
        again = [top(query) for query in QUERIES]  # the partitions loaded by the first round
        store._vectors.clear()
        store._ranks.clear()
        cold = [top(query) for query in QUERIES]
    assert again == warm == cold and all(cold)


def test_a_rowid_another_process_freed_and_gave_a_new_memory_is_named_anew(filled: SQLiteStore, tmp_path: Path) -> None:
    _loaded(filled)
    last = filled._conn().execute("SELECT id, rowid FROM memories ORDER BY rowid DESC LIMIT 1").fetchone()
    other = SQLiteStore(tmp_path / "store")  # another process: its own caches, the same file
    try:
        other.delete_memories("qy", [last[0]])
        _add(other, OFFICIAL, ["official 猫 猫 猫 note again"], "new")
    finally:
        other.close()
    reused = filled._conn().execute("SELECT id FROM memories WHERE rowid = ?", (last[1],)).fetchone()
    assert reused == ("new0",)  # SQLite gave the freed rowid to the new memory
    ids = [memory_id for memory_id, _, _ in _keyword(filled, "猫")]
    assert "new0" in ids and last[0] not in ids


def _partition_reads(store: SQLiteStore, calls: Callable[[], object]) -> int:
    read: list[str] = []
    store._conn().set_trace_callback(read.append)
    try:
        calls()
    finally:
        store._conn().set_trace_callback(None)
    return len([sql for sql in read if "FROM partitions" in sql])


def test_a_snapshot_reads_each_partition_s_row_once(filled: SQLiteStore) -> None:
    _loaded(filled)
    ids = [hit.id for hit in filled.search_keyword([OFFICIAL, MUMU], _terms("猫"), 10).hits]

    def recall_reads() -> None:  # what recall asks of the partitions in its snapshot
        with filled.reading("qy"):
            filled.search_keyword([OFFICIAL, MUMU], _terms("猫"), 10)
            filled.search_dense([OFFICIAL, MUMU], EMB.embed_queries(["猫"])[0], 10)
            filled.rank_rows("qy", ids)
            filled.recall_memories("qy", ids)

    recall_reads()
    assert _partition_reads(filled, recall_reads) == 1
    # outside a snapshot every call reads them anew
    assert _partition_reads(filled, lambda: [_keyword(filled, "猫"), _keyword(filled, "猫")]) == 2


def test_a_write_in_a_snapshot_is_seen_by_the_reads_after_it(filled: SQLiteStore) -> None:
    with filled.reading("qy"):
        before = _keyword(filled, "火锅")
        _add(filled, MUMU, ["木木说火锅火锅火锅"], "hot")
        after = _keyword(filled, "火锅")
        dense = filled.search_dense([MUMU], EMB.embed_queries(["木木说火锅火锅火锅"])[0], 1).hits
    assert "hot0" not in [i for i, _, _ in before] and after[0][0] == "hot0" and dense[0].id == "hot0"


def test_another_process_s_write_is_seen_once_the_snapshot_ends(filled: SQLiteStore, tmp_path: Path) -> None:
    other = SQLiteStore(tmp_path / "store")
    try:
        with filled.reading("qy"):
            _keyword(filled, "火锅")
            _add(other, MUMU, ["木木说火锅火锅火锅"], "hot")
            assert "hot0" not in [i for i, _, _ in _keyword(filled, "火锅")]  # the snapshot's moment
        with filled.reading("qy"):
            assert _keyword(filled, "火锅")[0][0] == "hot0"
    finally:
        other.close()
