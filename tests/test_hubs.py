"""A memory that matches every chat no longer leads a dialogue's recall (huiyi.recall.hubs)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import Vectors, make_embedder
from huiyi.recall import hubs

NOW = datetime(2024, 10, 1, 20, 0)
CHAT, KITE, WORK, OTHER = np.eye(4, dtype=np.float32)


def unit(vector: np.ndarray) -> Vectors:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


class AxesEmbedder:
    """Chat lines point one way (CHAT); a text about kites mostly that way too, as chat does; the hub
    memory exactly that way; the kite memory mostly KITE."""

    name = "axes"
    dim = 4

    def __init__(self) -> None:
        self.queries: list[str] = []

    def _vector(self, text: str) -> Vectors:
        if text in hubs.chat_lines("zh") or text in hubs.chat_lines("en"):
            return CHAT
        if "风筝" in text:
            return unit(0.8 * CHAT + 0.6 * KITE)
        if "大鹰" in text:  # the kite memory, in words the dialogue does not use
            return unit(0.2 * CHAT + 0.98 * KITE)
        if "心里" in text:  # the hub: a feeling told at length, like every chat
            return CHAT
        if "加班" in text:
            return unit(0.3 * CHAT + WORK)
        return OTHER

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        self.queries.extend(texts)
        return np.stack([self._vector(t) for t in texts])

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return np.stack([self._vector(t) for t in texts])


def open_memory(path: Path, embedder: AxesEmbedder, weight: float | None) -> Memory:
    recall: dict[str, object] = {
        "reinforce": False,
        "hurt_weight": 0.0,
    }  # the hub's 难过 is no hurt here (recall.hurts)
    if weight is not None:
        recall["chat_weight"] = weight
    config = Config(worker={"enabled": False}, recall=recall)
    return Memory(path, embedder=embedder, config=config, clock=lambda: NOW)


def test_chat_direction_is_the_unit_mean_of_the_chat_lines_embedded_once() -> None:
    embedder = AxesEmbedder()
    first = hubs.chat_direction(embedder, ["今天好累"])
    again = hubs.chat_direction(embedder, ["明天见"])
    assert np.allclose(first, CHAT) and again is first
    assert embedder.queries == list(hubs.chat_lines("zh"))  # embedded once, in the dialogue's language
    hubs.chat_direction(embedder, ["See you tomorrow"])
    assert embedder.queries[len(hubs.chat_lines("zh")) :] == list(hubs.chat_lines("en"))


def test_a_memory_like_every_chat_no_longer_leads_the_dialogue(tmp_path: Path) -> None:
    dialogue = ["周末天气真好", "是啊，去哪玩了", "去公园了"]
    found: dict[float | None, list[str]] = {}
    for weight in (0.0, None):  # off, then the default
        with open_memory(tmp_path / str(weight), AxesEmbedder(), weight) as memory:
            kite = memory.remember("阿明在海滩牵着一只大鹰飞", agent="bot", person="u1")
            hub = memory.remember("心里很乱很难过，哭到半夜", agent="bot", person="u1")
            memory.remember("连续加班到深夜", agent="bot", person="u1")
            hits = memory.recall("还放了风筝呢", agent="bot", person="u1", limit=3, dialogue=dialogue).hits
            found[weight] = [hit.id for hit in hits]
    assert found[0.0][0] == hub.id  # off: the memory nearest chat in general leads
    assert found[None][0] == kite.id


class Counting:
    """The default embedder, counting the queries it embeds."""

    def __init__(self) -> None:
        self.inner = make_embedder(Config().embed)
        self.name, self.dim, self.queries = self.inner.name, self.inner.dim, 0

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        self.queries += len(texts)
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_passages(texts)


def test_the_default_embedders_directions_are_shipped_and_are_its_own() -> None:
    """No process embeds the chat lines for the default embedder (150 ms a language); the shipped directions
    are what it makes of today's lines (else: scripts/chat_directions_table.py)."""
    embedder = Counting()
    for language, text in (("zh", "今天好累"), ("en", "So tired today")):
        shipped = hubs.chat_direction(embedder, [text])
        assert embedder.queries == 0
        made = np.asarray(embedder.inner.embed_queries(list(hubs.chat_lines(language))), dtype=np.float32).mean(axis=0)
        assert float(np.dot(shipped, made / np.linalg.norm(made))) > 0.999


def test_a_shipped_direction_of_other_lines_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = Counting()
    monkeypatch.setattr(hubs, "lines_digest", lambda language: "other lines")
    hubs.chat_direction(embedder, ["今天好累"])
    assert embedder.queries == len(hubs.chat_lines("zh"))
