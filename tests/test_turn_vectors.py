"""Chunks embedded as their turn alone, their context turns joined at query time (issues 15 and 17).

The context costs no embedding: a turn-alone chunk's dense score mixes in the scan's similarities of
the chunks before it in its chat, and its own similarity stays a floor, so the exact turn keeps its
place while an answer still rises with the question before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows import ingest
from huiyi.model import MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import Embedder, HashEmbedder
from huiyi.store.base import TURN_VECTOR, Store, Terms, TurnContext
from huiyi.store.sqlite import SQLiteStore
from huiyi.store.vectors import Chat, Places, context_rows, with_context

SCOPE = Scope.of_person("a", "p")
SPACE = SCOPE.space_id
DIM = 8


def axis(*weights: tuple[int, float]) -> list[float]:
    vector = np.zeros(DIM, np.float32)
    for index, value in weights:
        vector[index] = value
    return (vector / np.linalg.norm(vector)).tolist()


def chunk(name: str, seq: int | None, *, turn: bool = True, kind: MemoryKind = MemoryKind.CHUNK) -> MemoryItem:
    data: dict[str, object] = {"space": SPACE, "seq": seq} if seq is not None else {}
    if turn and seq is not None:
        data["vector"] = TURN_VECTOR
    return MemoryItem(id=name, scope=SCOPE, kind=kind, text=name, data=data)


def put(store: Store, items: Sequence[MemoryItem], vectors: Sequence[list[float]]) -> None:
    store.add_memories(items, np.asarray(vectors, np.float32), [Terms([item.text], []) for item in items])


QUERY = np.asarray(axis((0, 1.0)), np.float32)


def chat(turn: bool = True) -> tuple[list[MemoryItem], list[list[float]]]:
    """A question the query matches, its answer, a later line, an event between, and a near miss."""
    items = [
        chunk("question", 1, turn=turn),
        chunk("answer", 2, turn=turn),
        chunk("event", None, kind=MemoryKind.EVENT),
        chunk("later", 3, turn=turn),
        chunk("near", 4, turn=turn),
    ]
    vectors = [axis((0, 1.0)), axis((1, 1.0)), axis((5, 1.0)), axis((2, 1.0)), axis((0, 0.3), (3, 0.954))]
    return items, vectors


def scores(store: Store, query: np.ndarray = QUERY) -> dict[str, float]:
    found = store.search_dense([SCOPE], query, 10)
    return {hit.id: hit.score for hit in found.hits}


def test_an_answer_rises_with_its_question_and_the_exact_turn_stays_first(store: Store) -> None:
    items, vectors = chat()
    put(store, items, vectors)
    found = store.search_dense([SCOPE], QUERY, 10)
    assert [hit.id for hit in found.hits][:4] == ["question", "answer", "near", "later"]
    got = {hit.id: hit.score for hit in found.hits}
    # weights (1, 0.5): the answer (0) with its question (1) → 1 / 2; the later line (0) with the
    # answer (0) and the question (1) → 0.5 / 2.5; the near miss keeps its own 0.3 (its mix is lower)
    assert got["question"] == pytest.approx(1.0, abs=2e-3)
    assert got["answer"] == pytest.approx(0.5, abs=2e-3)
    assert got["later"] == pytest.approx(0.2, abs=2e-3)
    assert got["near"] == pytest.approx(0.3, abs=2e-3)
    assert got["event"] == pytest.approx(0.0, abs=2e-3)  # no chunk: its own similarity
    # other routes' candidates get the same score from the same scan
    keys = {hit.id: hit.key for hit in found.hits}
    assert found.score_of([keys["answer"], keys["later"]]) == pytest.approx([0.5, 0.2], abs=2e-3)


def test_chunks_that_embed_their_context_keep_their_own_score(store: Store) -> None:
    # a store indexed before (context "text" or "vector") has no turn marker: nothing changes for it
    items, vectors = chat(turn=False)
    put(store, items, vectors)
    got = scores(store)
    assert got["answer"] == pytest.approx(0.0, abs=2e-3)
    assert got["near"] == pytest.approx(0.3, abs=2e-3)
    assert [name for name, _ in sorted(got.items(), key=lambda pair: -pair[1])][:2] == ["question", "near"]


def test_written_in_process_or_loaded_again_the_scores_are_the_same(tmp_path: Path) -> None:
    items, vectors = chat()
    store = SQLiteStore(tmp_path / "s")
    put(store, items[:2], vectors[:2])
    assert scores(store)["answer"] == pytest.approx(0.5, abs=2e-3)  # loads the partition
    put(store, items[2:], vectors[2:])  # the cache takes the new rows with their places
    warm = scores(store)
    store.close()
    reopened = SQLiteStore(tmp_path / "s")
    assert scores(reopened) == pytest.approx(warm, abs=1e-6)
    reopened.delete_memories("a", ["answer"])  # the question now comes right before the later line
    assert scores(reopened)["later"] == pytest.approx(1 / 2, abs=2e-3)
    reopened.close()


def test_without_the_floor_the_mix_is_the_score(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s", context=TurnContext(weights=(1.0,), floor=False))
    items, vectors = chat()
    put(store, items, vectors)
    got = scores(store)
    assert got["question"] == pytest.approx(1.0, abs=2e-3)  # the first turn: nothing before it
    assert got["answer"] == pytest.approx(0.5, abs=2e-3)
    assert got["near"] == pytest.approx(0.15, abs=2e-3)  # below its own 0.3: the line before it is 0
    store.close()


def test_context_rows_follow_seq_within_a_space_and_skip_what_is_no_chunk() -> None:
    spaces = np.asarray([0, 0, -1, 0, 1, 0], np.int64)
    seqs = np.asarray([5, 2, -1, 9, 1, 7], np.int64)
    assert context_rows(spaces, seqs, 2).tolist() == [[1, -1], [-1, -1], [-1, -1], [5, 0], [-1, -1], [0, 1]]
    places = Chat(Places(["s", "s", None], [1, 2, None], [True, True, False]))
    assert places.context_rows(1) is not None
    assert Chat(Places(["s"], [1], [False])).context_rows(2) is None  # no turn vectors: plain scores


def test_the_mix_is_a_weighted_mean_over_the_turns_present() -> None:
    own = np.asarray([0.8, 0.2, 0.4], np.float32)
    context = np.asarray([[-1, -1], [0, -1], [1, 0]], np.int64)
    turns = np.asarray([True, True, False])
    mixed = with_context(own, context, turns, TurnContext(weights=(1.0, 0.5), floor=False))
    assert mixed.tolist() == pytest.approx([0.8, 0.5, 0.4])  # the third is no turn vector: its own
    floored = with_context(own, context, np.asarray([True, True, True]), TurnContext(weights=(1.0, 0.5)))
    assert floored.tolist() == pytest.approx([0.8, 0.5, (0.4 + 0.2 + 0.4) / 2.5])


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(32)
        self.texts: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed_passages(texts)


def test_turn_context_embeds_each_turn_alone_once_and_marks_it(tmp_path: Path) -> None:
    config = Config(chunk={"context": "turn", "context_turns": 2})
    store = SQLiteStore(tmp_path / "s")
    lines = ["我养了一只猫", "叫什么名字？", "叫团子", "几岁了？", "三岁"]
    prepared = ingest.prepare(lines, agent="a", person="p", space=None, now=datetime(2024, 1, 1), config=config)
    embedder = Counting()
    ingest.index_messages(store, embedder, store.append_messages(prepared), config)
    assert embedder.texts == [f"p: {line}" for line in lines]  # one passage per turn, the turn alone
    chunks = store.list_memories([SCOPE], kinds=[MemoryKind.CHUNK])
    assert len(chunks) == 5 and all(item.data.get("vector") == TURN_VECTOR for item in chunks)
    # what the cat is called: the answer turn is found through the question before it too
    query = HashEmbedder(32).embed_queries(["p: 叫什么名字？"])[0]
    ranked = [hit.id for hit in store.search_dense([SCOPE], query, 5).hits]
    by_text = {item.id: item.text for item in chunks}
    assert [by_text[i] for i in ranked[:2]] == ["p: 叫什么名字？", "p: 叫团子"]
    store.close()


def test_a_store_indexed_with_context_text_keeps_working_when_turns_come_alone(tmp_path: Path, e5: Embedder) -> None:
    # no migration and no re-index: each chunk says how its vector was made, so old chunks keep their
    # score and new ones take their context at query time, side by side in one scope
    talk = [{"text": text, "role": role} for text, role in [("我养了一只猫", "user"), ("叫什么名字？", "assistant")]]
    with Memory(tmp_path, embedder=e5) as memory:  # chunk.context = "text", the default
        memory.add(talk, agent="a", person="p", index=True)
    turn = Config(chunk={"context": "turn", "context_turns": 1, "context_weights": [1.0, 0.5]})
    with Memory(tmp_path, embedder=e5, config=turn) as memory:
        memory.add([{"text": "叫团子，三岁了", "role": "user"}], agent="a", person="p", index=True)
        marks = {m.text: m.data.get("vector") for m in memory.store.list_memories([SCOPE], kinds=[MemoryKind.CHUNK])}
        assert marks == {"p: 我养了一只猫": None, "a: 叫什么名字？": None, "p: 叫团子，三岁了": TURN_VECTOR}
        hits = memory.recall("猫叫什么名字", agent="a", person="p", limit=3).hits
        assert "p: 叫团子，三岁了" in [hit.text for hit in hits]
