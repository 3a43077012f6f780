"""Recall's own path: its threads, and passage embeddings that yield to query embeddings.

Nothing here is timed: the load bench (``huiyi bench run --load``) measures the effect.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder, Vectors
from huiyi.providers.priority import BACKGROUND_NICE, RecallFirst


class Spy(HashEmbedder):
    """Records which thread embedded what; a query can be held until released."""

    def __init__(self) -> None:
        super().__init__(16)
        self.calls: list[tuple[str, str, int]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.in_query = threading.Event()

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        self.in_query.set()
        self.hold.wait(timeout=30)
        self.calls.append(("query", threading.current_thread().name, len(texts)))
        return super().embed_passages(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(("passage", threading.current_thread().name, len(texts)))
        return super().embed_passages(texts)


def test_passages_go_in_small_batches_with_the_same_vectors() -> None:
    spy = Spy()
    texts = [f"第{i}句话 sentence {i}" for i in range(7)]
    vectors = RecallFirst(spy, batch=2).embed_passages(texts)
    assert np.array_equal(vectors, HashEmbedder(16).embed_passages(texts))
    assert [n for kind, _, n in spy.calls] == [2, 2, 2, 1]
    assert RecallFirst(spy).embed_passages([]).shape == (0, 16)


def test_a_passage_waits_while_a_query_is_embedded() -> None:
    spy = Spy()
    gate = RecallFirst(spy, patience=30)
    spy.hold.clear()
    query = threading.Thread(target=gate.embed_queries, args=(["猫叫什么"],))
    query.start()
    assert spy.in_query.wait(timeout=30)
    passage = threading.Thread(target=gate.embed_passages, args=(["我家的猫叫团子"],))
    passage.start()
    time.sleep(0.2)  # room for the passage to go first, if it could
    assert [kind for kind, _, _ in spy.calls] == []
    spy.hold.set()
    query.join(timeout=30)
    passage.join(timeout=30)
    assert [kind for kind, _, _ in spy.calls] == ["query", "passage"]


def test_recall_and_adds_run_on_threads_of_their_own(tmp_path: Path) -> None:
    spy = Spy()
    with Memory(tmp_path, embedder=spy, config=Config(worker={"enabled": False})) as memory:
        memory.add(["我家的猫叫团子"], agent="a", person="p")
        memory.recall("猫叫什么", agent="a", person="p")  # the synchronous recall: on the caller's thread
        memory.context(agent="a", person="p", message="团子")  # and its context, since issue 15's hops went
    threads = {(kind, name.split("_")[0]) for kind, name, _ in spy.calls}
    # passages on the lanes' threads, whose CPU priority is lowered, whoever asked for them
    assert threads == {("passage", "huiyi-embed"), ("query", "MainThread")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own CPU priority is Linux's")
def test_passages_run_at_background_priority_whichever_thread_asks() -> None:
    """Extraction embeds from threads that also serve callers: its model must not run at their priority."""
    niceness: list[int] = []

    class Nice(HashEmbedder):
        def embed_passages(self, texts: Sequence[str]) -> Vectors:
            niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
            return super().embed_passages(texts)

    asking = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    gate = RecallFirst(Nice(8))
    gate.embed_passages(["我家的猫叫团子"])
    gate.embed_passages([f"第{i}句" for i in range(5)])
    assert niceness == [max(asking, BACKGROUND_NICE)] * 4  # one batch, then three of two
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == asking  # the caller's own is untouched


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's scheduling policy is Linux's")
def test_the_threads_an_add_wakes_never_take_its_core(tmp_path: Path) -> None:
    """Waking the thread behind ``add`` (or the indexer) made the adding thread give up its core and queue
    for one on a busy machine: they run under SCHED_BATCH, whose wake-ups never preempt (issue 15)."""
    asking = os.sched_getscheduler(0)
    with Memory(tmp_path / "m", config=Config(worker={"enabled": False}, embed={"provider": "hash"})) as memory:
        memory.add("我家的猫叫团子", agent="a", person="p")
        core = memory.core
        policies = [pool.submit(os.sched_getscheduler, 0).result() for pool in (core._behind, core._indexing)]
    assert policies == [os.SCHED_BATCH] * 2
    assert os.sched_getscheduler(0) == asking  # the caller's own thread is untouched
