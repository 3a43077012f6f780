#!/usr/bin/env python3
"""The first add of two code trees in turns: fresh processes that open a new store, wait as a bot waits for
its first message, and add one message, then a second (``bench.startup.FIRST_ADD``, as ``huiyi bench run``
times it). Runs alternate between the trees so the machine's load falls on both alike; each tree has a
bytecode cache of its own, as an installed package does. The child's code comes from this checkout, so
the base tree needs only ``huiyi.Memory``.

    python scripts/first_add_ab.py BASE/src src [runs] [pause_s]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from huiyi.evaluation.bench.startup import FIRST_ADD, with_bytecode_cache


def main(argv: list[str]) -> None:
    trees = {"base": argv[0], "this": argv[1]}
    runs = int(argv[2]) if len(argv) > 2 else 9
    pause = argv[3] if len(argv) > 3 else "1.0"
    took: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="huiyi-first-add-") as cache:
        for run in range(runs + 1):  # the first round fills each tree's bytecode cache
            for name, src in trees.items():
                env = with_bytecode_cache(os.environ, Path(cache) / name)
                env["PYTHONPATH"] = src
                done = subprocess.run(
                    [sys.executable, "-c", FIRST_ADD, pause], env=env, capture_output=True, text=True, check=True
                )
                if run:
                    first, second = json.loads(done.stdout.splitlines()[-1])
                    took[name].append((first, second))
    for name, pairs in took.items():
        firsts = [first for first, _ in pairs]
        print(
            f"{name}: first add median {statistics.median(firsts):.2f} ms (min {min(firsts):.2f}, max "
            f"{max(firsts):.2f}); second add median {statistics.median(s for _, s in pairs):.2f} ms; {runs} runs"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
