"""Forwarded and quoted lines on the LLM path: the prompts mark them as someone else's words, a fact the
model reads from them alone is dropped, and a member's global profile is never shown them."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

AGENT = "祈煜"
T0 = datetime(2024, 11, 4, 20, 0)
FORWARD = "[转发] 工作群 小林: 我喜欢喝美式咖啡"
REPLY = "[回复 小林: 你住哪] 我住在杭州"


def fact(subject: str, predicate: str, obj: str, source: str) -> dict[str, Any]:
    return {
        "subject": subject,
        "subject_type": "person",
        "predicate": predicate,
        "object": obj,
        "object_type": "generic",
        "kind": "preference",
        "keyword": "喜好",
        "description": "",
        "time": "",
        "confidence": 0.9,
        "sources": [source],
    }


def test_the_llm_is_told_and_a_fact_from_a_forward_alone_is_dropped(tmp_path: Path) -> None:
    lines = [("ann", "大家好"), ("bob", "大家好"), ("ajie2", FORWARD), ("ajie2", REPLY)]
    answer = {
        "events": [{"text": "ajie2转发了小林的话", "time": "", "place": "", "participants": ["ajie2"],
                    "keywords": ["咖啡"], "insight": "", "importance": 0.4, "sources": ["m1", "m2", "m3", "m4"]}],
        "facts": [fact("我", "喜欢喝", "美式咖啡", "m3"), fact("小林", "喜欢喝", "美式咖啡", "m3"),
                  fact("我", "住在", "杭州", "m4")],
        "entities": [],
    }  # fmt: skip
    with FakeOpenAI() as server:
        server.script_chat(json_content=answer)
        # the day's summaries in the order they are written: daily, global, profiles, ajie2's global profile, diary
        for text in ("2024-11-04：大家在群里聊天。", "2024-11-04：大家在群里聊天。"):
            server.script_chat(json_content={"text": text})
        profiles = [{"name": name, "text": f"{name}在群里聊天。"} for name in ("ann", "bob", "ajie2")]
        server.script_chat(json_content={"profiles": profiles})
        for text in ("ajie2住在杭州。", "2024-11-04，今天我在群里听大家聊天。"):
            server.script_chat(json_content={"text": text})
        config = Config(
            llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
            worker={"enabled": False},
            recall={"reinforce": False},
        )
        with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
            messages = [
                {"id": f"g{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
                for i, (who, text) in enumerate(lines)
            ]
            memory.add(messages, agent=AGENT, space="g-game")
            memory.flush(agent=AGENT, space="g-game")
            facts = {f.text for f in memory.memories(agent=AGENT, space="g-game", kinds=["fact"])}
            memory.summarize(T0.date(), agent=AGENT, space="g-game")
            profile = [s.text for s in memory.memories(agent=AGENT, person="ajie2", kinds=["summary"])]
        requests = [request.messages for request in server.chat_requests]
    system, user = requests[0][0]["content"], requests[0][1]["content"]
    assert "（转发：…）" in system
    assert "ajie2：（转发：工作群 小林: 我喜欢喝美式咖啡）" in user
    assert "ajie2：我住在杭州（引用：小林: 你住哪）" in user
    assert facts == {"ajie2住在杭州"}
    assert not any("美式" in text for text in profile)
    global_profile = [r for r in requests[1:] if "亲口说的、关于自己的事" in r[0]["content"]]
    assert global_profile, [r[0]["content"][:40] for r in requests[1:]]
    assert all("美式" not in r[-1]["content"] and "杭州" in r[-1]["content"] for r in global_profile)
    told = [r for r in requests[1:] if "浓缩成一段每日摘要" in r[0]["content"] or "日记" in r[0]["content"]]
    assert len(told) == 2  # the daily summary and the diary: told what the note means, and shown it
    assert all("（转发：…）" in r[0]["content"] and "ajie2：（转发：工作群" in r[-1]["content"] for r in told)


def test_an_english_chat_gets_the_same_rule(tmp_path: Path) -> None:
    lines = [
        ("ann", "hi all"),
        ("bob", "hey"),
        ("ajie2", "Forwarded from Lin\nI love jazz"),
        ("ajie2", "> I quit coffee"),
    ]
    answer = {
        "events": [{"text": "ajie2 forwarded Lin's words", "time": "", "place": "", "participants": ["ajie2"],
                    "keywords": ["jazz"], "insight": "", "importance": 0.4, "sources": ["m1", "m2", "m3", "m4"]}],
        "facts": [fact("I", "loves", "jazz", "m3"), fact("I", "quit", "coffee", "m4")],
        "entities": [],
    }  # fmt: skip
    with FakeOpenAI() as server:
        server.script_chat(json_content=answer)
        config = Config(
            llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0}, worker={"enabled": False}
        )
        with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
            messages = [
                {"id": f"e{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
                for i, (who, text) in enumerate(lines)
            ]
            memory.add(messages, agent=AGENT, space="g-en")
            memory.flush(agent=AGENT, space="g-en")
            facts = memory.memories(agent=AGENT, space="g-en", kinds=["fact"])
        system, user = (m["content"] for m in server.chat_requests[0].messages)
    assert '"(forwarded: …)"' in system
    assert "ajie2: (forwarded: Lin I love jazz)" in user and "ajie2: (quoting: I quit coffee)" in user
    assert facts == []
