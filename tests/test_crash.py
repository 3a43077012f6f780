"""Crash trials: ``kill -9`` a process while it adds messages, again and again, then count.

The child (``crash_writer.py``) prints each message id once the ``add`` holding it returned
(acknowledged). After every kill the next child resumes after the last acknowledged message, so the
batches cut by a kill are sent again, as a client retrying would. At the end the store is reopened
(which indexes what a kill left unindexed) and we count acknowledged messages, lost ones (acknowledged
but not stored), duplicated messages, duplicated chunks, and acknowledged messages without a chunk.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

import pg_server
from crash_writer import AGENT, CHATS
from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind, Scope

TRIALS = 20
SECONDS = 35.0  # each backend's trials stop early past this
WRITER = Path(__file__).with_name("crash_writer.py")
SRC = Path(__file__).resolve().parents[1] / "src"


def _trial(store: str, start: int, seed: int, rng: random.Random) -> tuple[list[int], bool]:
    """One child, killed with SIGKILL at a random moment; the ids it acknowledged, and whether it opened."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen(
        [sys.executable, str(WRITER), store, str(start), str(seed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    lines: list[str] = []
    opened = threading.Event()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line.strip())
            if line.strip() == "open":
                opened.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if rng.random() < 0.2:  # now and then while it opens (and indexes what the last kill left)
            time.sleep(rng.uniform(0.2, 1.5))
        else:
            opened.wait(timeout=30)
            time.sleep(rng.uniform(0.05, 0.6))
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        reader.join(timeout=30)
    acked = [int(word[1:]) for line in lines if line != "open" for word in line.split()]
    return acked, opened.is_set()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_kill_9_while_adding_loses_and_duplicates_nothing(tmp_path: Path, backend: str) -> None:
    store = str(tmp_path / "store") if backend == "sqlite" else pg_server.fresh_dsn()
    rng = random.Random(f"crash:{backend}")
    acked: set[int] = set()
    kills = opened = 0
    deadline = time.monotonic() + SECONDS
    for trial in range(TRIALS):
        if time.monotonic() > deadline:
            break
        ids, did_open = _trial(store, max(acked, default=-1) + 1, trial, rng)
        acked.update(ids)
        kills += 1
        opened += did_open

    config = Config(embed={"provider": "hash", "dim": 32}, worker={"enabled": False})
    with Memory(store, config=config) as memory:  # opening indexes what was accepted but not indexed, behind it
        memory.indexed()  # waits for that, as an importer or an evaluation would
        scopes = [Scope.of_chat(AGENT, chat.get("person"), chat.get("space")) for chat in CHATS]
        messages = [m for s in scopes for m in memory.store.recent_messages(AGENT, s.space_id, 10**6)]
        chunks = memory.store.list_memories(scopes, [MemoryKind.CHUNK], 10**6)
    stored = Counter(m.id for m in messages)
    texts = Counter(m.text for m in messages)
    anchors = Counter(chunk.sources[0] for chunk in chunks)
    lost = sorted(i for i in acked if f"m{i}" not in stored)
    duplicated = sum(n - 1 for n in stored.values()) + sum(n - 1 for n in texts.values())
    duplicated_chunks = sum(n - 1 for n in anchors.values())
    unindexed = sorted(i for i in stored if i not in anchors)
    print(
        f"\ncrash trials ({backend}): kills {kills} (after opening {opened}), acknowledged {len(acked)}, "
        f"stored {len(stored)}, lost {len(lost)}, duplicated messages {duplicated}, "
        f"duplicated chunks {duplicated_chunks}, stored without a chunk {len(unindexed)}"
    )
    assert kills >= 5 and acked  # the trials did run, and writes were acknowledged
    assert lost == []
    assert duplicated == 0 and duplicated_chunks == 0
    assert unindexed == []
