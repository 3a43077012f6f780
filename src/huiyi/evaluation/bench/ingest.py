"""Ingest throughput: messages durably accepted per second, and indexing against the raw embedder.

``Memory.add`` does two things: it appends the messages to the log in one transaction (durable when
it returns: WAL, ``synchronous = FULL``), then embeds and indexes them. Here the two are timed apart,
by running the same steps ``add`` runs (``ingest.prepare`` + ``store.append_messages``, then
``ingest.index_messages``), batch by batch. After each indexing batch the bare embedder embeds the
very texts indexing embedded, with the same batching, so the ratio indexing / raw embedder shows what
the engine adds around the model. ``Memory.add`` itself is also timed end to end on other persons.
With ``location`` a PostgreSQL DSN the same steps run against that store (durable there means a
committed transaction with ``fsync`` and ``synchronous_commit`` as the server has them).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from huiyi.config import Config
from huiyi.evaluation import synthetic
from huiyi.flows import ingest
from huiyi.memory import Memory
from huiyi.providers.embed import Embedder, Vectors

Say = Callable[[str], None]


class RecordingEmbedder:
    """Passes through, remembering the passages asked for and the time spent in the model."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts: list[list[str]] = []
        self.seconds = 0.0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return self.inner.embed_passages(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.texts.append(list(texts))


def _rate(count: int, seconds: float) -> float:
    return round(count / seconds, 1) if seconds > 0 else 0.0


def bench_ingest(
    *,
    embedder: Embedder,
    config: Config,
    directory: Path,
    n_messages: int,
    batch: int = 100,
    single: int = 50,
    seed: int = 0,
    location: str | None = None,
    say: Say = lambda _: None,
) -> dict[str, Any]:
    """Ingest ``n_messages`` synthetic chat messages (several persons) and time each step, into a fresh
    SQLite store in ``directory`` or the (fresh, empty) store at ``location``, which the caller cleans up."""
    agent = synthetic.AGENT
    store_dir = directory / "store-ingest"
    if location is None and store_dir.exists():
        shutil.rmtree(store_dir)
    recorder = RecordingEmbedder(embedder)
    per_person = 200
    n_persons = max(1, -(-n_messages // per_person))
    batches: list[tuple[str, list[synthetic.SynthMessage]]] = []
    left = n_messages
    for chat in synthetic.chats(n_persons, per_person, seed=seed + 17):
        own = chat.messages[: max(0, left)]
        left -= len(own)
        batches += [(chat.person.id, own[i : i + batch]) for i in range(0, len(own), batch)]
    accept_s = index_s = raw_s = 0.0
    accepted = indexed = 0
    memory = Memory(location or store_dir, config=config, embedder=recorder)
    try:
        store = memory.store
        say(f"ingest: {n_messages} messages in batches of {batch}")
        for person, part in batches:
            inputs = [m.as_input() for m in part]
            began = time.perf_counter()
            prepared = ingest.prepare(
                inputs, agent=agent, person=person, space=None, now=memory.core.now(), config=config
            )
            stored = store.append_messages(prepared)
            accepted_at = time.perf_counter()
            recorder.texts.clear()
            ingest.index_messages(store, recorder, stored, config)
            indexed_at = time.perf_counter()
            accept_s += accepted_at - began
            index_s += indexed_at - accepted_at
            accepted += len(stored)
            indexed += len(stored)
            # the bare model on the very texts indexing embedded, batched the same way
            texts = list(recorder.texts)
            raw_started = time.perf_counter()
            for chunk in texts:
                embedder.embed_passages(chunk)
            raw_s += time.perf_counter() - raw_started
        model_s = recorder.seconds
        # one message per call: every add is its own transaction and fsync
        say(f"ingest: {single} messages one per call")
        singles = list(synthetic.person_chat(synthetic.person(9999, seed), single, seed=seed).messages)
        single_accept_s = 0.0
        for message in singles:
            began = time.perf_counter()
            prepared = ingest.prepare(
                [message.as_input()],
                agent=agent,
                person=message.person,
                space=None,
                now=memory.core.now(),
                config=config,
            )
            store.append_messages(prepared)
            single_accept_s += time.perf_counter() - began
        # the public call, end to end, on fresh persons
        say("ingest: Memory.add end to end")
        extra = list(synthetic.chats(2, min(batch, 100), seed=seed + 29))
        add_s = 0.0
        added = 0
        recorder.texts.clear()
        for chat in extra:
            began = time.perf_counter()
            added += len(
                memory.add(
                    [{**m.as_input(), "id": None} for m in chat.messages], agent=agent, person=f"add-{chat.person.id}"
                )
            )
            add_s += time.perf_counter() - began
        # chunks, plus whatever the background extraction embedded meanwhile (events, facts)
        embedded_during_add = sum(len(texts) for texts in recorder.texts)
    finally:
        memory.close()
        if location is None:
            shutil.rmtree(store_dir, ignore_errors=True)
    index_rate = _rate(indexed, index_s)
    raw_rate = _rate(indexed, raw_s)
    return {
        "messages": accepted,
        "batch": batch,
        "accepted_per_s": _rate(accepted, accept_s),
        "accepted_per_s_one_per_call": _rate(len(singles), single_accept_s),
        "accept_ms_per_call_one_message": round(single_accept_s / max(1, len(singles)) * 1e3, 2),
        "indexed_per_s": index_rate,
        "raw_embedder_passages_per_s": raw_rate,
        "indexing_over_raw_embedder": round(index_rate / raw_rate, 3) if raw_rate else None,
        "indexing_seconds": round(index_s, 2),
        "indexing_model_seconds": round(model_s, 2),
        "indexing_outside_model_seconds": round(index_s - model_s, 2),
        "memory_add_per_s": _rate(added, add_s),
        "memory_add_messages": added,
        "memory_add_passages_embedded_per_message": round(embedded_during_add / added, 2) if added else None,
        "worker_enabled": config.worker.enabled,
    }
