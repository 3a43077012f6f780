"""SQLite's ``memory_sources`` (schema 21) holds each memory's sources, whatever writes the memory, so an
erasure finds the memories made from what it erases by a seek per id instead of reading the agent's store."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from huiyi.model import MemoryItem, MemoryKind, Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Terms, Writes
from huiyi.store.sqlite import DB_NAME, SQLiteStore

EMB = HashEmbedder(32)
MINE, OTHERS = Scope.of_person("qy", "mumu"), Scope.of_person("zz", "mumu")


def _item(memory_id: str, sources: list[str], scope: Scope = MINE) -> MemoryItem:
    return MemoryItem(id=memory_id, scope=scope, kind=MemoryKind.NOTE, text=f"note {memory_id}", sources=sources)


def _add(store: SQLiteStore, items: list[MemoryItem]) -> None:
    texts = [item.text for item in items]
    store.add_memories(items, EMB.embed_passages(texts), [Terms(t.split(), []) for t in texts])


def _side(conn: sqlite3.Connection) -> set[tuple[str, str, str]]:
    rows = conn.execute(
        "SELECT s.agent, s.source, m.id FROM memory_sources s JOIN memories m ON m.rowid = s.memory"
    ).fetchall()
    assert len(rows) == conn.execute("SELECT count(*) FROM memory_sources").fetchone()[0]  # none left dangling
    return {(str(a), str(s), str(m)) for a, s, m in rows}


def _from_sources(conn: sqlite3.Connection) -> set[tuple[str, str, str]]:
    """What the side table should hold, read from the memories themselves."""
    rows = conn.execute("SELECT m.agent, s.value, m.id FROM memories m, json_each(m.sources) s").fetchall()
    return {(str(a), str(s), str(m)) for a, s, m in rows}


def test_the_side_table_follows_every_write_of_sources(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    try:
        conn = store._conn()
        _add(store, [_item("a", ["m1"]), _item("b", ["m1", "m2", "m2"]), _item("c", []), _item("z", ["m1"], OTHERS)])
        assert _side(conn) == {("qy", "m1", "a"), ("qy", "m1", "b"), ("qy", "m2", "b"), ("zz", "m1", "z")}

        store.update_memories("qy", [("a", {"strength": 2.0, "data": {"note": 1}})])  # sources untouched
        with store._write() as write:  # no API changes sources; the trigger keeps any code path right
            write.execute("""UPDATE memories SET sources = '["m3"]' WHERE id = 'b'""")
        assert _side(conn) == _from_sources(conn) == {("qy", "m1", "a"), ("qy", "m3", "b"), ("zz", "m1", "z")}

        # a corrected memory replaced under its id, with other sources
        item = _item("a", ["m4", "m5"])
        vectors = EMB.embed_passages([item.text])
        store.apply(Writes(memories=[item], vectors=vectors, terms=[Terms([], [])], replaced=[("qy", "a")]))
        assert _side(conn) == _from_sources(conn)
        assert {s for _, s, m in _side(conn) if m == "a"} == {"m4", "m5"}

        assert store.delete_memories("qy", ["b"]) == 1
        assert _side(conn) == _from_sources(conn) == {("qy", "m4", "a"), ("qy", "m5", "a"), ("zz", "m1", "z")}
    finally:
        store.close()


def test_an_erasure_finds_the_memories_of_its_messages_and_leaves_the_side_table_right(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    try:
        said = [
            Message(
                id=f"m{i}",
                agent="qy",
                space=MINE.space_id,
                scope=MINE,
                speaker="mumu",
                role="user",
                text=f"t{i}",
                time=datetime(2026, 5, 1, 12, i),
            )
            for i in range(3)
        ]
        store.append_messages(said)
        # b is made from m1, c from b (a summary of it): both go with m1; a and the other agent's z stay
        _add(store, [_item("a", ["m0"]), _item("b", ["m1"]), _item("c", ["b", "m2"]), _item("z", ["m1"], OTHERS)])
        done = store.erase("qy", ["m1"])
        assert done.messages == 1
        assert {item.id for item in store.get_memories("qy", ["a", "b", "c"])} == {"a"}
        assert [item.id for item in store.get_memories("zz", ["z"])] == ["z"]
        conn = store._conn()
        assert _side(conn) == _from_sources(conn) == {("qy", "m0", "a"), ("zz", "m1", "z")}
    finally:
        store.close()


def test_a_store_of_schema_20_has_its_memories_sources_filled_when_opened(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    _add(store, [_item("a", ["m1", "m2"]), _item("b", ["m2"]), _item("z", ["m1"], OTHERS)])
    store.close()
    conn = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    for trigger in ("changed", "deleted"):
        conn.execute(f"DROP TRIGGER memory_sources_{trigger}")
    conn.execute("DROP TABLE memory_sources")
    conn.execute("UPDATE meta SET value = '20' WHERE key = 'schema_version'")
    conn.close()
    for _ in range(2):  # a second run of the migration (a store rolled back, as tests do) adds nothing twice
        store = SQLiteStore(tmp_path)
        try:
            assert store.schema_version() >= 21
            assert _side(store._conn()) == {("qy", "m1", "a"), ("qy", "m2", "a"), ("qy", "m2", "b"), ("zz", "m1", "z")}
            with store._write() as write:
                write.execute("UPDATE meta SET value = '20' WHERE key = 'schema_version'")
        finally:
            store.close()
