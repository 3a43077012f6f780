"""Closing a memory while other threads still call it: their calls end, later ones are refused in words.

Closing each thread's SQLite connection from the closing thread crashed the process (a segfault) when a
thread was in the middle of a statement; calls after the close met closed thread pools and loops.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from huiyi import AsyncMemory, Memory, MemoryKind
from huiyi.config import Config
from huiyi.errors import InvalidInput, StoreError
from huiyi.providers.embed import HashEmbedder, lanes_of
from huiyi.store.base import Vectors

SRC = str(Path(__file__).resolve().parents[1] / "src")

BUSY_THREADS = """
import sqlite3, sys, threading, time
from huiyi import Memory
from huiyi.errors import StoreError
from huiyi.providers.embed import HashEmbedder
m = Memory(sys.argv[1], embedder=HashEmbedder(32))
acked, ends, started = [], [], threading.Barrier(5)
def talk(k):
    started.wait()
    try:
        for i in range(100_000):
            acked.extend(x.id for x in m.add(f"thread {k} says tea {i}", agent="a", person=f"p{k}"))
            if i % 7 == 0:
                m.recall("tea", agent="a", person=f"p{k}")
    except StoreError as e:
        ends.append(str(e))
    except BaseException as e:
        ends.append(repr(e))
threads = [threading.Thread(target=talk, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
started.wait()
time.sleep(0.5)
m.close()
for t in threads:
    t.join(30)
stored = sqlite3.connect(sys.argv[1] + "/huiyi.sqlite").execute("SELECT count(*) FROM messages").fetchone()[0]
print(sorted(set(ends)), len(acked) > 0 and stored == len(acked))
"""


def test_closing_while_threads_add_and_recall_ends_them_in_words_and_loses_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", BUSY_THREADS, str(tmp_path / "s")], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]  # -11 was the crash
    assert out.stdout.strip().splitlines()[-1] == "['this memory is closed'] True"


def test_a_closed_memory_refuses_every_call_in_words(tmp_path: Path) -> None:
    memory = Memory(tmp_path / "s", embedder=HashEmbedder(32))
    memory.add("我家的猫叫团子", agent="a", person="p")
    memory.close()
    memory.close()  # twice is fine
    for call in (
        lambda: memory.add("再来一句", agent="a", person="p"),
        lambda: memory.add("再来一句", agent="a", person="p", index=True),
        lambda: memory.recall("猫", agent="a", person="p"),
        lambda: memory.remember("一条笔记", agent="a", person="p"),
        lambda: memory.context(agent="a", person="p", message="猫叫什么"),
        lambda: memory.flush(agent="a", person="p"),
    ):
        with pytest.raises(StoreError, match="closed"):
            call()


def test_a_closed_async_memory_refuses_every_call_in_words(tmp_path: Path) -> None:
    async def run() -> None:
        memory = AsyncMemory(tmp_path / "s", embedder=HashEmbedder(32))
        await memory.add("我家的猫叫团子", agent="a", person="p")
        await memory.close()
        with pytest.raises(StoreError, match="closed"):
            await memory.add("再来一句", agent="a", person="p")
        with pytest.raises(StoreError, match="closed"):
            await memory.recall("猫", agent="a", person="p")

    asyncio.run(run())


class _BlockedEmbedder(HashEmbedder):
    """Embeds one batch, then the next only once ``go`` is set: a large import's queue still being indexed when
    the service is stopped."""

    def __init__(self) -> None:
        super().__init__(32)
        self.go = threading.Event()
        self.batches = 0

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.batches += 1
        if self.batches > 1:
            self.go.wait(30)
        return super().embed_passages(texts)


def test_a_bounded_close_gives_back_what_it_did_not_index_and_the_next_open_indexes_it(tmp_path: Path) -> None:
    """``huiyi serve`` indexed its whole queue after SIGTERM, which after an import took minutes (past the kill
    that follows SIGTERM, leaving the messages claimed for the lease's length). ``close(index_for=…)`` ends
    once the bound has passed, at the piece of a batch under way, and gives the rest back."""
    embedder = _BlockedEmbedder()
    memory = Memory(tmp_path, embedder=embedder, config=Config(worker={"enabled": False}, embed={"batch_size": 8}))
    embedder.go = memory.core._index_stop  # the second batch goes on once the bound has passed
    said = [f"第{i}句：QZX{i}号话题" for i in range(200)]
    memory.add(said, agent="a", person="p", extract=False, index=False)
    memory.close(index_for=0.05)
    db = sqlite3.connect(tmp_path / "huiyi.sqlite")
    left, claimed = db.execute(
        "SELECT count(*), count(NULLIF(claimed_by, '')) FROM messages WHERE indexed = 0"
    ).fetchone()
    db.close()
    assert left > 100 and claimed == 0  # given back: the next open takes them at once, not after the lease
    with Memory(tmp_path, embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as again:
        again.indexed()
        chunks = again.memories(agent="a", person="p", kinds=[MemoryKind.CHUNK], limit=1000)
        assert len(chunks) == len(said)
        assert [hit.text for hit in again.recall("QZX199号话题", agent="a", person="p", limit=1).hits] == [
            "p: 第199句：QZX199号话题"
        ]


@pytest.mark.parametrize("index_for", [-1, float("nan"), float("inf"), "5", True])
def test_close_refuses_a_bound_that_is_no_seconds(tmp_path: Path, index_for: object) -> None:
    memory = Memory(tmp_path, embedder=HashEmbedder(32))
    with pytest.raises(InvalidInput, match="index_for"):
        memory.close(index_for=index_for)  # type: ignore[arg-type]
    memory.add("还开着", agent="a", person="p")  # refused: nothing was closed
    memory.close()


@pytest.mark.parametrize("path", ["", "  "])
def test_an_empty_store_path_is_refused_and_writes_nothing_in_the_working_folder(
    path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Memory(os.environ.get("STORE", ""))`` with the variable unset put the store in the working folder."""
    monkeypatch.chdir(tmp_path)
    for make in (AsyncMemory, Memory):
        with pytest.raises(InvalidInput, match="path is empty"):
            make(path, embedder=HashEmbedder(32))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", [None, 123, b"store"])
def test_a_store_path_of_another_type_is_refused_in_words_and_leaves_no_thread(path: object) -> None:
    """``AsyncMemory(None)`` raised os.fspath's TypeError, naming no argument of huiyi's."""
    before = set(threading.enumerate())
    for make in (AsyncMemory, Memory):
        with pytest.raises(InvalidInput, match="path is the store's folder"):
            make(path)  # type: ignore[arg-type]
    # Compared as sets: an earlier test's thread may end meanwhile, which a count would call a change.
    assert set(threading.enumerate()) - before == set()


class _CountingEmbedder(HashEmbedder):
    """Sets ``stop`` in its first call (the bound passing inside a batch) and counts the calls made after."""

    def __init__(self) -> None:
        super().__init__(32)
        self.stop = threading.Event()
        self.after_stop = 0

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if self.stop.is_set():
            self.after_stop += 1
        self.stop.set()
        return super().embed_passages(texts)


def test_a_bounded_close_stops_inside_a_batch_not_after_it(tmp_path: Path) -> None:
    """The bound was looked at between batches only, and a batch of 32 passages goes to the embedder two at a
    time: with 0.2 s a call, ``close(index_for=0.5)`` took 6.4 s. Now the pieces not begun are not embedded."""
    embedder = _CountingEmbedder()
    memory = Memory(tmp_path, embedder=embedder, config=Config(worker={"enabled": False}, embed={"batch_size": 32}))
    embedder.stop = memory.core._index_stop
    memory.add([f"第{i}句：QZX{i}号话题" for i in range(64)], agent="a", person="p", extract=False, index=False)
    memory.close(index_for=30)  # the bound is the embedder's stop, set in its first call
    assert embedder.after_stop <= lanes_of(embedder)  # the pieces already under way, one per lane
    with Memory(tmp_path, embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as again:
        again.indexed()
        assert len(again.memories(agent="a", person="p", kinds=[MemoryKind.CHUNK], limit=100)) == 64
