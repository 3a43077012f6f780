"""A scripted 40-round Chinese conversation through folding, extraction and the rendered context.

Once with a fake OpenAI-compatible LLM (scripted answers, one broken), once with no LLM at all.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi.model import JobState, MemoryKind
from huiyi.providers.embed import Embedder

START = datetime(2024, 9, 1, 20, 0)
NOW = datetime(2024, 10, 1, 21, 0)

# 40 rounds over four evenings; round i is said at START + i days // 10 + i minutes
TOPICS = [
    ("我叫木木，是一名插画师。", "很高兴认识你，木木。"),
    ("我最喜欢莫兰迪色系。", "难怪你的画总是很温柔。"),
    ("我家的猫叫团子，很黏人。", "团子一定很可爱。"),
    ("我下周三要考驾照科目二。", "别紧张，我陪你练。"),
    ("我住在南京鼓楼区。", "鼓楼的梧桐很好看。"),
]


def rounds() -> list[tuple[str, str]]:
    fillers = [(f"今天第{i}次聊到天气，外面有点凉。", f"记得加件外套，第{i}次提醒你。") for i in range(40)]
    out = list(fillers)
    for position, topic in zip((0, 8, 16, 24, 32), TOPICS, strict=True):
        out[position] = topic
    return out


def messages() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i, (user, agent) in enumerate(rounds()):
        at = START + timedelta(days=i // 10, minutes=i)
        out.append({"id": f"u{i}", "text": user, "time": at})
        out.append({"id": f"a{i}", "text": agent, "role": "assistant", "time": at + timedelta(seconds=30)})
    return out


def llm_answer(event: str, when: str, fact: dict[str, object] | None = None) -> dict[str, object]:
    return {
        "events": [
            {
                "text": event,
                "time": when,
                "place": "木木的家",
                "participants": ["木木", "祈煜"],
                "keywords": ["聊天"],
                "insight": "",
                "importance": 0.6,
                "sources": ["m1", "m2"],
            }
        ],
        "facts": [fact] if fact else [],
        "entities": [],
    }


def test_forty_rounds_with_a_fake_llm_render_the_seed_format(tmp_path: Path, e5: Embedder) -> None:
    with FakeOpenAI() as server:
        server.script_status(500)  # the first attempt fails: the job must retry, nothing partial
        server.script_chat(
            json_content=llm_answer(
                "木木介绍自己是插画师，喜欢莫兰迪色系。",
                "2024-09-01 20:00",
                {
                    "subject": "木木",
                    "subject_type": "person",
                    "predicate": "职业",
                    "object": "插画师",
                    "object_type": "literal",
                    "kind": "attribute",
                    "keyword": "职业",
                    "description": "木木是一名插画师",
                    "time": "2024-09-01 20:00",
                    "confidence": 0.9,
                    "sources": ["m1"],
                },
            )
        )
        server.script_chat(json_content=llm_answer("木木说起家里的猫团子很黏人。", "2024-09-02 20:16"))
        server.script_chat(
            json_content=llm_answer(
                "木木说下周三要考驾照科目二，祈煜答应陪练。",
                "2024-09-03 20:24",
                {
                    "subject": "祈煜",
                    "subject_type": "agent",
                    "predicate": "答应",
                    "object": "木木",
                    "object_type": "person",
                    "kind": "relation",
                    "keyword": "驾照",
                    "description": "祈煜答应陪木木练车考驾照",
                    "time": "2024-09-03 20:24",
                    "confidence": 0.9,
                    "sources": ["m1"],
                },
            )
        )
        config = Config(
            llm={"base_url": server.base_url, "model": "fake-model", "max_retries": 0},
            worker={"enabled": False, "backoff_seconds": 0.0},
        )
        with Memory(tmp_path, embedder=e5, config=config, clock=lambda: NOW) as memory:
            for start in range(0, 80, 2):
                memory.add(messages()[start : start + 2], agent="祈煜", person="木木")
                memory.run_jobs()
            memory.run_jobs()  # the retry of the job that met the 500
            jobs = memory.jobs(agent="祈煜")
            assert [j.state for j in jobs] == [JobState.DONE] * 3
            assert (jobs[0].attempts, jobs[0].claims) == (1, 2) and "500" in jobs[0].last_error
            # rounds 30–39 are still verbatim in working memory
            working = memory.working_memory(agent="祈煜", person="木木")
            assert working[0].id == "u30" and len(working) == 20

            context = memory.context(agent="祈煜", person="木木", message="你还记得我的职业吗", last_reply="")
            sections = context.rendered.sections
            # 30 days and an hour ago: the date; within 30 days: the date and the part of the day
            assert sections["overview"] == (
                "前情提要：\n"
                "2024-09-01 木木的家:木木介绍自己是插画师，喜欢莫兰迪色系。\n"
                "2024-09-02 晚上 木木的家:木木说起家里的猫团子很黏人。\n"
                "2024-09-03 晚上 木木的家:木木说下周三要考驾照科目二，祈煜答应陪练。"
            )
            assert "脑海中回想起的片段：\n1. 木木的属性：\n木木是一名插画师" in sections["fragments"]
            assert sections["working"].startswith("对话上下文：\n木木: 今天第30次聊到天气")
            assert context.text.index("前情提要") < context.text.index("对话上下文")
            # every prompt of the conversation was written in Chinese, with message times
            prompt = server.chat_requests[-1].messages[-1]["content"]
            assert "2024-09-03" in prompt and "木木" in prompt


def test_forty_rounds_without_an_llm_still_distil_memories(tmp_path: Path, e5: Embedder) -> None:
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=e5, config=config, clock=lambda: NOW) as memory:
        for start in range(0, 80, 2):
            memory.add(messages()[start : start + 2], agent="祈煜", person="木木")
        memory.run_jobs()
        assert [j.state for j in memory.jobs(agent="祈煜")] == [JobState.DONE] * 3
        overview = memory.overview(agent="祈煜", person="木木")
        assert overview and all(item.kind is MemoryKind.EVENT for item in overview)
        assert all(item.sources for item in overview)
        facts = memory.memories(agent="祈煜", person="木木", kinds=[MemoryKind.FACT])
        described = " ".join(f.text for f in facts)
        assert "莫兰迪" in described and "插画师" in described
        context = memory.context(agent="祈煜", person="木木", message="我喜欢什么颜色来着", last_reply="")
        assert "莫兰迪" in context.rendered.sections.get("fragments", "") + context.rendered.sections.get("events", "")
        # the time of an event 30 days back shows as a date with its part of day
        assert "2024-09-01" in context.text
        text = json.dumps(context.rendered.sections, ensure_ascii=False)
        assert "团子" not in text or "猫" in text


def test_huiyi_chat_echoes_and_shows_what_it_recalled(tmp_path: Path, e5: Embedder) -> None:
    import asyncio
    import io

    from rich.console import Console

    from huiyi.faces.chat import chat
    from huiyi.memory import AsyncMemory

    lines = iter(["我家的猫叫团子", "我的猫叫什么", "/quit"])
    out = io.StringIO()

    async def scenario() -> int:
        async with AsyncMemory(tmp_path, embedder=e5, config=Config(worker={"enabled": False})) as memory:
            return await chat(
                memory, agent="祈煜", person="木木", console=Console(file=out, width=100), read=lambda _: next(lines)
            )

    assert asyncio.run(scenario()) == 2
    shown = out.getvalue()
    assert "祈煜: （echo）我家的猫叫团子" in shown
    assert "recalled in" in shown and "木木: 我家的猫叫团子" in shown


def test_huiyi_chat_answers_through_the_llm(tmp_path: Path, e5: Embedder) -> None:
    import asyncio
    import io

    from rich.console import Console

    from huiyi.faces.chat import chat
    from huiyi.memory import AsyncMemory

    with FakeOpenAI() as server:
        server.script_chat(json_content=llm_answer("木木家的猫叫团子。", "2024-09-01 20:00"))  # the fold
        server.script_chat("团子最近还咬耳机线吗？")  # the chat turn
        config = Config(llm={"base_url": server.base_url, "model": "fake-model"}, worker={"enabled": False})
        lines = iter(["猫", EOFError()])

        def read(_: str) -> str:
            item = next(lines)
            if isinstance(item, BaseException):
                raise item
            return item

        async def scenario() -> int:
            async with AsyncMemory(tmp_path, embedder=e5, config=config) as memory:
                await memory.add(["我家的猫叫团子"], agent="祈煜", person="木木")
                await memory.flush(agent="祈煜", person="木木")
                return await chat(memory, agent="祈煜", person="木木", console=Console(file=io.StringIO()), read=read)

        assert asyncio.run(scenario()) == 1
        system = server.chat_requests[-1].messages[0]["content"]
        assert system.startswith("你是祈煜") and "团子" in system
