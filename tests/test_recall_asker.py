"""In a private chat a question is about the asker's life unless it addresses the agent: their lines get the
speaker bonus even with no 我 in it (那次医生是怎么诊断的, asked about their cat: companion ev1)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import InvalidInput
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


GROUP_DAY = [
    ("小林", "我在滨江的网易上班，今天要早点去公司"),
    ("Kevin", "我在外企上班，天天开会"),
    ("阿木", "哈哈哈"),
]


def group_memory(path: Path) -> Memory:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    memory = Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=1))
    messages = [
        {"id": f"g{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
        for i, (who, text) in enumerate(GROUP_DAY)
    ]
    memory.add(messages, agent="小忆", space="群", index=True, extract=False)
    return memory


def test_recall_in_a_group_reads_the_questions_i_as_the_speaker(tmp_path: Path) -> None:
    with group_memory(tmp_path) as memory:
        for who, line in (("Kevin", "g1"), ("小林", "g0")):
            found = memory.recall("我在哪上班", agent="小忆", space="群", speaker=who, explain=True, limit=3)
            given = found.info["bonuses"]
            assert [hit.sources for hit in found.hits if "speaker" in given.get(hit.id, {})] == [[line]], who
        kevin = memory.recall("我在哪上班", agent="小忆", space="群", speaker="Kevin", limit=3)
        assert kevin.hits[0].sources == ["g1"]
        # without it, the question's 我 is no one in a group
        nobody = memory.recall("我在哪上班", agent="小忆", space="群", explain=True, limit=3)
        assert not any("speaker" in bonus for bonus in nobody.info["bonuses"].values())


def test_the_speaker_is_checked_as_an_id_and_only_read_in_a_group(tmp_path: Path) -> None:
    with group_memory(tmp_path) as memory:
        for bad in ("", " Kevin", "a\nb", "x" * 201):
            with pytest.raises(InvalidInput):
                memory.recall("我在哪上班", agent="小忆", space="群", speaker=bad)
        # a private chat's asker is its person: a speaker there changes nothing
        alone = memory.recall("我在哪上班", agent="小忆", person="Kevin", speaker="小林", explain=True)
        assert alone.info == memory.recall("我在哪上班", agent="小忆", person="Kevin", explain=True).info


def test_the_speaker_over_http(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from huiyi.faces.http import create_app

    with group_memory(tmp_path) as memory, TestClient(create_app(memory.core)) as http:
        body = {"agent": "小忆", "space": "群", "query": "我在哪上班", "speaker": "Kevin", "limit": 3}
        answer = http.post("/v1/recall", json=body)
        assert answer.status_code == 200 and answer.json()["hits"][0]["sources"] == ["g1"]
        assert http.post("/v1/recall", json={**body, "speaker": " Kevin"}).status_code in (400, 422)
