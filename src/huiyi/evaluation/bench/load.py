"""Recall under a steady write load: does a burst of adds starve the recall path?

One process, one ``Memory``, in two phases over the same queries: first idle (only ``readers``
threads recalling), then while ``writers`` threads add chat messages back to back (each its own
person, ``write_batch`` messages per ``add``; indexing and the background extraction run as they
would in a server). The report gives p50/p95 of ``Memory.recall`` in both phases and their ratio
(goal: p95 under load ≤ 2× idle), and how much was written meanwhile. The write phase is bounded by
``max_seconds`` and by ``writer_messages`` per writer; recalls left when time runs out are skipped
(the report counts them). With ``location`` a PostgreSQL DSN the same runs against that store.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Sequence
from itertools import cycle, islice
from pathlib import Path
from typing import Any

from huiyi.config import Config
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.memory import Memory
from huiyi.providers.embed import Embedder

Say = Callable[[str], None]


class _Timed:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.stages: dict[str, list[float]] = {}
        self.skipped = 0

    def stages_p50(self) -> dict[str, float]:
        return {k: round(bench_stats.median(v), 3) for k, v in self.stages.items()}


def _recall_all(memory: Memory, queries: Sequence[tuple[str, str]], readers: int, deadline: float | None) -> _Timed:
    """Run the queries on ``readers`` threads: latencies in ms, the engine's stages, and the
    recalls skipped at the deadline. ``waiting`` is the time outside the engine (queues, threads)."""
    pending = list(reversed(queries))
    lock = threading.Lock()
    timed = _Timed()
    failures: list[BaseException] = []

    def read() -> None:
        while True:
            with lock:
                if not pending:
                    return
                if deadline is not None and time.monotonic() > deadline:
                    timed.skipped += len(pending)
                    pending.clear()
                    return
                person, query = pending.pop()
            began = time.perf_counter()
            try:
                result = memory.recall(query, agent=synthetic.AGENT, person=person, limit=10)
            except BaseException as exc:  # reported by the caller; a failed recall is no timing
                failures.append(exc)
                return
            elapsed = (time.perf_counter() - began) * 1e3
            stages = {**result.timings_ms, "waiting": elapsed - result.timings_ms.get("total", 0.0)}
            with lock:
                timed.latencies.append(elapsed)
                for stage, value in stages.items():
                    timed.stages.setdefault(stage, []).append(float(value))

    threads = [threading.Thread(target=read, name=f"bench-reader-{i}") for i in range(max(1, readers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return timed


class _Writers:
    """``count`` threads adding messages to their own persons until stopped or out of messages."""

    def __init__(self, memory: Memory, count: int, batch: int, per_writer: int, seed: int) -> None:
        self.memory = memory
        self.batch = max(1, batch)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.adds = 0
        self.messages = 0
        self.add_ms: list[float] = []
        self.failures: list[BaseException] = []
        self.started = threading.Barrier(count + 1) if count else None
        chats = [synthetic.person_chat(synthetic.person(90_000 + i, seed), per_writer, seed) for i in range(count)]
        self.threads = [
            threading.Thread(target=self._write, args=(chat,), name=f"bench-writer-{i}", daemon=True)
            for i, chat in enumerate(chats)
        ]

    def _write(self, chat: synthetic.PersonChat) -> None:
        person = f"load-{chat.person.id}"
        messages = [m.as_input() for m in chat.messages]
        first = True
        for start in range(0, len(messages), self.batch):
            if self.stop.is_set():
                break
            began = time.perf_counter()
            try:
                stored = self.memory.add(messages[start : start + self.batch], agent=synthetic.AGENT, person=person)
            except BaseException as exc:
                self.failures.append(exc)
                break
            finally:
                if first and self.started is not None:  # the load is steady once every writer has added once
                    first = False
                    self.started.wait()
            with self.lock:
                self.adds += 1
                self.messages += len(stored)
                self.add_ms.append((time.perf_counter() - began) * 1e3)
        if first and self.started is not None:
            self.started.wait()

    def __enter__(self) -> _Writers:
        for thread in self.threads:
            thread.start()
        if self.started is not None:
            self.started.wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()


def bench_load(
    *,
    embedder: Embedder,
    config: Config,
    directory: Path,
    n_queries: int = 200,
    readers: int = 4,
    writers: int = 8,
    write_batch: int = 4,
    # adds no longer wait for anything, so writers running free wrote ~16k messages whose indexing close()
    # then waited for (minutes): 300 each keeps the load's size near what it was (2.6k messages)
    writer_messages: int = 300,
    history: int = 4,
    max_seconds: float = 120.0,
    seed: int = 0,
    location: str | None = None,
    say: Say = lambda _: None,
) -> dict[str, Any]:
    """Recall latency idle and under ``writers`` adding, in one process; the store at ``location``
    (fresh, cleaned up by the caller) or a fresh SQLite store in ``directory``."""
    store_dir = directory / "store-load"
    if location is None and store_dir.exists():
        shutil.rmtree(store_dir)
    memory = Memory(location or store_dir, config=config, embedder=embedder)
    try:
        say(f"load: {history} persons of history")
        probes: list[tuple[str, str]] = []
        for chat in synthetic.chats(history, 120, seed=seed + 41, facts=4):
            memory.add([m.as_input() for m in chat.messages], agent=synthetic.AGENT, person=chat.person.id, index=True)
            memory.flush(agent=synthetic.AGENT, person=chat.person.id)
            probes += [(chat.person.id, probe.query) for probe in chat.probes]
        queries = list(islice(cycle(probes), n_queries))
        _recall_all(memory, queries[: min(10, len(queries))], readers, None)  # warm: vectors loaded, code paths hot
        say(f"load: {len(queries)} recalls idle on {readers} threads")
        idle = _recall_all(memory, queries, readers, None)
        say(f"load: the same recalls while {writers} writers add {write_batch} messages per call")
        began = time.perf_counter()
        with _Writers(memory, writers, write_batch, writer_messages, seed) as load:
            loaded = _recall_all(memory, queries, readers, time.monotonic() + max_seconds)
            during = (load.adds, load.messages)
        seconds = time.perf_counter() - began
        if load.failures:
            raise load.failures[0]
        jobs = memory.jobs(agent=synthetic.AGENT)
    finally:
        memory.close()
        if location is None:
            shutil.rmtree(store_dir, ignore_errors=True)
    idle_summary, load_summary = bench_stats.summary(idle.latencies), bench_stats.summary(loaded.latencies)
    return {
        "queries": len(queries),
        "readers": readers,
        "writers": writers,
        "write_batch": write_batch,
        "idle_ms": idle_summary,
        "under_load_ms": load_summary,
        "ratio_p50": bench_stats.ratio(load_summary["p50"], idle_summary["p50"]),
        "ratio_p95": bench_stats.ratio(load_summary["p95"], idle_summary["p95"]),
        "stages_p50_idle": idle.stages_p50(),
        "stages_p50_under_load": loaded.stages_p50(),
        "skipped_at_deadline": loaded.skipped,
        "adds_during_recalls": during[0],
        "messages_during_recalls": during[1],
        "messages_per_s_during_recalls": round(during[1] / seconds, 1) if seconds > 0 else 0.0,
        "add_ms": bench_stats.summary(load.add_ms),
        "extraction_jobs_at_end": len(jobs),
        "worker_enabled": config.worker.enabled,
    }
