#!/usr/bin/env python3
"""Two versions of recall timed in turns on one machine (issue 15): on a loaded 2-core box the load
drifts in minutes, so timing one version after the other compares the load, not the code.

    python scripts/recall_alternate.py /tmp/store-100k OLD_SRC NEW_SRC [rounds] [batch]

Each version runs in a worker process of its own (``PYTHONPATH`` at its ``src``) on its own copy of the
store (recall reinforces what it returns), warmed as scripts/recall_stages.py ``time`` warms; then the
two are asked ``batch`` probes each, in turns, for ``rounds`` rounds (the first of each pair swapped
every round). Prints wall, process CPU and caller-thread CPU p50 / p95 (ms) of each and new / old.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORKER = """
import json, sys, time
import numpy as np
from huiyi.evaluation import synthetic
from huiyi.evaluation.bench.recall import SwitchEmbedder
from huiyi.evaluation.bench.run import BenchOptions, make_bench_embedder
from huiyi.memory import Memory
from pathlib import Path
directory = Path(sys.argv[1])
probes = json.loads((directory / "probes.json").read_text())
vectors = np.load(directory / "qvec.npy")
embedder, config, _ = make_bench_embedder(BenchOptions())
switch = SwitchEmbedder(embedder, {p[1]: v for p, v in zip(probes, vectors, strict=True)})
switch.precomputed = True
memory = Memory(directory, config=config, embedder=switch)
ask = lambda p: memory.recall(p[1], agent=synthetic.AGENT, person=p[0], limit=10)
for p in probes:
    ask(p)
at = 0
print("ready", flush=True)
for line in sys.stdin:
    out = []
    for _ in range(int(line)):
        p = probes[at % len(probes)]
        at += 1
        w, c, t = time.perf_counter(), time.process_time(), time.thread_time()
        ask(p)
        out.append(((time.perf_counter() - w) * 1e3, (time.process_time() - c) * 1e3, (time.thread_time() - t) * 1e3))
    print(json.dumps(out), flush=True)
memory.close()
"""


def _worker(store: Path, src: str, scratch: Path, name: str) -> subprocess.Popen[str]:
    copy = scratch / name
    shutil.copytree(store, copy)
    env = dict(os.environ, PYTHONPATH=src)
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(copy)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


def _ask(process: subprocess.Popen[str], n: int) -> list[list[float]]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{n}\n")
    process.stdin.flush()
    result: list[list[float]] = json.loads(process.stdout.readline())
    return result


def _summary(rows: list[list[float]]) -> list[tuple[float, float]]:
    out = []
    for column in range(3):
        values = sorted(row[column] for row in rows)
        out.append((statistics.median(values), values[int(len(values) * 0.95)]))
    return out


def main() -> None:
    store, old, new = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 50
    with tempfile.TemporaryDirectory(prefix="alternate-") as scratch:
        workers = {"old": _worker(store, old, Path(scratch), "old"), "new": _worker(store, new, Path(scratch), "new")}
        times: dict[str, list[list[float]]] = {"old": [], "new": []}
        started = time.perf_counter()
        for n in range(rounds):
            for name in ("old", "new") if n % 2 == 0 else ("new", "old"):
                times[name].extend(_ask(workers[name], batch))
        for process in workers.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait()
    summaries: dict[str, Any] = {name: _summary(rows) for name, rows in times.items()}
    print(
        f"{rounds} rounds × {batch} recalls each, {time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f}"
    )
    for column, label in enumerate(["wall", "process CPU", "thread CPU"]):
        (o50, o95), (n50, n95) = summaries["old"][column], summaries["new"][column]
        print(
            f"{label:12} old p50 {o50:.3f} p95 {o95:.3f} | new p50 {n50:.3f} p95 {n95:.3f}"
            f" | new/old p50 {n50 / o50:.3f} p95 {n95 / o95:.3f}"
        )


if __name__ == "__main__":
    main()
