"""A store whose disk is full answers with a huiyi error a bot can act on (``StoreFull``, HTTP 507
``store_full``), not SQLite's ``OperationalError`` or a bare 500, and keeps nothing of the refused call."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from huiyi.client import Client
from huiyi.config import Config
from huiyi.errors import StoreBusy, StoreError, StoreFull
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.model import Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.sqlite import SQLiteStore

SCOPE = Scope.of_person("bot", "bob")
T0 = datetime(2024, 3, 1, 9)


def _message(i: int, text: str) -> Message:
    return Message(
        id=f"m{i}", agent="bot", space=SCOPE.space_id, scope=SCOPE, speaker="bob", role="user", text=text, time=T0
    )


def test_a_write_the_disk_cannot_hold_is_store_full_and_leaves_nothing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    try:
        store.append_messages([_message(0, "我住在上海")])
        conn = store._conn()  # this thread's connection: the store's calls below run on it
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")  # a full disk, as SQLite meets one (SQLITE_FULL)
        with pytest.raises(StoreFull) as refused:  # one message: its own statement, no transaction of ours
            store.append_messages([_message(1, "很长的一句话" * 20_000)])
        assert isinstance(refused.value, StoreError) and refused.value.code == "store_full"
        with pytest.raises(StoreFull) as refused:  # a batch: in a transaction, rolled back whole
            store.append_messages([_message(2, "短"), _message(3, "很长的一句话" * 20_000)])
        assert isinstance(refused.value, StoreError) and refused.value.code == "store_full"
        conn.execute("PRAGMA max_page_count = 1073741823")  # room again
        assert [m.id for m in store.get_messages("bot", ["m0", "m1", "m2", "m3"])] == ["m0"]  # nothing refused
        store.append_messages([_message(1, "又有地方了")])
        assert [m.id for m in store.get_messages("bot", ["m0", "m1"])] == ["m0", "m1"]
    finally:
        store.close()


def test_a_full_store_over_http_is_507_store_full_and_the_client_raises_store_full(tmp_path: Path) -> None:
    core = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))

    def full(*args: object, **kwargs: object) -> None:
        raise StoreFull("the disk is full; nothing of this call was written")

    core.store.append_messages = full  # type: ignore[method-assign]
    app = create_app(core)
    try:
        with TestClient(app) as test:  # the answer itself: its status and code
            raw = test.post("/v1/messages", json={"agent": "bot", "person": "bob", "messages": [{"text": "你好"}]})
        assert raw.status_code == 507 and raw.json()["error"]["code"] == "store_full"
        with Client("http://huiyi.test", transport=httpx.ASGITransport(app=app)) as client, pytest.raises(StoreFull):
            client.add([{"text": "你好"}], agent="bot", person="bob")
    finally:
        asyncio.run(core.close())


def test_a_store_another_program_holds_locked_is_store_busy_and_503(tmp_path: Path) -> None:
    """A backup or a ``sqlite3`` shell holding the lock past the busy timeout raised SQLite's OperationalError
    ("database is locked"), a 500 internal_error over HTTP that a bot could not tell from a crash (helper)."""
    config = Config(worker={"enabled": False}, store={"busy_timeout_ms": 50})
    core = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=config)
    app = create_app(core)
    other = sqlite3.connect(tmp_path / "huiyi.sqlite", isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        with TestClient(app) as test:
            raw = test.post("/v1/messages", json={"agent": "bot", "person": "bob", "messages": [{"text": "你好"}]})
        assert raw.status_code == 503 and raw.json()["error"]["code"] == "store_busy"
        with Client("http://huiyi.test", transport=httpx.ASGITransport(app=app)) as client, pytest.raises(StoreBusy):
            client.add([{"text": "你好"}], agent="bot", person="bob")
        other.execute("ROLLBACK")
        assert asyncio.run(core.add("你好", agent="bot", person="bob"))  # once it lets go
    finally:
        other.close()
        asyncio.run(core.close())


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_file_deleted_under_the_process_refuses_writes(tmp_path: Path, how: str) -> None:
    """Its connections wrote on to the unlinked file: every add answered as stored and was gone at the restart,
    and /health said ok (helper)."""
    store = SQLiteStore(tmp_path / "s")
    try:
        store.append_messages([_message(0, "我住在上海")])
        (tmp_path / "s" / "huiyi.sqlite").unlink()
        if how == "replaced":  # a backup put back: another file under the same name
            SQLiteStore(tmp_path / "s").close()
        for write in (
            lambda: store.append_messages([_message(1, "删除后的消息")]),
            lambda: store.append_messages([_message(2, "一"), _message(3, "二")]),
            store.schema_version,  # what /health reads
        ):
            with pytest.raises(StoreError, match="was deleted or replaced while this process had it open"):
                write()
    finally:
        store.close()


def test_a_store_opened_by_a_relative_path_survives_a_chdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon that changes to / after the open was told its file was deleted, and a thread's new connection
    opened another path (helper's review)."""
    monkeypatch.chdir(tmp_path)
    store = SQLiteStore("s")
    try:
        store.append_messages([_message(0, "我住在上海")])
        monkeypatch.chdir("/")
        store.append_messages([_message(1, "搬到杭州了")])
        done = threading.Thread(target=lambda: store.append_messages([_message(2, "新线程")]))
        done.start()
        done.join()
        assert [m.id for m in store.recent_messages("bot", SCOPE.space_id, 10)] == ["m0", "m1", "m2"]
    finally:
        store.close()
