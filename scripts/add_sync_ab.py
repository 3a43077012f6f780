#!/usr/bin/env python3
"""One-message ``Memory.add`` latency with ``store.synchronous`` "full" against "normal", interleaved in one
process so that the machine's load (and its disk's fsync latency) falls on both alike.

    PYTHONPATH=src python scripts/add_sync_ab.py [adds]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

from huiyi import Memory
from huiyi.config import Config


def main() -> None:
    adds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    modes = ("full", "normal")
    memories = {
        mode: Memory(tempfile.mkdtemp(), config=Config.model_validate({"store": {"synchronous": mode}}))
        for mode in modes
    }
    for memory in memories.values():
        memory.add({"text": "warm"}, agent="a", person="p")
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    for i in range(adds):
        for mode, memory in memories.items():
            began = time.perf_counter()
            memory.add({"text": f"今天去西湖边跑了十公里 {i}"}, agent="a", person="p")
            times[mode].append((time.perf_counter() - began) * 1e3)
    for mode, found in times.items():
        found.sort()
        p95 = found[int(len(found) * 0.95)]
        print(f"{mode:6} p50 {statistics.median(found):6.2f} ms  p95 {p95:6.2f} ms")
    for memory in memories.values():
        memory.close()


if __name__ == "__main__":
    main()
