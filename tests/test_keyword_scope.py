"""Keyword search stays inside its scopes: what other scopes hold changes neither its hits nor their
order (issue 15: the search's cost and its document frequencies follow the scope, not the store),
and a store written before partition-coded tokens (schema 9) is converted when opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Terms
from huiyi.store.rows import partition_key
from huiyi.store.sqlite import DB_NAME, SQLiteStore
from huiyi.store.sqlite import memories as memories_module
from huiyi.store.sqlite.fts import MERGE_STEP_PAGES, scope_code
from huiyi.text import tokens

EMB = HashEmbedder(32)


def _add(store: Store, scope: Scope, texts: list[str], prefix: str) -> list[str]:
    items = [
        MemoryItem(id=f"{prefix}{i}", scope=scope, kind=MemoryKind.NOTE, text=text) for i, text in enumerate(texts)
    ]
    terms = [Terms(tokens.words(t), tokens.chars(t)) for t in texts]
    store.add_memories(items, EMB.embed_passages(texts), terms)
    return [item.id for item in items]


def _ranked(store: Store, scope: Scope, query: Terms) -> list[str]:
    return [hit.id for hit in store.search_keyword([scope], query, 10).hits]


def test_a_term_common_in_another_scope_does_not_reorder_this_one(store: Store) -> None:
    mine, other = Scope.of_person("qy", "mumu"), Scope.of_person("qy", "amy")
    # within mine, zebra is the rarer word, so its memory ranks first; in the whole store it is common
    _add(store, mine, ["zebra stripes", "lion mane", "lion roar", "quiet evening"], "a")
    _add(store, mine, ["斑马很好看", "狮子很凶", "狮子在睡觉"], "z")
    query = Terms(["zebra", "lion"], [])
    query_zh = Terms([], ["斑", "马", "狮", "子"])
    before, before_zh = _ranked(store, mine, query), _ranked(store, mine, query_zh)
    assert before[0] == "a0" and set(before) == {"a0", "a1", "a2"}
    assert before_zh[0] == "z0" and set(before_zh) == {"z0", "z1", "z2"}

    _add(store, other, [f"zebra number {i}" for i in range(60)] + [f"斑马第{i}只" for i in range(60)], "b")
    assert _ranked(store, mine, query) == before
    assert _ranked(store, mine, query_zh) == before_zh
    # and the other scope's memories are found in it alone
    assert all(h.startswith("b") for h in _ranked(store, other, query))


def test_scopes_searched_together_each_keep_their_own_words(store: Store) -> None:
    mine, other = Scope.of_person("qy", "mumu"), Scope.of_person("qy", "amy")
    _add(store, mine, ["went hiking in the hills", "support group on friday"], "a")
    _add(store, other, ["hiking boots", "a group of friends"], "b")
    both = {h.id for h in store.search_keyword([mine, other], Terms(["hike"], []), 10).hits}
    assert both == {"a0", "b0"}  # stemmed in either scope
    phrase = store.search_keyword([mine, other], Terms(["support", "group"], []), 10).hits
    assert phrase[0].id == "a1"


def _old_store(path: Path) -> tuple[Scope, Scope]:
    """A store as schema 9 left it: its keyword rows hold the bare words and characters."""
    mine, other = Scope.of_person("qy", "mumu"), Scope.of_person("qy", "amy")
    store = SQLiteStore(path)
    _add(store, mine, ["Caroline went hiking with friends", "木木去了图书馆"], "a")
    _add(store, other, ["hiking alone", "图书馆关门了"], "b")
    store.close()
    conn = sqlite3.connect(path / DB_NAME, isolation_level=None)
    rows = conn.execute(
        "SELECT f.rowid, f.part, m.text FROM memory_fts f JOIN memories m ON m.rowid = f.rowid"
    ).fetchall()
    conn.execute("DELETE FROM memory_fts")
    for rowid, part, text in rows:
        conn.execute(
            "INSERT INTO memory_fts (rowid, part, words, chars) VALUES (?, ?, ?, ?)",
            (rowid, part, " ".join(tokens.words(text)), " ".join(tokens.chars(text))),
        )
    back_to_schema_9(conn)
    conn.close()
    return mine, other


def back_to_schema_17(conn: sqlite3.Connection) -> None:
    """Undo schema 18 (its columns cannot be added twice)."""
    conn.execute("ALTER TABLE messages DROP COLUMN time_fold")
    for column in ("time_fold", "said_at_fold"):
        conn.execute(f"ALTER TABLE memories DROP COLUMN {column}")
    conn.execute("UPDATE meta SET value = '17' WHERE key = 'schema_version'")


def back_to_schema_15(conn: sqlite3.Connection) -> None:
    """Undo schemas 18 and 16 (their columns cannot be added twice)."""
    back_to_schema_17(conn)
    conn.execute("DROP TABLE memory_fts_instances")
    conn.execute("DROP TABLE memory_fts_lengths")
    for column in ("docs", "fts_total"):
        conn.execute(f"ALTER TABLE partitions DROP COLUMN {column}")
    conn.execute("UPDATE meta SET value = '15' WHERE key = 'schema_version'")


def back_to_schema_9(conn: sqlite3.Connection) -> None:
    """Undo what later migrations did that cannot run twice (schema 14's and 16's columns)."""
    back_to_schema_15(conn)
    conn.execute("DROP INDEX jobs_space")
    conn.execute("ALTER TABLE jobs DROP COLUMN space")
    conn.execute("ALTER TABLE jobs DROP COLUMN folded_by")
    conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")


def test_opening_a_schema_9_store_codes_its_keyword_rows(tmp_path: Path) -> None:
    mine, other = _old_store(tmp_path)
    for _ in range(2):  # a second conversion (a store rolled back, as tests do) changes nothing
        store = SQLiteStore(tmp_path)
        try:
            assert store.schema_version() >= 10
            assert _ranked(store, mine, Terms(["hike"], [])) == ["a0"]
            assert _ranked(store, mine, Terms([], ["图", "书"])) == ["a1"]
            assert _ranked(store, other, Terms(["hike"], [])) == ["b0"]
            conn = store._conn()
            counted = conn.execute("SELECT sum(docs), sum(fts_total) FROM partitions").fetchone()
            assert counted == conn.execute("SELECT count(*), sum(tokens) FROM memory_fts_lengths").fetchone()
            assert counted[0] == conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            # the old rows' lengths, as FTS5 counts them: every token of every column
            assert counted[1] == conn.execute("SELECT count(*) FROM memory_fts_instances").fetchone()[0] > 0
            words = dict(conn.execute("SELECT part, words FROM memory_fts WHERE rowid = 1").fetchall())
            code = scope_code(partition_key("qy", mine))
            assert words == {
                partition_key("qy", mine): " ".join(code + w for w in ["caroline", "went", "hiking", "with", "friends"])
            }
            back_to_schema_9(conn)
        finally:
            store.close()


def test_forgetting_a_memory_takes_its_coded_terms(store: Store) -> None:
    mine = Scope.of_person("qy", "mumu")
    ids = _add(store, mine, ["zebra stripes", "zebra crossing"], "a")
    store.delete_memories("qy", ids[:1])
    assert _ranked(store, mine, Terms(["zebra"], [])) == ["a1"]


def test_tidying_the_keyword_index_merges_its_segments_and_changes_no_hit(store: Store) -> None:
    mine = Scope.of_person("qy", "mumu")
    for batch in range(6):  # each write transaction leaves a segment of its own
        _add(
            store,
            mine,
            [f"hiking trip {batch} {i}" for i in range(20)] + [f"爬山第{batch}次" for i in range(5)],
            f"m{batch}-",
        )
    queries = [Terms(["hiking", "trip"], []), Terms([], ["爬", "山"])]
    before = [[(h.id, round(h.score, 6)) for h in store.search_keyword([mine], q, 50).hits] for q in queries]
    steps = store.tidy_keywords()
    if isinstance(store, SQLiteStore):
        assert steps >= 1
    assert store.tidy_keywords() == 0  # nothing is left to merge
    after = [[(h.id, round(h.score, 6)) for h in store.search_keyword([mine], q, 50).hits] for q in queries]
    assert after == before


def _segments(store: SQLiteStore) -> int:
    with sqlite3.connect(store.path) as conn:
        return int(conn.execute("SELECT count(DISTINCT segid) FROM memory_fts_idx").fetchone()[0])


def test_memories_written_one_at_a_time_leave_few_keyword_segments(tmp_path: Path) -> None:
    # each write leaves a segment and a search looks its terms up in each; FTS5 alone let 15 pile up
    store = SQLiteStore(tmp_path / DB_NAME)
    try:
        mine = Scope.of_person("qy", "mumu")
        for i in range(40):
            _add(store, mine, [f"hiking trip {i}"], f"m{i}-")
        assert _segments(store) <= 6
        assert _ranked(store, mine, Terms(["trip", "39"], []))[0] == "m39-0"
        store.delete_memories("qy", [f"m{i}-0" for i in range(0, 40, 2)])
        assert _segments(store) <= 6
    finally:
        store.close()


def test_a_large_write_merges_in_step_with_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a fixed step let imports of 20,000 memories a write outrun the merging (keyword search at 1M as built)
    asked: list[int] = []
    merge = memories_module.merge_step

    def recording(conn: sqlite3.Connection, pages: int = MERGE_STEP_PAGES) -> bool:
        asked.append(pages)
        return merge(conn, pages)

    monkeypatch.setattr(memories_module, "merge_step", recording)
    store = SQLiteStore(tmp_path / DB_NAME)
    try:
        mine = Scope.of_person("qy", "mumu")
        _add(store, mine, ["hiking trip"], "one-")
        _add(store, mine, [f"hiking trip {i}" for i in range(250)], "many-")
        assert asked == [MERGE_STEP_PAGES, 3 * MERGE_STEP_PAGES]
        assert _ranked(store, mine, Terms(["trip", "249"], []))[0] == "many-249"
    finally:
        store.close()
