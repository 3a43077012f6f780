"""Recall latency at one store size: the full hot path, the same path without the query embedding,
and the baselines they are compared with, all measured in this process.

First each query once with the live embedder (the full hot path, its text new to the query cache); then,
on a pass of their own, each again with its vector looked up instead of computed (everything but the
embedding), the same query at once a second time (what recall's caches of own-line vectors and rank rows
save; measured right after the query with its embedding, as it once was, this flattered the figure), the
bare embedder on the query, and a brute-force numpy scan of the scopes' vectors already in memory (the
floor any exact dense search pays).
Latencies are measured warm (each scope's vectors already loaded) and, apart, cold (the first recall
in a scope after the store was opened: its vectors are read from SQLite; the OS page cache is warm).
The same measures run on a PostgreSQL store when ``pg`` is given (a fresh schema, dropped after);
there "cold" is the first recall in a scope from this process, whose rows may sit in shared buffers."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import cycle, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from huiyi.config import Config
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.evaluation.bench.build import Pool, Probe, VectorCache, build_store, describe
from huiyi.evaluation.bench.context import context_latencies, seed_chats, with_core_blocks
from huiyi.evaluation.bench.goals import serving_rss
from huiyi.memory import Memory
from huiyi.model import Scope
from huiyi.providers.embed import Embedder, Vectors
from huiyi.store.sqlite import DB_NAME, partition_key

if TYPE_CHECKING:
    from huiyi.evaluation.bench.pg import PgTarget

Say = Callable[[str], None]


class SwitchEmbedder:
    """The live embedder, or (``precomputed = True``) vectors looked up by query text; with ``remember``
    the live embedder's vectors are kept to be looked up later (the texts context's recall asks for)."""

    def __init__(self, inner: Embedder, queries: dict[str, Vectors] | None = None) -> None:
        self.inner = inner
        self.queries: dict[str, Vectors] = queries or {}
        self.precomputed = False
        self.remember = False

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        if self.precomputed:
            return np.stack([self.queries[t] for t in texts]).astype(np.float32)
        vectors = self.inner.embed_queries(texts)
        if self.remember:
            self.queries.update(zip(texts, vectors, strict=True))
        return vectors

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_passages(texts)

    def cached_queries(self, texts: Sequence[str]) -> Vectors | None:
        """Looked-up vectors are known without a model call, as a query cache's hit is (recall then
        runs its routes on one thread); the live embedder's are not."""
        if not self.precomputed or not all(t in self.queries for t in texts):
            return None
        return self.embed_queries(texts)


@dataclass
class SizeResult:
    size: int
    report: dict[str, Any] = field(default_factory=dict)


def size_label(size: int) -> str:
    if size % 1_000_000 == 0:
        return f"{size // 1_000_000}M"
    if size % 1000 == 0:
        return f"{size // 1000}k"
    return str(size)


def _floor_matrices(database: Path, agent: str, persons: Sequence[str]) -> dict[str, np.ndarray[Any, Any]]:
    """Each person's visible vectors (official + own) as float32, read straight from SQLite."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    try:

        def load(scope: Scope) -> np.ndarray[Any, Any]:
            rows = conn.execute(
                "SELECT vector FROM memory_vectors WHERE part = ? ORDER BY rowid", (partition_key(agent, scope),)
            ).fetchall()
            if not rows:
                return np.zeros((0, 0), np.float32)
            blob = b"".join(r[0] for r in rows)
            return np.frombuffer(blob, dtype=np.float16).reshape(len(rows), -1).astype(np.float32)

        official = load(Scope.official(agent))
        out = {}
        for person in persons:
            own = load(Scope.of_person(agent, person))
            out[person] = np.concatenate([official, own]) if len(official) else own
        return out
    finally:
        conn.close()


def _floor_scan(matrix: np.ndarray[Any, Any], query: Vectors, limit: int) -> None:
    scores = matrix @ query
    k = min(limit, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    top[np.argsort(-scores[top])].tolist()


FIRST_MESSAGE_AFTER_S = 1.0  # the pause between a bot's open and its first recall, in the paused runs


def first_recall(
    store_dir: Path | str, agent: str, person: str, query: str, env: dict[str, str], pause: float = 0.0
) -> dict[str, Any]:
    """Spawn a fresh interpreter that opens the store and recalls once; wall time until it answers.

    ``wall_ms`` ends when the answer's line reaches this process, which is what a bot's first reply
    waits for; ``exit_ms`` ends when the child has closed the memory and exited (the interpreter's
    teardown adds ~60 ms). ``pause``: seconds between the open and the recall, as a bot waits for its
    first message (what the open starts in the background is then done); the open's figure includes it."""
    code = (
        "import json, sys, time\n"
        "t0 = time.perf_counter()\n"
        "from huiyi import Memory\n"
        "t1 = time.perf_counter()\n"
        "m = Memory(sys.argv[1])\n"
        f"time.sleep({float(pause)!r})\n"
        "t2 = time.perf_counter()\n"
        "r = m.recall(sys.argv[4], agent=sys.argv[2], person=sys.argv[3])\n"
        "t3 = time.perf_counter()\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')] if sys.platform == 'linux' else []\n"
        "print(json.dumps({'import_ms': (t1 - t0) * 1e3, 'open_ms': (t2 - t1) * 1e3,"
        " 'recall_ms': (t3 - t2) * 1e3, 'hits': len(r.hits),"
        " 'peak_rss_mb': int(hwm[0].split()[1]) / 1024 if hwm else 0.0}), flush=True)\n"
        "m.close()\n"
    )
    # stderr to a file: a child logging more than a pipe holds would block before its answer
    with tempfile.TemporaryFile("w+") as errors:
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-c", code, str(store_dir), agent, person, query],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
        )
        hung: list[bool] = []

        def kill() -> None:  # readline below would wait forever on a hung child
            hung.append(True)
            process.kill()

        timer = threading.Timer(300, kill)
        timer.start()
        try:
            assert process.stdout is not None
            answer = process.stdout.readline()  # the child prints one line, once it has the answer
            answered = time.perf_counter()
            rest, _ = process.communicate()
        finally:
            timer.cancel()
        ended = time.perf_counter()
        errors.seek(0)
        err = errors.read()
    lines = [line for line in (answer + rest).splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        if hung:
            return {"error": "timed out after 300 s"}
        return {"error": (err or answer + rest).strip().splitlines()[-1:] or [f"exit {process.returncode}"]}
    inner: dict[str, Any] = json.loads(lines[-1])
    # the child's own clock starts after the interpreter is up; the rest of the wall time is start-up
    inner = {k: round(v, 1) if isinstance(v, float) else v for k, v in inner.items()}
    inner["wall_ms"] = round((answered - started) * 1e3, 1)
    inner["exit_ms"] = round((ended - started) * 1e3, 1)
    return inner


def bench_size(
    size: int,
    *,
    scope_size: int,
    embedder: Embedder,
    cache: VectorCache,
    pool: Pool,
    config: Config,
    directory: Path,
    n_queries: int,
    n_cold: int,
    startup_runs: int,
    child_env: dict[str, str],
    seed: int = 0,
    keep: bool = False,
    pg: PgTarget | None = None,
    say: Say = lambda _: None,
) -> dict[str, Any]:
    """Build a store of ``size`` memories, measure it, and (unless ``keep``) delete it.

    The embedded SQLite store in ``directory``, or with ``pg`` a fresh schema of that PostgreSQL
    database (dropped afterwards, even with ``keep``, unless the database is the caller's own).
    """
    store_dir = directory / f"store-{size_label(size)}"
    if pg is None and store_dir.exists():
        shutil.rmtree(store_dir)
    location: Path | str = pg.new_dsn() if pg else store_dir
    try:
        return _bench_size(
            size,
            location,
            scope_size=scope_size,
            embedder=embedder,
            cache=cache,
            pool=pool,
            config=config,
            n_queries=n_queries,
            n_cold=n_cold,
            startup_runs=startup_runs,
            child_env=child_env,
            seed=seed,
            keep=keep,
            pg=pg,
            say=say,
        )
    finally:
        if pg is not None and isinstance(location, str) and not (keep and pg.server is None):
            pg.drop(location)


def _bench_size(
    size: int,
    location: Path | str,
    *,
    scope_size: int,
    embedder: Embedder,
    cache: VectorCache,
    pool: Pool,
    config: Config,
    n_queries: int,
    n_cold: int,
    startup_runs: int,
    child_env: dict[str, str],
    seed: int,
    keep: bool,
    pg: PgTarget | None,
    say: Say,
) -> dict[str, Any]:
    agent = synthetic.AGENT
    store_name = pg.name if pg else "sqlite"
    switch = SwitchEmbedder(embedder)
    blocks = Path(tempfile.mkdtemp(prefix="huiyi-bench-blocks-"))  # the core blocks context() shows
    memory = Memory(location, config=with_core_blocks(config, blocks), embedder=switch)
    report: dict[str, Any] = {"size": size, "label": size_label(size), "scope": scope_size, "backend": store_name}
    probes: list[Probe] = []
    try:
        say(f"{size_label(size)} {store_name}: building {size} memories in scopes of {scope_size}")
        done = [0, 0]  # memories built, next report

        def progress(count: int) -> None:
            done[0] += count
            if done[0] >= done[1]:
                resident = bench_stats.rss_mb()
                say(f"{size_label(size)} {store_name}: {done[0]:,} memories ({resident:,.0f} MB resident)")
                done[1] = done[0] + max(size // 10, 50_000)

        stats = build_store(
            memory.store,
            size=size,
            scope_size=scope_size,
            pool=pool,
            cache=cache,
            n_probes=n_queries,
            seed=seed,
            progress=progress,
            own=config.chunk.own_vector,
        )
        report["persons"] = stats.persons
        report["build"] = describe(stats)
        if pg is not None and isinstance(location, str):
            vacuum_started = time.perf_counter()
            pg.vacuum(location)
            report["build"]["vacuum_analyze_seconds"] = round(time.perf_counter() - vacuum_started, 2)
        say(f"{size_label(size)} {store_name}: built in {stats.seconds:.1f} s; measuring")
        probes = stats.probes
        switch.queries = dict(zip([p.query for p in probes], cache.queries([p.query for p in probes]), strict=True))
        cache.save()

        def floors(persons: list[str]) -> dict[str, np.ndarray[Any, Any]]:
            if pg is not None and isinstance(location, str):
                return pg.floor_matrices(location, agent, persons)
            return _floor_matrices(Path(location) / DB_NAME, agent, persons)

        report["latency"] = _latencies(memory, switch, probes, agent, config, floors, n_queries, n_cold)
        report["rss_mb_after_queries"] = bench_stats.rss_mb()
        report["peak_rss_mb"] = bench_stats.peak_rss_mb()
        tidied = _maintained(memory)
        if tidied["steps"]:  # the store as the worker's maintenance leaves it (merged keyword segments)
            say(f"{size_label(size)} {store_name}: tidied ({tidied['steps']} merge steps); measuring again")
            # no cold runs: every scope is loaded by now
            tidied["latency"] = _latencies(memory, switch, probes, agent, config, floors, n_queries, 0)
            report["after_maintenance"] = tidied
    finally:
        memory.close()
    count = report.get("build", {}).get("memories", 0) or 1
    if pg is not None and isinstance(location, str):
        report["disk"] = pg.disk(location, count)
    else:
        database = Path(location) / DB_NAME
        bench_stats.checkpoint(database)
        usage = bench_stats.disk_usage(database)
        report["disk"] = {
            "bytes": usage["total"],
            "bytes_per_memory": round(usage["total"] / count, 1),
            "per_memory_by_part": {
                k: round(v / count, 1) for k, v in bench_stats.group_objects(usage["objects"]).items()
            },
        }
    if startup_runs and probes:
        say(f"{size_label(size)} {store_name}: time to first recall in a fresh process ×{startup_runs}")
        # untimed: it compiles the modules into the bench's bytecode cache, as installing the package does
        first_recall(location, agent, probes[0].person.id, probes[0].query, child_env)
        runs = [
            first_recall(location, agent, probes[i % len(probes)].person.id, probes[i % len(probes)].query, child_env)
            for i in range(startup_runs)
        ]
        good = [r for r in runs if "wall_ms" in r]
        # as a bot: the open, then a pause before its first message, then the recall
        paused = [
            first_recall(location, agent, probe.person.id, probe.query, child_env, pause=FIRST_MESSAGE_AFTER_S)
            for probe in (probes[i % len(probes)] for i in range(startup_runs))
        ]
        recalled = [r["recall_ms"] for r in paused if "recall_ms" in r]
        report["first_recall"] = {
            "runs": runs,
            "wall_ms_median": round(bench_stats.median([r["wall_ms"] for r in good]), 1) if good else None,
            "exit_ms_median": round(bench_stats.median([r["exit_ms"] for r in good]), 1) if good else None,
            # VmHWM of the child's own image: getrusage's figure for children counts the fork's copy of this one
            "peak_rss_mb": max((r.get("peak_rss_mb", 0.0) for r in good), default=None),
            "after_pause": {
                "pause_s": FIRST_MESSAGE_AFTER_S,
                "runs": paused,
                "recall_ms_median": round(bench_stats.median(recalled), 1) if recalled else None,
            },
        }
    if startup_runs and probes and pg is None:
        say(f"{size_label(size)} {store_name}: peak RSS of a fresh process recalling in every scope")
        report["serving"] = serving_rss(location, agent, [(p.person.id, p.query) for p in probes], child_env)
    # last, so every figure above is of the store as built (the start-up and serving ones too): this adds
    # chats and their events
    say(f"{size_label(size)} {store_name}: the context of a turn, in a chat and in a group")
    memory = Memory(location, config=with_core_blocks(config, blocks), embedder=switch)
    try:
        seed_chats(memory, probes, pool, agent, seed)
        report["context"] = context_latencies(memory, switch, probes, n_queries, agent)
    finally:
        memory.close()
        shutil.rmtree(blocks, ignore_errors=True)
    if pg is not None:
        if keep and pg.server is None and isinstance(location, str):
            report["store"] = location
    elif not keep:
        shutil.rmtree(location, ignore_errors=True)
    else:
        report["store"] = str(location)
    return report


def _maintained(memory: Memory) -> dict[str, Any]:
    """Merge the keyword index's segments as ``Memory.maintain`` does, each hour the worker runs it
    (``Store.tidy_keywords`` until it has nothing left): a built store holds as many segments as its
    writes left, a store in service what its last maintenance left."""
    started = time.perf_counter()
    steps = 0
    while done := memory.store.tidy_keywords():  # its default steps, as maintain() calls it
        steps += done
    return {"steps": steps, "seconds": round(time.perf_counter() - started, 2)}


def _latencies(
    memory: Memory,
    switch: SwitchEmbedder,
    probes: Sequence[Probe],
    agent: str,
    config: Config,
    floor_matrices: Callable[[list[str]], dict[str, np.ndarray[Any, Any]]],
    n_queries: int,
    n_cold: int,
) -> dict[str, Any]:
    if not probes:
        return {}

    cpu: list[float] = []  # the process's CPU time per recall without the embedding: loaded machines inflate it less

    def ask(probe: Probe, precomputed: bool, count_cpu: bool = True) -> tuple[float, Any]:
        switch.precomputed = precomputed
        started, used = time.perf_counter(), time.process_time()
        result = memory.recall(probe.query, agent=agent, person=probe.person.id, limit=10)
        if precomputed and count_cpu:
            cpu.append((time.process_time() - used) * 1e3)
        return (time.perf_counter() - started) * 1e3, result

    # cold: the first recall in each scope since the store was opened (vectors read from SQLite)
    seen: dict[str, Probe] = {}
    for probe in probes:
        seen.setdefault(probe.person.id, probe)
    cold_total: list[float] = []
    cold_dense: list[float] = []
    for probe in list(seen.values())[:n_cold]:
        ms, result = ask(probe, True)
        cold_total.append(ms)
        cold_dense.append(float(result.timings_ms.get("dense", 0.0)))
    for probe in seen.values():  # warm every scope the timed queries touch
        ask(probe, True)

    cpu.clear()
    floor_persons = list(seen)[:20]
    floors = floor_matrices(floor_persons)
    limit = max(config.recall.candidates, 10)
    full: list[float] = []
    bare: list[float] = []
    embed: list[float] = []
    floor: list[float] = []
    stages: dict[str, list[float]] = {}
    hits: dict[str, bool] = {}
    hits_bare: dict[str, bool] = {}
    repeat: list[float] = []
    sequence = list(islice(cycle(probes), max(n_queries, len(probes))))
    # each query with its embedding, the first time its text is seen (no query vector cached)
    for probe in sequence:
        ms, result = ask(probe, False)
        full.append(ms)
        hits.setdefault(probe.gold, probe.gold in [h.id for h in result.hits])
    # then without it, on a pass of its own: right after the same query, what recall read for it (own-line
    # vectors, rank rows) would still be cached, and a bot's next turn asks something else
    cpu.clear()
    for probe in sequence:
        ms, result = ask(probe, True)
        bare.append(ms)
        hits_bare.setdefault(probe.gold, probe.gold in [h.id for h in result.hits])
        for stage, value in result.timings_ms.items():
            stages.setdefault(stage, []).append(float(value))
        repeat.append(ask(probe, True, count_cpu=False)[0])  # the same query again at once: what caches save
        started = time.perf_counter()
        switch.inner.embed_queries([probe.query])
        embed.append((time.perf_counter() - started) * 1e3)
        matrix = floors.get(probe.person.id)
        if matrix is not None and len(matrix):
            vector = switch.queries[probe.query]
            started = time.perf_counter()
            _floor_scan(matrix, vector, limit)
            floor.append((time.perf_counter() - started) * 1e3)
    switch.precomputed = False
    with_embed = bench_stats.summary(full)
    without_embed = bench_stats.summary(bare)
    embed_only = bench_stats.summary(embed)
    floor_only = bench_stats.summary(floor)
    return {
        "with_embed": with_embed,
        "without_embed": without_embed,
        "without_embed_cpu": bench_stats.summary(cpu),
        "without_embed_repeated": bench_stats.summary(repeat),
        "cold_without_embed": bench_stats.summary(cold_total),
        "cold_dense_route": bench_stats.summary(cold_dense),
        "baseline_embed_query": embed_only,
        "baseline_numpy_scan": floor_only,
        "stages_p50_without_embed": {k: round(bench_stats.median(v), 3) for k, v in stages.items()},
        "ratios": {
            "with_embed_p50_over_bare_embed_p50": bench_stats.ratio(with_embed["p50"], embed_only["p50"]),
            "without_embed_p50_over_numpy_scan_p50": bench_stats.ratio(without_embed["p50"], floor_only["p50"]),
        },
        "hit_at_10": {
            "n": len(hits),
            "with_embed": round(sum(hits.values()) / len(hits), 3) if hits else None,
            "without_embed": round(sum(hits_bare.values()) / len(hits_bare), 3) if hits_bare else None,
        },
        "candidates": limit,
    }
