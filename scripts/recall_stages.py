#!/usr/bin/env python3
"""Recall without the query embedding on one kept bench-built store, for comparing two versions of the
code on the same store (issue 15): run it with ``PYTHONPATH`` pointing at each checkout in turn.

    PYTHONPATH=src python scripts/recall_stages.py build /tmp/store-1m 1M   # once (1M: ~16 min under load)
    PYTHONPATH=src python scripts/recall_stages.py time /tmp/store-1m 400   # wall/CPU p50, p95, stages, RSS
    PYTHONPATH=src python scripts/recall_stages.py repeat /tmp/store-1m 400 # the same, each query asked twice
    PYTHONPATH=src python scripts/recall_stages.py dump /tmp/store-1m out.json  # every probe's hits, scores
    PYTHONPATH=src python scripts/recall_stages.py tidy /tmp/store-1m       # keyword segments merged, as maintain()
    PYTHONPATH=src python scripts/recall_stages.py prof /tmp/store-1m 400   # cProfile of pipeline.run
    (PROF_SORT, PROF_LINES, PROF_CALLERS, a pattern naming functions whose callers to print, and PROF_REPEAT,
    each recall asked once unprofiled before, shape it)

The store is built as ``huiyi bench run`` builds it (scopes of 1 000, 200 probes, seed 0); the probes and
their query vectors are kept beside it. Each recall goes through ``Memory.recall`` with the vector looked
up, after one warm-up recall per probe (every probed scope's vectors loaded); ``repeat`` asks each probe
just before the timed recall, as ``huiyi bench`` does (its own-vector and row caches then warm, and the
reinforcement batches hold the same memories more often). ``dump`` of two versions
must give identical files when a change is meant to leave rankings alone.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.evaluation import synthetic
from huiyi.evaluation.bench.build import Pool, VectorCache, build_store
from huiyi.evaluation.bench.recall import SwitchEmbedder
from huiyi.evaluation.bench.run import BenchOptions, default_cache_dir, make_bench_embedder
from huiyi.memory import Memory
from huiyi.recall import pipeline


def main() -> None:
    command, directory = sys.argv[1], Path(sys.argv[2])
    options = BenchOptions()
    embedder, config, _ = make_bench_embedder(options)
    cache = VectorCache(embedder, default_cache_dir())
    if command == "build":
        size = int(float(sys.argv[3].replace("k", "e3").replace("M", "e6")))
        pool = Pool.build(cache, options.pool_per_template, 0)
        memory = Memory(directory, config=config, embedder=embedder)
        stats = build_store(
            memory.store,
            size=size,
            scope_size=1000,
            pool=pool,
            cache=cache,
            n_probes=200,
            seed=0,
            own=config.chunk.own_vector,
        )
        probes = [(p.person.id, p.query, p.gold) for p in stats.probes]
        np.save(directory / "qvec.npy", cache.queries([p[1] for p in probes]))
        cache.save()
        (directory / "probes.json").write_text(json.dumps(probes))
        memory.close()
        print(f"built in {stats.seconds:.1f} s")
        return
    if command == "tidy":  # merge the keyword segments, as the worker's hourly maintain() does
        memory = Memory(directory, config=config, embedder=embedder)
        steps = 0
        while done := memory.store.tidy_keywords():
            steps += done
        memory.close()
        print(f"{steps} merge steps")
        return
    probes = json.loads((directory / "probes.json").read_text())
    vectors = np.load(directory / "qvec.npy")
    switch = SwitchEmbedder(embedder, {p[1]: v for p, v in zip(probes, vectors, strict=True)})
    switch.precomputed = True
    memory = Memory(directory, config=config, embedder=switch)

    def ask(probe: list[str]) -> Any:
        return memory.recall(probe[1], agent=synthetic.AGENT, person=probe[0], limit=10)

    for probe in probes:  # warm: every probed scope's vectors loaded
        ask(probe)
    n = int(sys.argv[3]) if len(sys.argv) > 3 and command != "dump" else 400
    sequence = [probes[i % len(probes)] for i in range(n)]
    if command in ("time", "repeat"):
        wall, cpu, stages = [], [], {}
        for probe in sequence:
            if command == "repeat":  # as huiyi bench asks: the same query just before, the second one timed
                ask(probe)
            started, used = time.perf_counter(), time.process_time()
            result = ask(probe)
            wall.append((time.perf_counter() - started) * 1e3)
            cpu.append((time.process_time() - used) * 1e3)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
        wall.sort()
        cpu.sort()
        p95 = int(len(wall) * 0.95)
        print(
            f"wall p50 {statistics.median(wall):.3f} p95 {wall[p95]:.3f} cpu p50 {statistics.median(cpu):.3f}"
            f" p95 {cpu[p95]:.3f} load {os.getloadavg()[0]:.2f}"
        )
        print({stage: round(statistics.median(v), 3) for stage, v in stages.items()})
        lines = Path("/proc/self/status").read_text().splitlines()
        status = [line.split() for line in lines if line.startswith(("VmHWM", "VmRSS"))]
        print(" ".join(f"{key} {int(kb) // 1024} MB" for key, kb, _ in status))
    elif command == "prof":
        profile = cProfile.Profile()
        plain = pipeline.run

        def profiled(*args: Any, **kwargs: Any) -> Any:
            profile.enable()
            try:
                return plain(*args, **kwargs)
            finally:
                profile.disable()

        pipeline.run = profiled  # type: ignore[assignment]
        for probe in sequence:
            if os.environ.get("PROF_REPEAT"):  # each profiled recall asked once before, as ``repeat`` times
                pipeline.run = plain  # type: ignore[assignment]
                ask(probe)
                pipeline.run = profiled  # type: ignore[assignment]
            ask(probe)
        stats = pstats.Stats(profile).sort_stats(os.environ.get("PROF_SORT", "tottime"))
        stats.print_stats(int(os.environ.get("PROF_LINES", "40")))
        if os.environ.get("PROF_CALLERS"):  # who calls these (a regular expression over the names)
            stats.print_callers(os.environ["PROF_CALLERS"])
    elif command == "dump":
        hits = [[(h.id, h.score, h.route_scores) for h in ask(probe).hits] for probe in probes]
        Path(sys.argv[3]).write_text(json.dumps(hits))
    memory.close()


if __name__ == "__main__":
    main()
