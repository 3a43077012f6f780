"""An undated memory sorts by when it was written, on the configured zone's wall clock like every dated one
(``created_at`` is stamped in UTC): in listings and pages, in the overview, in which memory is a scope's
newest, on every backend. In Asia/Shanghai a note sorted 8 hours early against dated memories."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.consolidate.run import due_scopes
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store

SHANGHAI = ZoneInfo("Asia/Shanghai")
NINE_PM = datetime(2024, 5, 1, 21, 0, tzinfo=SHANGHAI)  # 13:00 UTC


@pytest.fixture
def memory(store: Store) -> Iterator[Memory]:
    config = Config(timezone="Asia/Shanghai", worker={"enabled": False})
    with Memory(store=store, embedder=HashEmbedder(16), config=config, clock=lambda: NINE_PM) as made:
        yield made


def test_an_undated_note_lists_by_its_wall_clock(memory: Memory) -> None:
    memory.remember("八点的事", agent="祈煜", person="木木", time=datetime(2024, 5, 1, 20, 0))
    memory.remember("九点写的笔记", agent="祈煜", person="木木")  # no time: written at 21:00 local
    listed = [m.text for m in memory.memories(agent="祈煜", person="木木")]
    assert listed == ["九点写的笔记", "八点的事"]
    first = memory.memories_page(agent="祈煜", person="木木", limit=1)
    assert first.next_cursor is not None
    second = memory.memories_page(agent="祈煜", person="木木", limit=1, cursor=first.next_cursor)
    assert [m.text for m in [*first.items, *second.items]] == listed
    assert second.next_cursor is None


def test_the_overview_orders_and_knows_an_undated_event_by_its_wall_clock(memory: Memory) -> None:
    memory.remember("八点去了公园", agent="祈煜", person="木木", kind=MemoryKind.EVENT, time=datetime(2024, 5, 1, 20))
    memory.remember("九点记下的事", agent="祈煜", person="木木", kind=MemoryKind.EVENT)
    later = memory.overview(agent="祈煜", person="木木", now=datetime(2024, 5, 1, 22, 0))
    assert [m.text for m in later] == ["八点去了公园", "九点记下的事"]  # oldest first
    before = memory.overview(agent="祈煜", person="木木", now=datetime(2024, 5, 1, 20, 30))
    assert [m.text for m in before] == ["八点去了公园"]  # written at 21:00: not known at 20:30


def test_an_undated_note_is_a_scopes_newest_memory(memory: Memory) -> None:
    config = memory.config.consolidate
    # the period began at 20:00: the memory said at 19:00 is older, the note written at 21:00 is not
    now = datetime(2024, 5, 1, 20, 0) + timedelta(days=config.forget.every_days)
    memory.remember("早前的事", agent="祈煜", person="木木", time=datetime(2024, 5, 1, 19, 0))
    memory.remember("九点写的笔记", agent="祈煜", person="木木")
    scope = Scope.of_person("祈煜", "木木")
    assert due_scopes(memory.store, config, now, scopes=[scope], zone=SHANGHAI) == [scope]


def test_pages_of_notes_written_across_a_clock_change_skip_and_repeat_none(store: Store) -> None:
    # New York's clocks went back at 06:00 UTC on 2024-11-03: 05:30 and 06:30 UTC are both 01:30 there
    written = [datetime(2024, 11, 3, 5, 0, tzinfo=UTC)]
    config = Config(timezone="America/New_York", worker={"enabled": False})
    with Memory(store=store, embedder=HashEmbedder(16), config=config, clock=lambda: written[0]) as memory:
        for n in range(4):
            written[0] = datetime(2024, 11, 3, 5, 0, tzinfo=UTC) + timedelta(minutes=30 * n)
            memory.remember(f"笔记{n}", agent="祈煜", person="木木")
        listed = [m.text for m in memory.memories(agent="祈煜", person="木木")]
        assert listed == ["笔记3", "笔记1", "笔记2", "笔记0"]  # 01:30 twice: newest written first
        paged = [m.text for m in memory.iter_memories(agent="祈煜", person="木木", per_page=1)]
        assert paged == listed
