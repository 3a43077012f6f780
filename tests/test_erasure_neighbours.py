"""Others' lines whose chunks held an erased turn are indexed again behind the erasure, not inside it: a group of
700 lines took 31 s to forget a member who said a line in seven (their neighbours re-embedded in the call).
Until then recall finds them by keyword, after what the routes ranked: they are not the chat's newest."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import pg_server
from huiyi import Memory
from huiyi.memory.indexing import Indexing
from huiyi.providers.embed import HashEmbedder, Vectors
from test_erasure import QUIET, T0


def _group(lines: dict[int, tuple[str, str]], count: int = 120) -> list[dict[str, Any]]:
    said = {i: ("alice", f"闲聊第{i}句") for i in range(count)} | lines
    return [
        {"text": text, "speaker": who, "time": T0 + timedelta(minutes=i)} for i, (who, text) in sorted(said.items())
    ]


def test_an_old_line_left_to_index_again_is_recalled_after_the_ranked_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Indexing, "_look_again", lambda self: None)  # the neighbours stay pending
    lines = {3: ("bob", "bob的秘密"), 4: ("carol", "QZXFERRY 渡轮很好玩"), 100: ("alice", "QZXFERRY 渡轮很贵")}
    with Memory(tmp_path / "s", embedder=HashEmbedder(64), config=QUIET) as memory:
        memory.add(_group(lines), agent="a", space="g", index=True)
        memory.forget_person("bob", agent="a")
        hits = memory.recall("QZXFERRY 渡轮", agent="a", space="g").hits
        [pending] = [at for at, hit in enumerate(hits) if hit.data.get("pending")]
        assert "很好玩" in hits[pending].text and "tail" not in hits[pending].data
        assert "很贵" in hits[0].text and pending > 0  # the ranked line first, the old pending one after it


def test_forgetting_returns_before_the_neighbours_are_indexed_and_indexed_waits_for_them(tmp_path: Path) -> None:
    lines = {i: ("bob", f"bob第{i}句 QZXBOB") for i in range(1, 120, 7)}
    with Memory(tmp_path / "s", embedder=HashEmbedder(64), config=QUIET) as memory:
        memory.add(_group(lines), agent="a", space="g", index=True)
        done = memory.forget_person("bob", agent="a")
        assert done.messages == len(lines) and done.reindexed >= len(lines)
        memory.indexed()
        assert not memory.store.unindexed_messages(1000)
        assert not any("QZXBOB" in hit.text for hit in memory.recall("QZXBOB bob", agent="a", space="g").hits)


class _HeldEmbedder(HashEmbedder):
    """Holds the passages it is given once armed until told to go on: the erasure's neighbours read, not written."""

    def __init__(self) -> None:
        super().__init__(64)
        self.armed = False
        self.entered = threading.Event()
        self.go = threading.Event()

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if self.armed:
            self.entered.set()
            self.go.wait(30)
        return super().embed_passages(texts)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_line_another_process_erases_while_the_neighbours_are_embedded_stays_out_of_their_chunks(
    tmp_path: Path, backend: str
) -> None:
    """Carol's question was in the context of the line after bob's when the first instance read it to index it
    again behind forget_person; a second process forgot carol before that chunk was written. The chunk
    carried her words (its vector, and its keys as the answer to her question): it is read again instead."""
    lines = {5: ("carol", "QZXCAROL 托尼老师店在哪？"), 6: ("bob", "bob随口一句"), 7: ("alice", "文二路和学院路交叉口")}
    held = _HeldEmbedder()
    path = str(tmp_path / "s") if backend == "sqlite" else pg_server.fresh_dsn()
    with Memory(path, embedder=held, config=QUIET) as first:
        first.add(_group(lines, count=10), agent="a", space="g", index=True)
        held.armed = True
        first.forget_person("bob", agent="a")
        assert held.entered.wait(30)  # the neighbours read, bob gone and carol still there
        with Memory(path, embedder=HashEmbedder(64), config=QUIET) as second:
            assert second.forget_person("carol", agent="a").messages == 1
        held.armed = False
        held.go.set()
        first.indexed()
        hits = first.recall("QZXCAROL 托尼老师店在哪", agent="a", space="g").hits
        assert not any(hit.route_scores.get("keyword") for hit in hits), [(hit.text, hit.route_scores) for hit in hits]
        assert not first.store.unindexed_messages(1000)
