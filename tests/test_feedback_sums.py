"""Feedback sums up per memory in one statement, within -1…1: two raters at once both count (the sum was
read, then written: 50 ratings of +0.01 at once left 0.03), and a run of ratings by one person cannot push
a memory further than the score reads (thirty ratings of -1 took thirty of +1 to undo)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from conftest import STORE_FACTORIES
from huiyi.config import Config
from huiyi.errors import NotFound
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder


def _memory(tmp_path: Path, backend: str) -> AsyncMemory:
    store = STORE_FACTORIES[backend](tmp_path / "store")
    return AsyncMemory(tmp_path, store=store, embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_ratings_at_once_all_count_and_the_sum_stays_within_one(tmp_path: Path, backend: str) -> None:
    async def run() -> None:
        memory = _memory(tmp_path, backend)
        try:
            item = await memory.remember("祈煜最喜欢的画家是莫奈", agent="祈煜")
            await asyncio.gather(*(memory.feedback(item.id, 0.01, agent="祈煜") for _ in range(50)))
            assert (await memory.get(item.id, agent="祈煜")).feedback == pytest.approx(0.5)
            for _ in range(30):
                await memory.feedback(item.id, -1.0, agent="祈煜")
            assert (await memory.get(item.id, agent="祈煜")).feedback == -1.0
            judged = await memory.feedback(item.id, 1.0, agent="祈煜")
            assert judged.feedback == 0.0 == (await memory.get(item.id, agent="祈煜")).feedback
            with pytest.raises(NotFound):
                await memory.feedback("mem_none", 1.0, agent="祈煜")
        finally:
            await memory.close()

    asyncio.run(run())
