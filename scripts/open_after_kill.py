#!/usr/bin/env python3
"""A bot killed (-9) right after adding a history, then restarted: how long its ``Memory(store)`` takes to open,
its first ``add``, and until the messages it left unindexed are indexed by the restarted process alone.

    python scripts/open_after_kill.py [N] [SRC]

``N`` messages (600) are added in one call by a child, which is killed as soon as the call returns (their
indexing runs behind it); ``SRC`` is the ``src`` directory of the tree to time (this one by default), so two
trees can be timed in turns. The store is a fresh one in a temporary directory; the default embedder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ADD = """
import sys
from huiyi import Memory
memory = Memory(sys.argv[1])
memory.add([{"id": f"h{i}", "text": f"第{i}句：今天聊了聊工作和天气，还有周末去哪玩"} for i in range(int(sys.argv[2]))],
           agent="祈煜", person="木木")
print("added", flush=True)
import time; time.sleep(600)
"""

REOPEN = """
import json, sqlite3, sys, time
started = time.perf_counter()
from huiyi import Memory
imported = time.perf_counter()
memory = Memory(sys.argv[1])
opened = time.perf_counter()
memory.add({"id": "new", "text": "我回来了"}, agent="祈煜", person="木木")
added = time.perf_counter()
db = sqlite3.connect(f"file:{sys.argv[1]}/huiyi.sqlite?mode=ro", uri=True)
waiting = "SELECT count(*) FROM messages WHERE indexed = 0"
while db.execute(waiting).fetchone()[0] and time.perf_counter() - opened < 600:
    time.sleep(0.2)
indexed = time.perf_counter()
left = db.execute("SELECT count(*) FROM messages WHERE indexed = 0").fetchone()[0]
memory.close()
print(json.dumps({"open_s": round(opened - imported, 2), "first_add_ms": round((added - opened) * 1e3, 1),
                  "backlog_indexed_after_open_s": round(indexed - opened, 1), "left_unindexed": left}))
"""


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    src = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).resolve().parents[1] / "src").resolve()
    env = {**os.environ, "PYTHONPATH": str(src)}
    with tempfile.TemporaryDirectory(prefix="huiyi-kill-") as store:
        child = subprocess.Popen(
            [sys.executable, "-c", ADD, store, str(count)], stdout=subprocess.PIPE, text=True, env=env
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "added"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        done = subprocess.run(
            [sys.executable, "-c", REOPEN, store], capture_output=True, text=True, env=env, check=True
        )
        print(json.dumps({"messages": count, "src": str(src), **json.loads(done.stdout.splitlines()[-1])}))


if __name__ == "__main__":
    main()
