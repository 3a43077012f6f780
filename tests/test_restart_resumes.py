"""A process killed -9 and restarted: the work it left (folds to plan, folds to extract) resumes behind the
next open, before anyone writes to the store again."""

from __future__ import annotations

import asyncio
import threading
import time
from multiprocessing.synchronize import Event
from pathlib import Path

from huiyi import Memory
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder
from test_add_background import AGENT as BG_AGENT
from test_add_background import CONFIG, GatedEmbedder, kill_a_stuck_adder
from test_add_background import PERSON as BG_PERSON
from test_jobs import AGENT, PERSON, Extractor, chat, config, open_memory


def unplanned_adder(path: str, added: Event) -> None:
    """Adds a history of 40 rounds, whose folds the thread behind the add never gets to plan."""
    from huiyi.flows.extract.watch import FoldWatch

    FoldWatch.plan = lambda *args, **kwargs: threading.Event().wait(120)  # type: ignore[method-assign]
    embedder = GatedEmbedder()
    embedder.gate.clear()
    memory = Memory(path, config=CONFIG, embedder=embedder)
    history = [{"text": f"以前的第{i}句", "role": "user" if i % 2 == 0 else "assistant"} for i in range(80)]
    memory.add(history, agent=BG_AGENT, person=BG_PERSON)
    added.set()
    threading.Event().wait(120)


def test_a_history_killed_before_its_folds_were_planned_is_folded_after_the_next_open(tmp_path: Path) -> None:
    """A bulk add killed before the thread behind it planned the folds: the next open, taking over its
    messages, plans them too, so they are extracted without waiting for that chat's next add or flush."""
    path = str(tmp_path / "s")
    Memory(path, config=CONFIG, embedder=GatedEmbedder()).close()  # migrate first
    kill_a_stuck_adder(path, unplanned_adder)
    with Memory(path, config=CONFIG, embedder=GatedEmbedder()) as reopened:
        assert len(reopened.working_memory(agent=BG_AGENT, person=BG_PERSON)) == 80
        reopened.indexed()
        reopened.run_jobs()
        assert len(reopened.working_memory(agent=BG_AGENT, person=BG_PERSON)) < 40


def test_a_restarted_bot_extracts_the_folds_left_pending_before_anyone_writes(tmp_path: Path) -> None:
    """Folds a killed process left pending are taken by the restarted bot's worker behind the open: before,
    only its first add woke the worker, so a bot nobody wrote to after its restart left them pending."""
    with open_memory(tmp_path, Extractor()) as memory:  # worker off: the fold stays pending, as a kill leaves it
        memory.add(chat(), agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)

    def restarted_extracts(extractor: Extractor) -> bool:
        deadline = time.monotonic() + 30
        while not extractor.runs and time.monotonic() < deadline:
            time.sleep(0.05)
        return extractor.runs == 1

    extractor = Extractor()
    with open_memory(tmp_path, extractor, config(enabled=True)):
        assert restarted_extracts(extractor)

    with open_memory(tmp_path, Extractor()) as memory:  # a second fold left pending, for the async face
        memory.add(chat(4)[4:], agent=AGENT, person=PERSON)
        memory.flush(agent=AGENT, person=PERSON, wait=False)

    async def reopened_in_a_loop() -> bool:  # built on the loop it runs on
        again = Extractor()
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), extractor=again, config=config(enabled=True))
        try:
            return await asyncio.to_thread(restarted_extracts, again)
        finally:
            await memory.close()

    assert asyncio.run(reopened_in_a_loop())
