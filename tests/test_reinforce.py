"""Recall strengthens what it returns, in the background, never on the query's path."""

from __future__ import annotations

from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.reinforce import Reinforcer


def test_recalled_memories_gain_strength_and_access(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as memory:
        note = memory.remember("木木对芒果过敏", agent="a", person="p")
        other = memory.remember("木木喜欢看海", agent="a", person="p")
        for _ in range(2):
            hits = memory.recall("芒果过敏", agent="a", person="p", limit=1).hits
            assert [h.id for h in hits] == [note.id]
        memory.core.reinforcer.flush()
        got = memory.get(note.id, agent="a")
        assert (got.access_count, got.strength) == (2, 1.0 + 2 * 15)
        assert memory.get(other.id, agent="a").access_count == 0


def test_closing_writes_what_is_pending(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as memory:
        note = memory.remember("团子咬断了耳机线", agent="a", person="p")
        memory.core.reinforcer.interval = 3600  # the background thread will not get to it
        memory.recall("耳机线", agent="a", person="p", limit=1)
    with Memory(tmp_path, embedder=HashEmbedder(32)) as memory:
        assert memory.get(note.id, agent="a").access_count == 1


def test_reinforcement_can_be_off(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(32), config=config) as memory:
        note = memory.remember("木木对芒果过敏", agent="a", person="p")
        memory.recall("芒果", agent="a", person="p")
        memory.core.reinforcer.flush()
        assert memory.get(note.id, agent="a").access_count == 0


def test_a_batch_counts_repeats(tmp_path: Path) -> None:
    from datetime import datetime

    from huiyi.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path)
    with Memory(tmp_path / "m", embedder=HashEmbedder(8), store=store, config=Config(worker={"enabled": False})) as m:
        item = m.remember("一条记忆", agent="a")
        reinforcer = Reinforcer(store, bonus=2.0, interval_seconds=3600)
        reinforcer.note("a", [item.id, item.id], datetime(2024, 1, 1))
        reinforcer.note("a", [item.id], datetime(2024, 1, 2))
        assert reinforcer.flush() == 3
        got = m.get(item.id, agent="a")
        assert (got.access_count, got.strength, got.last_access) == (3, 7.0, datetime(2024, 1, 2))
