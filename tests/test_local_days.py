"""A day is the configured zone's: summaries of a day given as a moment, and relative days read in that zone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.errors import InvalidInput
from huiyi.model import MemoryKind
from huiyi.providers.embed import HashEmbedder

AGENT, PERSON = "祈煜", "木木"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "mem", embedder=HashEmbedder(64), clock=lambda: datetime(2026, 3, 3, 12, 0)) as mem:
        mem.add([{"text": "我去看了电影，很好看", "time": "2026-03-02T00:10:00+08:00"}], agent=AGENT, person=PERSON)
        mem.flush(agent=AGENT, person=PERSON)
        yield mem


def daily(memory: Memory) -> list[str]:
    found = memory.memories(agent=AGENT, person=PERSON, kinds=[MemoryKind.SUMMARY])
    return sorted(item.summary.period for item in found if item.summary.kind == "daily")


def test_a_utc_moment_summarises_the_local_day_it_falls_on(memory: Memory) -> None:
    made = memory.summarize(datetime(2026, 3, 1, 17, 0, tzinfo=UTC), agent=AGENT, person=PERSON)  # 03-02 01:00 here
    assert made and daily(memory) == ["2026-03-02"]


def test_a_wall_clock_moment_is_its_day_not_a_second_summary_of_it(memory: Memory) -> None:
    memory.summarize(date(2026, 3, 2), agent=AGENT, person=PERSON)
    memory.summarize(datetime(2026, 3, 2, 9, 0), agent=AGENT, person=PERSON)
    assert daily(memory) == ["2026-03-02"]


def test_a_day_that_is_no_date_is_refused_in_words(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match="day"):
        memory.summarize("2026-03-02", agent=AGENT, person=PERSON)  # type: ignore[arg-type]
    assert daily(memory) == []
