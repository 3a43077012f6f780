#!/usr/bin/env python3
"""What a prompt's working memory costs when the agent's other spaces hold many jobs: 10 000 done and 200
failed fold jobs spread over 1000 groups, the measured chat with 15 rounds (none folded yet), and with
``--outrun`` one failed fold of its own, older than the done jobs, that the next fold outran. Prints the
median CPU time of ``working_memory`` (the function, on this thread) and of ``Memory.context`` (the
process: it runs on the memory's read threads). Put the tree to time on PYTHONPATH.

    PYTHONPATH=src python scripts/working_memory_jobs.py [sqlite|postgres] [--outrun] [calls]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract.fold import FOLD, fold_key, working_memory
from huiyi.model import Job, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Writes

AGENT, PERSON = "祈煜", "木木"
T0 = datetime(2024, 9, 20, 19, 0)
GROUPS, DONE, FAILED = 1000, 10_000, 200


def fold_job(space: str, first: int, last: int) -> Job:
    payload = {"space": space, "scope": space, "person": None, "from_seq": first, "to_seq": last}
    return Job(kind=FOLD, agent=AGENT, key=fold_key(AGENT, space, first, last), payload=payload | {"message_ids": []})


def fill(memory: Memory, outrun: bool) -> str:
    """The measured chat's rounds and every other space's jobs; returns the chat's space."""
    turns: list[dict[str, object]] = []
    for i in range(15):
        at = T0 + timedelta(minutes=i)
        turns += [{"id": f"u{i}", "text": f"第{i}轮", "time": at}, {"id": f"a{i}", "text": "嗯", "role": "assistant"}]
    memory.add(turns, agent=AGENT, person=PERSON)
    store = memory.store
    jobs = [fold_job(f"space:g{n % GROUPS}", 1 + 10 * (n // GROUPS), 10 + 10 * (n // GROUPS)) for n in range(DONE)]
    failed = [fold_job(f"space:g{n}", 100_001, 100_010) for n in range(FAILED)]
    for state, batch in [("done", jobs), ("failed", failed)]:
        for at in range(0, len(batch), 200):  # a few pending at a time: each enqueue reads the live ones
            for job in batch[at : at + 200]:
                store.enqueue_job(job)
            mark(memory, [job.id for job in batch[at : at + 200]], state)
    space = Scope.of_person(AGENT, PERSON).tag
    if outrun:  # its first two rounds' fold failed for good, and the next fold's commit moved the start past it
        job = fold_job(space, 1, 4).model_copy(update={"created_at": datetime(2000, 1, 1)})  # older than the rest
        job.payload["message_ids"] = ["u0", "a0", "u1", "a1"]
        assert store.enqueue_job(job)
        mark(memory, [job.id], "failed")
        store.apply(Writes(fold_points=[(AGENT, space, 9)]))
    return space


def mark(memory: Memory, ids: list[str], state: str) -> None:
    """Jobs as their worker leaves them: done or failed (the state is all the reads look at)."""
    store = memory.store
    if hasattr(store, "_write") and "Postgres" not in type(store).__name__:
        with store._write() as conn:
            conn.executemany("UPDATE jobs SET state = ? WHERE id = ?", [(state, i) for i in ids])
    else:
        with store._write() as cur:
            cur.execute("UPDATE jobs SET state = %s WHERE id = ANY(%s)", (state, ids))


def median_ms(call: Callable[[], object], clock: Callable[[], float], calls: int) -> float:
    took: list[float] = []
    for _ in range(calls):
        begin = clock()
        call()
        took.append(clock() - begin)
    return statistics.median(took) * 1000


def main(argv: list[str]) -> None:
    backend = "postgres" if "postgres" in argv else "sqlite"
    outrun = "--outrun" in argv
    calls = int(next((a for a in argv if a.isdigit()), "300"))
    with tempfile.TemporaryDirectory(prefix="huiyi-wm-") as folder:
        if backend == "postgres":
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
            import pg_server

            where = pg_server.fresh_dsn()
        else:
            where = folder
        settings = Config(worker={"enabled": False})
        with Memory(where, embedder=HashEmbedder(32), config=settings) as memory:
            space = fill(memory, outrun)
            shown = [m.id for m in memory.working_memory(agent=AGENT, person=PERSON)]

            def direct() -> object:
                return working_memory(memory.store, AGENT, space, memory.config)

            def prompt() -> object:
                return memory.context(agent=AGENT, person=PERSON, message="还记得吗")

            for _ in range(20):  # warm caches and threads
                direct(), prompt()
            wm = median_ms(direct, time.thread_time, calls)
            ctx = median_ms(prompt, time.process_time, calls)
    case = f"{backend}{' outrun' if outrun else ''}"
    print(f"{case}: shows {shown[:2]}…, working_memory {wm:.3f} ms, context {ctx:.3f} ms (CPU, median of {calls})")


if __name__ == "__main__":
    main(sys.argv[1:])
