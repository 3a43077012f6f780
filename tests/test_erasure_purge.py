"""The purge of an erasure's bytes from the files runs behind the call: it still leaves none, a kill before it
ends has it finished after the next open, bots writing meanwhile do not keep it from ending, and a caller
that must know waits for it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import pg_server
from huiyi import Memory, Person
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app
from huiyi.providers.embed import HashEmbedder
from huiyi.store.purges import Purges
from huiyi.store.sqlite.erase import SQLiteErase
from test_erasure import ALICE, BOB, QUIET, SRC, _files_holding, _fill

# the words of bob's that the keyword index keeps lower-cased, and his alias
WORDS = [*BOB, *(marker.lower() for marker in BOB if marker.isascii()), "QZXBOBALIAS5"]


def test_a_purge_behind_the_call_leaves_no_erased_word_in_the_files_while_the_store_is_open(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        for i in range(20):  # more segments in the keyword index than one
            memory.add([f"别人的第{i}句话 {ALICE}"], agent="a", person=f"c{i}")
        done = memory.forget_person("bob", agent="a")
        assert done.messages == 4 and memory.get_person("bob", agent="a") is None
        assert memory.purged(timeout=60)
        assert _files_holding(store, WORDS) == []
        assert _files_holding(store, [ALICE])
        assert memory.forget_person("bob", agent="a", purge="wait").purged  # nothing left to purge: at once


def test_a_caller_that_waits_finds_the_files_purged_when_the_call_returns(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        assert memory.forget_person("bob", agent="a", purge="wait").purged
        assert _files_holding(store, WORDS) == []
        line = memory.add(["carol 说 QZXCAROL7"], agent="a", person="carol")[0]
        assert _files_holding(store, ["QZXCAROL7"])
        assert memory.forget_messages([line.id], agent="a", purge="wait").purged
        assert _files_holding(store, ["QZXCAROL7", "qzxcarol7"]) == []
        assert _files_holding(store, [ALICE])


def test_bad_purge_values_are_refused_and_erase_nothing(tmp_path: Path) -> None:
    with Memory(tmp_path / "s", embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.add(["我的秘密"], agent="a", person="bob")
        with pytest.raises(InvalidInput, match="purge"):
            memory.forget_person("bob", agent="a", purge="later")  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="timeout"):
            memory.purged(timeout=-1)
        assert memory.working_memory(agent="a", person="bob")


def test_bots_adding_while_the_purge_merges_do_not_keep_it_from_ending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot's add between every two merge steps writes a new keyword segment: a merge gathered again at
    each step (FTS5's negative 'merge') would start over after every add and never pass the erased terms."""
    monkeypatch.setattr("huiyi.store.sqlite.erase.MERGE_PAGES", 1)  # many steps
    monkeypatch.setattr("huiyi.store.sqlite.erase._MAX_MERGE_STEPS", 300)
    # no merge after each write: when a neighbour's chunk, re-made behind the erasure, was written first, its
    # merge had left so few segments that the purge's merge ended in one step and nothing was tried
    monkeypatch.setattr("huiyi.store.sqlite.memories.merge_step", lambda conn, pages=0: False)
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        for i in range(100):
            memory.add([f"别人的第{i}句话 {ALICE} 周末去爬山看海 QZX{i * 7919}"], agent="a", person=f"c{i}")
        said: list[str] = []
        step = SQLiteErase._merge_step

        def then_a_bot_adds(self: SQLiteErase, pages: int) -> bool:
            merged = step(self, pages)
            said.extend(m.id for m in memory.add([f"机器人的第{len(said)}句话"], agent="a", person="bot", index=True))
            return merged

        monkeypatch.setattr(SQLiteErase, "_merge_step", then_a_bot_adds)
        memory.forget_person("bob", agent="a")
        assert memory.purged(timeout=60)
        assert len(said) > 3  # the merge took steps, a bot's add after each
        assert _files_holding(store, WORDS) == []
        assert len(memory.messages(said, agent="a")) == len(said)  # every add went in


# a process killed in the purge behind the call: after some of its merge steps, or before its checkpoint
KILLED_IN_THE_PURGE = """
import os, sys
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.store.sqlite import connection, erase

erase.MERGE_PAGES = 1
steps = 0
execute = connection._Connection.execute
def killed_in_the_merge(self, sql, *args):
    global steps
    if "'merge'" in sql:
        steps += 1
        if steps == int(sys.argv[2]):
            os._exit(9)
    return execute(self, sql, *args)
connection._Connection.execute = killed_in_the_merge
if sys.argv[2] == "0":
    erase.SQLiteErase._checkpoint = lambda self: os._exit(9)
memory = Memory(sys.argv[1], embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))
memory.forget_person("bob", agent="a")
memory.purged()
"""


@pytest.mark.parametrize("killed_at", [3, 0], ids=["mid-merge", "before-checkpoint"])
def test_a_purge_a_kill_cut_short_is_finished_after_the_next_open(tmp_path: Path, killed_at: int) -> None:
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        for i in range(100):  # a keyword index of a few pages: the merge takes several steps of one
            memory.add([f"别人的第{i}句话 {ALICE} 周末去爬山看海 QZX{i * 7919}"], agent="a", person=f"c{i}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_IN_THE_PURGE, str(store), str(killed_at)], env=env, check=False
    )
    assert killed.returncode == 9
    assert _files_holding(store, WORDS)  # committed, not purged
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        assert memory.get_person("bob", agent="a") is None
        assert memory.purged(timeout=60)
        assert _files_holding(store, WORDS) == []
        assert _files_holding(store, [ALICE])
        assert not memory.store._conn().execute("SELECT 1 FROM meta WHERE key LIKE 'purge_pending%'").fetchall()


def test_a_mark_written_before_there_was_one_per_erasure_is_purged_too(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
    conn = sqlite3.connect(store / "huiyi.sqlite", isolation_level=None)
    conn.execute("INSERT INTO meta (key, value) VALUES ('purge_pending', '1')")
    conn.close()
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        assert memory.purged(timeout=60)
        assert not memory.store._conn().execute("SELECT 1 FROM meta WHERE key LIKE 'purge_pending%'").fetchall()


def test_http_waits_for_the_purge_when_asked(tmp_path: Path) -> None:
    store = tmp_path / "s"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        with TestClient(create_app(memory.core)) as client:
            gone = client.delete("/v1/persons/bob", params={"agent": "a", "purge": "wait"})
            assert gone.status_code == 200 and gone.json()["messages"] == 4 and gone.json()["purged"] is True
            assert _files_holding(store, WORDS) == []
            bad = client.delete("/v1/persons/alice", params={"agent": "a", "purge": "later"})
            assert bad.status_code == 422
            forgot = client.post("/v1/messages/forget", json={"agent": "a", "ids": ["g-a1"], "purge": "wait"})
            assert forgot.json()["messages"] == 1 and forgot.json()["purged"] is True


def test_the_purge_runner_reports_a_failed_purge_and_tries_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("huiyi.store.purges.RETRY_SECONDS", (0.01, 0.01))
    outcomes = [False, True]
    ran = threading.Event()

    def purge() -> bool:
        ran.set()
        return outcomes.pop(0)

    purges = Purges(purge, "test")
    assert purges.wait(0)  # nothing asked: nothing to wait for
    purges.ask()
    assert ran.wait(10)
    # the first try failed (a wait begun before it ends with it), the second went through
    assert purges.wait(10) or purges.wait(10)
    assert not outcomes
    purges.close()


def test_a_failed_purge_ends_the_wait_with_false() -> None:
    release = threading.Event()

    def purge() -> bool:
        release.wait(10)
        return False

    purges = Purges(purge, "test")
    purges.ask()
    release.set()
    assert purges.wait(10) is False
    purges.close()


# PostgreSQL ------------------------------------------------------------------------------------------
def _vacuumed(dsn: str) -> set[str]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_vacuum IS NOT NULL"
        ).fetchall()
    return {str(row[0]) for row in rows}


def test_postgres_vacuums_behind_the_call_only_the_tables_the_erasure_deleted_rows_from() -> None:
    dsn = pg_server.fresh_dsn()
    with Memory(dsn, embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.set_person(Person(id="dan", name="丹"), agent="a")  # a record, nothing said
        assert memory.forget_person("dan", agent="a", purge="wait").purged
        assert _vacuumed(dsn) == {"persons"}
        _fill(memory)
        assert memory.forget_person("bob", agent="a", purge="wait").purged
        assert {"messages", "memories", "memory_vectors", "persons", "person_blocks"} <= _vacuumed(dsn)
        pending = memory.store._rows("SELECT key FROM meta WHERE key LIKE 'vacuum_pending:%'")  # type: ignore[attr-defined]
        assert pending == []
