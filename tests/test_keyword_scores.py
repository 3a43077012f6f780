"""The keyword route's BM25 scores: the same memories and query score alike on every backend, and a
scope's scores follow what the scopes searched hold (README, docs/scaling.md: the statistics are the
scope's), so a store moved from SQLite to PostgreSQL fuses its routes as before.

SQLite scores with its own BM25 over the ``partitions`` counters (``huiyi.store.sqlite.keyword``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from conftest import STORE_FACTORIES
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Terms
from huiyi.store.sqlite import SQLiteStore
from huiyi.text import tokens

EMB = HashEmbedder(32)
OFFICIAL, MUMU, AMY = Scope.official("qy"), Scope.of_person("qy", "mumu"), Scope.of_person("qy", "amy")
MEMORIES = {
    OFFICIAL: ["顾北辰是一位插画师，喜欢安静的咖啡馆", "official note: the hiking club meets on friday"],
    MUMU: ["木木喜欢莫兰迪色系", "木木下周三要考驾照科目二", "木木 went hiking with her support group", "木木喜欢猫"],
}
QUERIES = ["木木喜欢莫兰迪色系", "hiking support group", "顾北辰 咖啡馆"]


def _add(store: Store, scope: Scope, texts: list[str], prefix: str) -> None:
    items = [
        MemoryItem(id=f"{prefix}{i}", scope=scope, kind=MemoryKind.NOTE, text=text) for i, text in enumerate(texts)
    ]
    terms = [Terms(tokens.words(t), tokens.chars(t)) for t in texts]
    store.add_memories(items, EMB.embed_passages(texts), terms)


def _scores(store: Store, query: str) -> dict[str, float]:
    terms = Terms(tokens.words(query), tokens.chars(query))
    return {hit.id: hit.score for hit in store.search_keyword([OFFICIAL, MUMU], terms, 10).hits}


def _filled(make: Callable[[Path], Store], path: Path) -> Store:
    store = make(path)
    for n, (scope, texts) in enumerate(MEMORIES.items()):
        _add(store, scope, texts, f"s{n}-")
    _add(store, AMY, ["阿哲喜欢莫兰迪色系的衣服", "amy bought hiking boots"], "amy-")
    return store


def test_every_backend_scores_the_same_memories_and_query_alike(tmp_path: Path) -> None:
    by_backend: dict[str, list[dict[str, float]]] = {}
    for backend, make in sorted(STORE_FACTORIES.items()):
        store = _filled(make, tmp_path / backend)
        try:
            by_backend[backend] = [_scores(store, query) for query in QUERIES]
        finally:
            store.close()
    first, *others = by_backend.values()
    for other in others:
        assert [set(found) for found in other] == [set(found) for found in first]  # the same hits
        assert other == [pytest.approx(found, rel=1e-4) for found in first]


def test_a_scope_s_scores_do_not_follow_what_other_scopes_hold(store: Store) -> None:
    for n, (scope, texts) in enumerate(MEMORIES.items()):
        _add(store, scope, texts, f"s{n}-")
    before = [_scores(store, query) for query in QUERIES]
    assert all(before)

    _add(store, AMY, [f"阿哲第{i}次去咖啡馆 hiking again" for i in range(30)], "amy-")
    assert [_scores(store, query) for query in QUERIES] == [pytest.approx(found, rel=1e-4) for found in before]


def test_forgetting_and_erasing_keep_the_scopes_counts(tmp_path: Path) -> None:
    store = _filled(STORE_FACTORIES["sqlite"], tmp_path / "sqlite")
    try:
        assert isinstance(store, SQLiteStore)

        def counted() -> dict[str, tuple[int, int]]:
            rows = store._conn().execute("SELECT scope, docs, fts_total FROM partitions")
            return {scope: (docs, tokens) for scope, docs, tokens in rows}

        def recounted() -> dict[str, tuple[int, int]]:
            rows = store._conn().execute(
                "SELECT m.scope, count(*), sum(l.tokens) FROM memories m JOIN memory_fts_lengths l USING (rowid)"
                " GROUP BY m.part"
            )
            return {scope: (docs, tokens) for scope, docs, tokens in rows}

        held = store._conn().execute(  # every token FTS5 holds for the scope's rows, the part's own too
            "SELECT count(*) FROM memory_fts_instances WHERE doc IN (SELECT rowid FROM memories WHERE scope = ?)",
            (MUMU.tag,),
        )
        assert counted()[MUMU.tag] == (4, held.fetchone()[0]) == recounted()[MUMU.tag]
        before = _scores(store, QUERIES[0])
        store.delete_memories("qy", ["s1-0"])
        assert counted() == recounted() and counted()[MUMU.tag][0] == 3
        store.erase("qy", [], person="amy")
        assert AMY.tag not in counted() and counted() == recounted()
        assert set(_scores(store, QUERIES[0])) == set(before) - {"s1-0"}
    finally:
        store.close()


def test_a_search_in_a_snapshot_reads_no_posting_list_twice_and_scores_as_alone(tmp_path: Path) -> None:
    # a turn's keyword route searches its exchange, then its latest line, whose words the exchange holds
    store = _filled(STORE_FACTORIES["sqlite"], tmp_path / "sqlite")
    try:
        assert isinstance(store, SQLiteStore)
        exchange, latest = "今天好累\n木木喜欢莫兰迪色系", "木木喜欢莫兰迪色系"
        queries = [exchange, latest, "木木喜欢猫", "hiking boots 咖啡馆", "没有的词"]
        alone = [_scores(store, query) for query in queries]
        store._postings.clear()  # what those searches read is kept across snapshots too (the next test)
        statements: list[str] = []
        with store.reading("qy"):
            _scores(store, queries[0])
            store._conn().set_trace_callback(statements.append)
            try:
                again = [_scores(store, query) for query in queries[1:]]
            finally:
                store._conn().set_trace_callback(None)
        assert again == alone[1:] and alone[1]  # the same scores, however the posting lists were read
        reads = [sql for sql in statements if "memory_fts_instances" in sql]
        assert len(reads) == 3  # the latest line's words were all read with the exchange; the others were not
    finally:
        store.close()


def _posting_reads(store: SQLiteStore, queries: list[str]) -> tuple[list[dict[str, float]], int]:
    """Each query's scores, one snapshot each as recall's, and how many statements read posting lists."""
    statements: list[str] = []
    store._conn().set_trace_callback(statements.append)
    try:
        scores = [_scores(store, query) for query in queries]
    finally:
        store._conn().set_trace_callback(None)
    return scores, len([sql for sql in statements if "memory_fts_instances" in sql])


def test_the_next_recall_in_a_scope_reads_no_posting_list_read_before(tmp_path: Path) -> None:
    # issue 15: reading a query's posting lists was a fifth of a recall without the embedding at 100k
    store = _filled(STORE_FACTORIES["sqlite"], tmp_path / "sqlite")
    try:
        assert isinstance(store, SQLiteStore)
        first, reads = _posting_reads(store, ["木木喜欢莫兰迪色系", "木木喜欢猫"])
        assert reads == 2  # the second query's 猫 was not read with the first
        again, reads = _posting_reads(store, ["木木喜欢莫兰迪色系", "木木喜欢猫", "喜欢猫"])
        assert reads == 0 and again[:2] == first
        store._postings.clear()
        assert _posting_reads(store, ["木木喜欢莫兰迪色系", "木木喜欢猫", "喜欢猫"]) == (again, 2)
    finally:
        store.close()


def test_a_write_to_a_scope_is_searched_at_once_though_its_lists_were_kept(tmp_path: Path) -> None:
    store = _filled(STORE_FACTORIES["sqlite"], tmp_path / "sqlite")
    try:
        assert isinstance(store, SQLiteStore)
        before, _ = _posting_reads(store, ["木木喜欢猫"])
        _add(store, MUMU, ["木木喜欢猫和狗"], "new-")  # the partition's version moves on
        after, reads = _posting_reads(store, ["木木喜欢猫"])
        assert reads == 1 and "new-0" in after[0] and "new-0" not in before[0]
        store.delete_memories("qy", ["new-0", "s1-3"])
        gone, _ = _posting_reads(store, ["木木喜欢猫"])
        assert not {"new-0", "s1-3"} & set(gone[0])
        store._postings.clear()
        assert _posting_reads(store, ["木木喜欢猫"])[0] == gone  # as read afresh
    finally:
        store.close()


def test_rows_tied_at_the_cut_are_all_kept_whatever_order_they_were_written_in(store: Store) -> None:
    """Which of tied rows a cut kept followed their rowids: a batching of adds changed which came back."""
    texts = [f"周末爬山 {w}" for w in ("alpha", "bravo", "delta", "echo", "golf", "hotel")]  # scores tie
    _add(store, MUMU, texts[3:], "late-")  # written out of order
    _add(store, MUMU, texts[:3], "early-")
    terms = Terms(tokens.words("爬山"), tokens.chars("爬山"))
    hits = store.search_keyword([MUMU], terms, 2).hits
    assert len({hit.score for hit in hits}) == 1
    assert len(hits) == 4  # twice the limit at most
    assert len(store.search_keyword([MUMU], terms, 4).hits) == 6


def test_a_phrases_rows_count_its_tokens_in_order_one_right_after_another() -> None:
    # a phrase's (rowid, tf, row length) rows are kept beside its tokens' lists (issue 15): made from them
    from huiyi.store.sqlite.keyword import _rows_of

    def listed(*instances: tuple[int, int, int]) -> np.ndarray:
        return np.asarray([(0, r, offset, length) for r, offset, length in instances], dtype=np.int64).reshape(-1, 4)

    held = {
        ("chars", "喜"): listed((7, 0, 9), (7, 4, 9), (3, 2, 5), (9, 1, 4)),  # in rows 7 (twice), 3, 9
        ("chars", "欢"): listed((7, 1, 9), (7, 5, 9), (3, 4, 5), (9, 2, 4), (12, 0, 2)),  # after it in 7 (twice), 9
        ("chars", "猫"): listed(),
    }
    numbers = {token: n for n, token in enumerate(held)}
    phrases = [("chars", ("喜",)), ("chars", ("喜", "欢")), ("chars", ("欢", "猫")), ("chars", ("猫",))]
    made = [rows.tolist() for rows in _rows_of(phrases, numbers, held)]  # type: ignore[arg-type]
    assert made == [[[3, 1, 5], [7, 2, 9], [9, 1, 4]], [[7, 2, 9], [9, 1, 4]], [], []]
