"""A clock or ``now`` in UTC is read in the configured zone by consolidation and summaries too.

The store keeps wall-clock times of ``timezone``; recall already moved an aware ``now`` into it, but
consolidation compared it with the stored naive times and raised TypeError, and an aware clock broke
``summarize`` and ``maintain`` the same way.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

SAID = datetime(2025, 3, 9, 17, 0, tzinfo=UTC)  # 2025-03-10 01:00 in Shanghai


def open_memory(path: Path, clock: datetime) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    return Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: clock)


def test_an_aware_clock_runs_consolidation_summaries_and_maintenance(tmp_path: Path) -> None:
    with open_memory(tmp_path, SAID) as memory:
        memory.add(["我今天去看了樱花"], agent="bot", person="u1", index=True)
        memory.flush(agent="bot", person="u1")
        assert memory.consolidate(agent="bot", person="u1").now == datetime(2025, 3, 10, 1, 0)
        assert memory.summarize(date(2025, 3, 10), agent="bot", person="u1")  # the local day it was said
        memory.maintain()


def test_an_aware_now_is_the_same_moment_for_consolidation(tmp_path: Path) -> None:
    with open_memory(tmp_path, datetime(2025, 3, 10, 12, 0)) as memory:
        memory.add(["我今天去看了樱花"], agent="bot", person="u1", index=True)
        report = memory.consolidate(agent="bot", person="u1", dry_run=True, now=datetime(2025, 3, 10, 4, 0, tzinfo=UTC))
        assert report.now == datetime(2025, 3, 10, 12, 0)


def test_a_day_outside_the_years_huiyi_reads_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    """Year 1's first days made the day's window leave the calendar: an OverflowError, HTTP's 500."""
    import pytest

    from huiyi.errors import InvalidInput

    with open_memory(tmp_path, SAID) as memory:
        memory.add(["我今天去看了樱花"], agent="bot", person="u1", index=True)
        for day in (date(1, 1, 1), date(1, 1, 10), date(1899, 12, 31), date(2200, 1, 1)):
            with pytest.raises(InvalidInput, match="outside the years huiyi reads"):
                memory.summarize(day, agent="bot", person="u1")
        assert [item.kind.value for item in memory.memories(agent="bot", person="u1")] == ["chunk"]
