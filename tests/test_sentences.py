"""A turn's own vector has its speaker's name before each sentence (chunk.own_sentences, issue #17)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from huiyi.config import Config
from huiyi.flows.chatter import spoken_text
from huiyi.memory import Memory
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder

EMB = HashEmbedder(64)
LINE = "I just signed up for a pottery class. It's like therapy for me! Have you tried it?"


def _own_vector(path: Path, by_sentence: bool) -> tuple[np.ndarray, str]:
    config = Config(chunk={"own_vector": True, "own_sentences": by_sentence}, worker={"enabled": False})
    with Memory(path, config=config, embedder=EMB) as memory:
        memory.add(
            [{"speaker": "Caroline", "text": "Hi Mel!"}, {"speaker": "Melanie", "text": LINE}],
            agent="a",
            person="p",
            index=True,
        )
        store = memory.store
        chunks = store.list_memories([Scope.of_person("a", "p")], [MemoryKind.CHUNK])
        mine = next(chunk for chunk in chunks if chunk.text.startswith("Melanie"))
        return np.asarray(store.own_vectors("a", [mine.id])[mine.id], dtype=np.float32), mine.text


@pytest.mark.parametrize("by_sentence", [True, False])
def test_a_turns_own_vector_names_its_speaker_before_each_sentence(tmp_path: Path, by_sentence: bool) -> None:
    own, text = _own_vector(tmp_path / str(by_sentence), by_sentence)
    assert text == f"Melanie: {LINE}"
    said = ["Melanie: I just signed up for a pottery class.", "Melanie: It's like therapy for me!"]
    said.append("Melanie: Have you tried it?")
    assert spoken_text(text, ["Melanie"]) == "\n".join(said)
    spoken = EMB.embed_passages(["\n".join(said)])[0]
    expected = spoken if by_sentence else EMB.embed_passages([text])[0]
    assert np.allclose(own, expected, atol=2e-3)  # stored as float16
    assert not np.allclose(EMB.embed_passages([text])[0], spoken, atol=2e-2)


def test_a_turn_of_one_sentence_keeps_its_own_vector() -> None:
    assert spoken_text("木木: 我家的猫叫布丁，今年三岁了", ["木木"]) == "木木: 我家的猫叫布丁，今年三岁了"
    # a speaker's name that starts another's is told apart by the longest match
    assert spoken_text("Ann Lee: Hi. Bye.", ["Ann", "Ann Lee"]) == "Ann Lee: Hi.\nAnn Lee: Bye."


def test_what_is_embedded_stays_bounded_by_the_message_however_it_is_written(tmp_path: Path) -> None:
    long_name = "Bartholomew the Magnificent"
    dots = "ok. " * 2000  # a hostile message: thousands of two-letter sentences
    assert spoken_text(f"{long_name}: {dots}", [long_name]) == f"{long_name}: {dots}"
    seen: list[str] = []

    class Counting(HashEmbedder):
        def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
            seen.extend(texts)
            return super().embed_passages(texts)

    config = Config(chunk={"own_vector": True, "own_sentences": True}, worker={"enabled": False})
    with Memory(tmp_path / "m", config=config, embedder=Counting(64)) as memory:
        memory.add({"speaker": long_name, "text": dots}, agent="a", person="p", index=True)
    assert max(len(text) for text in seen) <= 2 * len(f"{long_name}: {dots}")
