"""The hour a zone repeats when daylight saving time ends (01:00-02:00 on 2026-11-01 in Los Angeles, once
PDT and once PST): a message or memory said in the second one reads back as that moment, not an hour
early, from the messages, recall's hits and an export, in both stores (schema 18 on SQLite, 16 on
PostgreSQL keep which of the two it was). Rows written before read as they did."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg
import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.formats import apply_plan, export_lines, read_text, write_lines
from huiyi.model import Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store
from huiyi.store.postgres import PostgresStore
from huiyi.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS
from huiyi.store.sqlite import SQLiteStore
from huiyi.store.sqlite.schema import MIGRATIONS as SQLITE_MIGRATIONS
from test_keyword_scope import back_to_schema_17

LA = ZoneInfo("America/Los_Angeles")
AGENT, PERSON = "ava", "bob"
PDT = datetime(2026, 11, 1, 8, 10, tzinfo=UTC)  # 01:10 PDT, the first 01:10 of the day
PST = datetime(2026, 11, 1, 9, 10, tzinfo=UTC)  # 01:10 PST, the same wall clock an hour later


@pytest.fixture(params=["sqlite", "postgres"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    store: Store | None = pg_server.fresh_store() if request.param == "postgres" else None
    config = Config(timezone="America/Los_Angeles", language="en")
    with Memory(tmp_path / "mem", config=config, embedder=HashEmbedder(64), store=store) as made:
        made.add(
            [{"id": "m1", "text": "I fed the cat", "time": PDT}, {"id": "m2", "text": "I walked the dog", "time": PST}],
            agent=AGENT,
            person=PERSON,
        )
        yield made


def moment(when: datetime | None) -> datetime | None:
    """A wall-clock time huiyi answers, as the instant it is in the configured zone."""
    return None if when is None else when.replace(tzinfo=LA).astimezone(UTC)


def test_messages_in_the_repeated_hour_read_back_as_their_moments(memory: Memory) -> None:
    found = {m.id: moment(m.time) for m in memory.messages(["m1", "m2"], agent=AGENT)}
    assert found == {"m1": PDT, "m2": PST}


def test_recall_hits_and_memories_in_the_repeated_hour_keep_their_moments(memory: Memory) -> None:
    memory.flush(agent=AGENT, person=PERSON)
    hits = memory.recall("cat dog", agent=AGENT, person=PERSON, now=PST + timedelta(minutes=5)).hits
    said = {h.text: moment(h.time) for h in hits if h.kind.value == "chunk"}
    assert said == {"bob: I fed the cat": PDT, "bob: I walked the dog": PST}
    chunks = {i.text: moment(i.time) for i in memory.memories(agent=AGENT, person=PERSON) if i.kind.value == "chunk"}
    assert chunks == said


def test_an_export_gives_the_repeated_hour_its_own_offset_and_an_import_keeps_it(
    memory: Memory, tmp_path: Path
) -> None:
    handle = io.StringIO()
    memory._loop.run(write_lines(export_lines(memory.core, AGENT, PERSON, None), handle))
    lines = [json.loads(line) for line in handle.getvalue().splitlines()]
    said = {line["id"]: line["time"] for line in lines if line.get("type") == "message"}
    assert said == {"m1": "2026-11-01T01:10:00-07:00", "m2": "2026-11-01T01:10:00-08:00"}
    config = Config(timezone="America/Los_Angeles", language="en")
    with Memory(tmp_path / "copy", config=config, embedder=HashEmbedder(64)) as copy:
        copy._loop.run(apply_plan(copy.core, read_text(handle.getvalue(), "bot.jsonl", None, None, None, [])))
        assert {m.id: moment(m.time) for m in copy.messages(["m1", "m2"], agent=AGENT)} == {"m1": PDT, "m2": PST}


def _message(id_: str, when: datetime) -> Message:
    scope = Scope.from_tag(AGENT, f"person:{PERSON}")
    return Message(id=id_, agent=AGENT, space=scope.tag, scope=scope, speaker=PERSON, role="user", text="hi", time=when)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_store_made_before_the_fold_column_reads_its_rows_as_before(backend: str, tmp_path: Path) -> None:
    dsn = pg_server.fresh_dsn() if backend == "postgres" else ""

    def open_store() -> Store:
        return SQLiteStore(tmp_path) if backend == "sqlite" else PostgresStore(dsn, pool_size=2)

    store = open_store()
    store.append_messages([_message("old", datetime(2026, 11, 1, 1, 10))])
    store.close()
    if backend == "sqlite":  # back to schema 17, as such a store is
        with sqlite3.connect(tmp_path / "huiyi.sqlite") as conn:
            back_to_schema_17(conn)
    else:  # back to schema 15
        with psycopg.connect(dsn, autocommit=True) as pg:
            pg.execute("ALTER TABLE messages DROP COLUMN time_fold")
            pg.execute("ALTER TABLE memories DROP COLUMN time_fold, DROP COLUMN said_at_fold")
            pg.execute("DELETE FROM schema_migrations WHERE version >= 16")
    store = open_store()
    try:
        assert store.schema_version() == len(SQLITE_MIGRATIONS if backend == "sqlite" else PG_MIGRATIONS)
        store.append_messages([_message("new", datetime(2026, 11, 1, 1, 10, fold=1))])
        found = {m.id: m.time for m in store.get_messages(AGENT, ["old", "new"])}
        assert found == {"old": datetime(2026, 11, 1, 1, 10), "new": datetime(2026, 11, 1, 1, 10)}
        assert (found["old"].fold, found["new"].fold) == (0, 1)  # the old row: the first 01:10, as before
    finally:
        store.close()


@pytest.mark.parametrize(
    ("said", "now", "known"),
    [
        (datetime(2026, 11, 1, 8, 50, tzinfo=UTC), PST, True),  # 01:50 PDT is 20 minutes before 01:10 PST
        (datetime(2026, 11, 1, 9, 30, tzinfo=UTC), datetime(2026, 11, 1, 8, 50, tzinfo=UTC), False),  # 01:30 PST
    ],
)
def test_recall_as_of_a_moment_in_the_repeated_hour_knows_what_was_said_before_it(
    said: datetime, now: datetime, known: bool, tmp_path: Path
) -> None:
    config = Config(timezone="America/Los_Angeles", language="en")
    with Memory(tmp_path / "mem", config=config, embedder=HashEmbedder(64)) as memory:
        memory.add([{"id": "m1", "text": "I walked the dog", "time": said}], agent=AGENT, person=PERSON)
        hits = memory.recall("dog", agent=AGENT, person=PERSON, now=now).hits
        assert [h.text for h in hits] == (["bob: I walked the dog"] if known else [])


def test_a_chat_across_the_repeated_hour_keeps_the_order_it_was_said(tmp_path: Path) -> None:
    """Sorted by wall clock, 01:20 PST (said last) went before 01:40 PDT, in a batch put in time order and in the
    context's current conversation: naive times compare without ``fold`` (helper)."""
    config = Config(timezone="America/Los_Angeles", language="en", worker={"enabled": False})
    said = ["I can't sleep", "What happened?", "The cat threw up", "Take him to the vet", "ok, thanks"]
    start = datetime(2026, 11, 1, 8, 40, tzinfo=UTC)  # 01:40 PDT; at 09:00 UTC the clocks go back to 01:00 PST
    lines = [{"id": f"m{i}", "text": text, "time": start + timedelta(minutes=10 * i)} for i, text in enumerate(said)]
    for batch in (lines, lines[::-1]):  # as said, and newest first
        with Memory(tmp_path / f"s{len(batch)}{batch[0]['id']}", config=config, embedder=HashEmbedder(64)) as memory:
            memory.add(batch, agent=AGENT, person=PERSON)
            assert [m.text for m in memory.working_memory(agent=AGENT, person=PERSON)] == said
            shown = memory.context(agent=AGENT, person=PERSON, message="ok, thanks").rendered.sections["working"]
            assert [line.split(": ", 1)[1] for line in shown.splitlines()[1:]] == said
