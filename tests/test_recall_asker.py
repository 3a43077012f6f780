"""In a private chat a question is about the asker's life unless it addresses the agent: their lines get the
speaker bonus even with no 我 in it (那次医生是怎么诊断的, asked about their cat: companion ev1)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 3, 10, 10, 0)
CHAT = [
    ("木木", "user", "土豆吐了三次，我刚带它去了宠物医院"),
    ("祈煜", "assistant", "别慌，医生怎么说？"),
    ("木木", "user", "医生说是肠胃炎，打了一针"),
]


def bonuses(path: Path, query: str) -> dict[str, dict[str, float]]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=20)) as memory:
        messages = [
            {"id": f"m{i}", "speaker": who, "role": role, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (who, role, text) in enumerate(CHAT)
        ]
        memory.add(messages, agent="祈煜", person="木木", index=True, extract=False)
        found = memory.recall(query, agent="祈煜", person="木木", limit=3)
        given = found.info.get("bonuses", {})
        assert isinstance(given, dict)
        return {hit.sources[0]: given.get(hit.id, {}) for hit in found.hits}


def test_a_question_that_does_not_address_the_agent_is_about_the_asker(tmp_path: Path) -> None:
    got = bonuses(tmp_path / "a", "那次医生是怎么诊断的")
    assert "speaker" in got["m0"] and "speaker" in got["m2"] and "speaker" not in got["m1"]
    got = bonuses(tmp_path / "b", "好怕它又闹肚子\n那次医生是怎么诊断的")  # the chat before is not the question
    assert "speaker" in got["m2"]


def test_a_question_to_the_agent_is_not(tmp_path: Path) -> None:
    got = bonuses(tmp_path / "c", "那次你是怎么说的")
    assert not any("speaker" in b for b in got.values())
