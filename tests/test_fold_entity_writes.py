"""A fold's entities, names and closes land with the commit that completes its job, so a space's next fold reads them.

A space's folds are claimed one at a time, in order (test_store_contract), but a fold recorded its
entities after its commit had marked it done: the next fold, taken then, read the entities before they
landed and wrote its own over them, and 柯凯's alias 老K, read by one fold, was lost to the next one's
write (the interleaved groups of test_batching_invariance, added per chat, lost it about one run in 12).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest

from huiyi.config import Config
from huiyi.flows.extract import worker as worker_module
from huiyi.flows.extract.fold import FOLD
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.flows.extract.worker import Worker
from huiyi.model import Entity, Job, Message, Scope
from huiyi.providers.embed import Embedder, HashEmbedder, Vectors
from huiyi.store.base import Store

T0 = datetime(2024, 11, 14, 9, 30)
SCOPE = Scope.of_space("qy", "riders")
WAIT = 10.0  # seconds a held thread waits at most: a broken hold fails the test, never hangs it


def _fold(store: Store, first: int, lines: Sequence[tuple[str, str]]) -> Job:
    said = [
        Message(
            agent="qy",
            id=f"m{first + i}",
            space=SCOPE.space_id,
            scope=SCOPE,
            speaker=speaker,
            role="user",
            text=text,
            time=T0 + timedelta(minutes=first + i),
        )
        for i, (speaker, text) in enumerate(lines)
    ]
    stored = store.append_messages(said)
    span = {
        "space": SCOPE.space_id,
        "scope": SCOPE.tag,
        "person": None,
        "from_seq": stored[0].seq,
        "to_seq": stored[-1].seq,
        "message_ids": [m.id for m in stored],
    }
    job = Job(kind=FOLD, agent="qy", key=f"fold:{first}", payload=span, created_at=T0 + timedelta(seconds=first))
    assert store.enqueue_job(job)
    return job


def test_a_spaces_next_fold_waits_for_the_entities_of_the_one_before(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fold(store, 0, [("柯凯", "大家好，叫我老K就行，我在古墩路开了家自行车店")])
    _fold(store, 10, [("柯凯", "我住在古墩路附近，周末带骑行团")])
    config = Config(worker={"lease_seconds": 60})
    embedder = HashEmbedder(64)
    first, second = (
        Worker(store, embedder, RuleExtractor(), config, name=name, clock=lambda: T0) for name in ("w1", "w2")
    )
    record = worker_module.entity_names
    held, release, landed = threading.Event(), threading.Event(), threading.Event()

    def held_record(
        store: Store, embedder: Embedder, entities: Sequence[Entity]
    ) -> tuple[list[Entity], Vectors | None]:
        if not held.is_set():  # the first fold: held before its entities are written (with its commit)
            held.set()
            assert release.wait(WAIT)
            named = record(store, embedder, entities)
            landed.set()
            return named
        # the next fold: the first one's entities land between its read of them and its write
        listing = store.list_entities

        def read_then_let_land(*args: object, **kwargs: object) -> list[Entity]:
            known = listing(*args, **kwargs)  # type: ignore[arg-type]
            monkeypatch.setattr(store, "list_entities", listing)  # the first fold reads as ever
            release.set()
            assert landed.wait(WAIT)
            return known

        monkeypatch.setattr(store, "list_entities", read_then_let_land)
        return record(store, embedder, entities)

    monkeypatch.setattr(worker_module, "entity_names", held_record)

    async def scenario() -> Job | None:
        running = asyncio.create_task(first.run_once())
        assert await asyncio.to_thread(held.wait, WAIT)
        taken = await second.run_once()  # the space's next fold, while the first one's entities wait
        release.set()
        await running
        await second.drain()
        return taken

    taken = asyncio.run(scenario())
    (kekai,) = [e for e in store.list_entities([SCOPE]) if e.name == "柯凯"]
    assert "老K" in kekai.aliases
    assert taken is None  # the next fold waited for them
