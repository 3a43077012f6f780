"""Closing a memory while other threads still call it: their calls end, later ones are refused in words.

Closing each thread's SQLite connection from the closing thread crashed the process (a segfault) when a
thread was in the middle of a statement; calls after the close met closed thread pools and loops.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from huiyi import AsyncMemory, Memory
from huiyi.errors import StoreError
from huiyi.providers.embed import HashEmbedder

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
