#!/usr/bin/env python3
"""The own-line vectors' read of a fresh query, for two code trees in turns (issue 15).

``recall.own_floor`` reads the own-line vectors of the 200 best dense candidates; a query whose candidates
no earlier recall read (a bot's next turn, another scope) reads them all from the store. This builds the
bench's 100 k store once under STORE (its synthetic chat and 200 probe queries), then in fresh processes,
the two trees alternating, reads the candidates' own vectors of every probe with the cache emptied before
each read, and prints each tree's best median of three rounds (process CPU ms per read).

    python scripts/own_vectors_ab.py STORE BASE/src src [pairs]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

CHILD = r"""
import inspect, json, statistics, sys, time
from pathlib import Path
from huiyi.config import Config
from huiyi.evaluation.bench.build import VectorCache
from huiyi.model import Scope
from huiyi.providers.embed import make_embedder
from huiyi.store.sqlite import SQLiteStore

where = Path(sys.argv[1])
probes = json.loads((where / "probes.json").read_text(encoding="utf-8"))
config = Config.load()
vectors = VectorCache(make_embedder(config.embed), None).queries([query for query, _ in probes])
store = SQLiteStore(where)
keyed = "keys" in inspect.signature(store.own_vectors).parameters  # a tree from before keys reads by id
work = []
for (query, person), vector in zip(probes, vectors):
    hits = store.search_dense([Scope.of_person("祈煜", person)], vector, 200).hits
    work.append(([hit.id for hit in hits], [hit.key for hit in hits]))

def one_round():
    took = []
    for ids, keys in work:
        store._own.clear()  # nothing cached: every candidate is read
        started = time.process_time()
        store.own_vectors("祈煜", ids, keys) if keyed else store.own_vectors("祈煜", ids)
        took.append((time.process_time() - started) * 1e3)
    return statistics.median(took)

one_round()
print(json.dumps(min(one_round() for _ in range(3))))
store.close()
"""


def build(where: Path) -> None:
    """The bench's 100 k store and its probes, as ``huiyi bench run --sizes 100k`` builds them."""
    from huiyi import Memory
    from huiyi.config import Config
    from huiyi.evaluation.bench.build import Pool, VectorCache, build_store
    from huiyi.providers.embed import make_embedder

    config = Config.load()
    embedder = make_embedder(config.embed)
    cache = VectorCache(embedder, None)
    pool = Pool.build(cache, 8, 0)
    memory = Memory(where, config=config, embedder=embedder)
    try:
        stats = build_store(
            memory.store,
            size=100_000,
            scope_size=1000,
            pool=pool,
            cache=cache,
            n_probes=200,
            seed=0,
            own=config.chunk.own_vector,
        )
    finally:
        memory.close()
    probes = [(probe.query, probe.person.id) for probe in stats.probes]
    (where / "probes.json").write_text(json.dumps(probes, ensure_ascii=False), encoding="utf-8")


def main(argv: list[str]) -> None:
    where, trees = Path(argv[0]), {"base": argv[1], "this": argv[2]}
    pairs = int(argv[3]) if len(argv) > 3 else 3
    if not (where / "probes.json").exists():
        build(where)
    took: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(pairs):
        for name, src in trees.items():
            env = {**os.environ, "PYTHONPATH": src}
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(where)], env=env, capture_output=True, text=True, check=True
            )
            took[name].append(json.loads(done.stdout.splitlines()[-1]))
    for name, medians in took.items():
        rounds = ", ".join(f"{m:.3f}" for m in medians)
        print(f"{name}: own vectors of 200 uncached candidates, CPU ms per read: {rounds}")


if __name__ == "__main__":
    main(sys.argv[1:])
