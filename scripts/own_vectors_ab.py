#!/usr/bin/env python3
"""The own-line vectors' read of a fresh query, for two code trees in turns (issue 15).

``recall.own_floor`` reads the own-line vectors of the 200 best dense candidates; a query whose candidates
no earlier recall read (a bot's next turn, another scope) reads them all from the store. On a store built by
``scripts/recall_stages.py build`` (the bench's, with its probes and their query vectors kept beside it), this
reads the candidates' own vectors of every probe with the cache emptied before each read, in fresh processes,
the two trees alternating, and prints each tree's best median of three rounds (process CPU ms per read).

    PYTHONPATH=src python scripts/recall_stages.py build STORE 100k   # once
    python scripts/own_vectors_ab.py STORE BASE/src src [pairs]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = r"""
import inspect, json, statistics, sys, time
from pathlib import Path
import numpy as np
from huiyi.model import Scope
from huiyi.store.sqlite import SQLiteStore

where = Path(sys.argv[1])
probes = json.loads((where / "probes.json").read_text(encoding="utf-8"))
vectors = np.load(where / "qvec.npy")
store = SQLiteStore(where)
agent = "祈煜"
keyed = "keys" in inspect.signature(store.own_vectors).parameters  # a tree from before keys reads by id
work = []
for (person, _, _), vector in zip(probes, vectors):
    hits = store.search_dense([Scope.of_person(agent, person)], vector, 200).hits
    work.append(([hit.id for hit in hits], [hit.key for hit in hits]))

def one_round():
    took = []
    for ids, keys in work:
        store._own.clear()  # nothing cached: every candidate is read
        started = time.process_time()
        store.own_vectors(agent, ids, keys) if keyed else store.own_vectors(agent, ids)
        took.append((time.process_time() - started) * 1e3)
    return statistics.median(took)

one_round()
print(json.dumps(min(one_round() for _ in range(3))))
store.close()
"""


def main(argv: list[str]) -> None:
    where, trees = argv[0], {"base": argv[1], "this": argv[2]}
    pairs = int(argv[3]) if len(argv) > 3 else 3
    took: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(pairs):
        for name, src in trees.items():
            env = {**os.environ, "PYTHONPATH": src}
            done = subprocess.run(
                [sys.executable, "-c", CHILD, where], env=env, capture_output=True, text=True, check=True
            )
            took[name].append(json.loads(done.stdout.splitlines()[-1]))
    for name, medians in took.items():
        rounds = ", ".join(f"{m:.3f}" for m in medians)
        print(f"{name}: own vectors of 200 uncached candidates, CPU ms per read: {rounds}")


if __name__ == "__main__":
    main(sys.argv[1:])
