"""The child of ``test_kill9_summaries``: a scheduled run on a day's last chance, killed at one point.

    python kill9_summary_child.py STORE POINT

It opens the store on 09-03 12:00 (09-01 is then the oldest day of a two-day window) and runs the
maintenance a background worker runs, sending itself SIGKILL at ``POINT`` of saving 09-01's summaries:

- ``enqueue``: right after a summary job is stored;
- ``delete``: right before summaries are deleted;
- ``save``: right before summaries are written;
- ``saved``: right after summaries were written.

Prints ``done`` when the run returned (the point was never reached).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

AGENT, PERSON = "祈煜", "木木"
SAID = datetime(2024, 9, 2, 12)  # 09-01 has ended and settled
LAST_CHANCE = datetime(2024, 9, 3, 12)  # 09-01 is the oldest day of the window


def config() -> Config:
    return Config(
        worker={"enabled": False},
        summary={"lookback_days": 2},
        consolidate={"supersede": {"enabled": False}, "describe": {"enabled": False}},
    )


def open_memory(path: str, now: datetime) -> Memory:
    return Memory(path, embedder=HashEmbedder(32), extractor=RuleExtractor(), config=config(), clock=lambda: now)


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _killing(method: Callable[..., Any], before: bool, aimed: Callable[..., bool]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if before and aimed(*args, **kwargs):
            _die()
        result = method(*args, **kwargs)
        if not before and aimed(*args, **kwargs):
            _die()
        return result

    return wrapped


def _summaries(writes: Any, *_: Any, **__: Any) -> bool:
    return any(item.kind is MemoryKind.SUMMARY for item in writes.memories)


def main() -> None:
    path, point = sys.argv[1], sys.argv[2]
    with open_memory(path, LAST_CHANCE) as memory:
        store: Any = memory.core.store
        if point == "enqueue":
            store.enqueue_job = _killing(store.enqueue_job, False, lambda job: job.kind == "summary")
        elif point == "delete":
            store.delete_memories = _killing(
                store.delete_memories, True, lambda agent, ids: any(i.startswith("sum_") for i in ids)
            )
        elif point in ("save", "saved"):
            store.apply = _killing(store.apply, point == "save", _summaries)
        memory.maintain(catch_up=False)
        print("done", flush=True)


if __name__ == "__main__":
    main()
