"""A memory's clock is the one source of the times it writes: with a simulated clock, a simulated month
ages and forgets what it should.

``created_at`` was the machine's time, whatever the clock said: sixty simulated days of chat in 2024
were all "created" today, so decay, MemoryBank's retention and forgetting saw no time pass.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Terms

START = datetime(2024, 1, 1, 20, 0)  # Shanghai wall clock: 12:00 UTC
SCOPE = Scope.of_person("祈煜", "木木")


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def open_memory(path: Path, store: Store, clock: Clock, **consolidate: object) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False}, consolidate=consolidate)
    return Memory(path, embedder=HashEmbedder(32), config=config, store=store, clock=clock)


def test_every_memory_is_created_at_the_clocks_time(store: Store, tmp_path: Path) -> None:
    clock = Clock(START)
    with open_memory(tmp_path, store, clock) as memory:
        note = memory.remember("木木的猫叫团子", agent="祈煜", person="木木")
        clock.now = START + timedelta(days=3)
        memory.add([{"text": "今天去公园散步看到了猫", "time": clock.now}], agent="祈煜", person="木木", index=True)
        clock.now = START + timedelta(days=5)
        memory.flush(agent="祈煜", person="木木")
        memory.run_jobs()
        stored = {item.kind: item for item in store.list_memories([SCOPE], None, 100)}
    utc = timedelta(hours=8)  # created_at is UTC; the clock reads Shanghai's wall clock
    assert note.created_at == stored[MemoryKind.NOTE].created_at == START - utc
    assert stored[MemoryKind.CHUNK].created_at == START + timedelta(days=3) - utc
    assert stored[MemoryKind.EVENT].created_at == START + timedelta(days=5) - utc


def test_the_store_stamps_what_it_writes_by_its_clock(store: Store) -> None:
    store.clock = lambda: datetime(2024, 2, 3, 4, 5, 6)
    item = MemoryItem(scope=SCOPE, kind=MemoryKind.NOTE, text="木木喜欢莫兰迪色系")
    store.add_memories([item], np.ones((1, 8), np.float32), [Terms(words=["莫兰迪"], chars=["莫"])])
    assert store.get_memories("祈煜", [item.id])[0].created_at == datetime(2024, 2, 3, 4, 5, 6)


def test_a_simulated_month_forgets_what_faded(store: Store, tmp_path: Path) -> None:
    """MemoryBank (seed 003): R = e^(−t/S) with S = 1; after 60 simulated days everything of day 0 is gone."""
    clock = Clock(START)
    with open_memory(tmp_path, store, clock, forget={"model": "memorybank"}) as memory:
        faded = memory.remember("木木午饭吃了面条", agent="祈煜", person="木木")
        for day in range(60):
            clock.now = START + timedelta(days=day)
            memory.add([{"text": f"第{day}天，去公园散步", "time": clock.now}], agent="祈煜", person="木木", index=True)
        report = memory.consolidate(agent="祈煜", person="木木")
    gone = {i for change in report.changes if change.kind == "delete" for i in change.ids}
    assert faded.id in gone
    assert len(gone) >= 50  # the last days' lines are still retained above MemoryBank's keep


def test_an_aware_clock_is_the_same_moment(store: Store, tmp_path: Path) -> None:
    clock = Clock(datetime(2024, 1, 1, 12, 0, tzinfo=UTC))
    with open_memory(tmp_path, store, clock) as memory:
        note = memory.remember("木木的猫叫团子", agent="祈煜", person="木木")
    assert note.created_at == datetime(2024, 1, 1, 12, 0)
