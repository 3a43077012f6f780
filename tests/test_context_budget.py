"""The prompt context's character budget (context.max_chars, huiyi.recall.budget)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from huiyi import AsyncMemory, Config, Memory
from huiyi.client import Client
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app
from huiyi.model import CoreBlock, MemoryItem, MemoryKind, Message, Scope
from huiyi.providers.embed import Embedder
from huiyi.recall.budget import LATEST_TURNS, cut_text, render_within
from huiyi.recall.render import ContextParts, Templates, render

NOW = datetime(2024, 10, 1, 20, 0)
SCOPE = Scope.of_person("祈煜", "木木")
ZH = Templates.load("zh")
PERSONA = "我是祈煜，一名画家，住在海边的画室里。"


def turn(n: int, text: str) -> Message:
    speaker, role = ("木木", "user") if n % 2 == 0 else ("祈煜", "assistant")
    return Message(
        id=f"m{n}",
        agent="祈煜",
        space=SCOPE.space_id,
        scope=SCOPE,
        speaker=speaker,
        role=role,
        text=text,
        time=NOW - timedelta(minutes=400 - n),
    )


def memory_item(id: str, text: str, kind: MemoryKind, days_ago: int, **data: Any) -> MemoryItem:
    return MemoryItem(id=id, scope=SCOPE, kind=kind, text=text, time=NOW - timedelta(days=days_ago), data=data)


def fact(id: str, text: str) -> MemoryItem:
    return memory_item(id, text, MemoryKind.FACT, 3, subject="木木", subject_type="客体", fact_kind="attribute")


def huge_parts() -> ContextParts:
    """A 200 kB pasted article among 160 long turns, ending with a short message of the person's."""
    article = "".join(f"第{i}段：这是一篇很长的文章，讲的是海边的日出和潮汐。" for i in range(8000))
    assert len(article) > 200_000
    working = [turn(n, f"第{n}轮" + "今天的天气真不错，我们去散步吧。" * 60) for n in range(159)]
    working[100] = turn(100, article)
    working.append(turn(160, "你还记得我喜欢什么颜色吗"))
    return ContextParts(
        agent="祈煜",
        person="木木",
        now=NOW,
        core_blocks=[CoreBlock(label="persona", text=PERSONA)],
        overview=[
            memory_item(f"ov{i}", f"第{i}件事：木木和祈煜去了画廊。" * 20, MemoryKind.EVENT, i) for i in range(10)
        ],
        facts=[fact("f-top", "木木最喜欢莫兰迪色系"), *(fact(f"f{i}", f"木木喜欢第{i}种花" * 30) for i in range(4))],
        events=[memory_item(f"e{i}", f"木木说起第{i}次旅行。" * 40, MemoryKind.EVENT, 20 + i) for i in range(4)],
        working=working,
        ranking=["f-top", "e0", "f0", "e1", "f1", "e2", "f2", "e3", "f3"],
    )


@pytest.mark.parametrize("budget", [12_000, 4_000, 1_500])
def test_a_pasted_article_and_160_long_turns_fit_the_budget(budget: int) -> None:
    parts = huge_parts()
    assert len(render(parts, ZH).text) > 300_000
    rendered = render_within(parts, ZH, budget)
    assert len(rendered.text) <= budget
    assert rendered.sections["core_blocks"] == f"<persona>\n{PERSONA}\n</persona>"
    assert rendered.text.endswith("\n木木: 你还记得我喜欢什么颜色吗")
    assert "木木最喜欢莫兰迪色系" in rendered.text  # the top recalled fact
    for message in parts.working[-LATEST_TURNS:]:  # the latest turns stay, at worst cut
        assert f"第{message.id[1:]}轮" in rendered.sections["working"] or message.id == "m160"
    assert "条对话略去）" in rendered.sections["working"]
    left_out = {(d.id, d.section) for d in rendered.dropped if "budget" in d.reason}
    assert ("m0", "working") in left_out and ("f-top", "fragments") not in left_out


def test_over_long_messages_are_cut_first_and_the_rest_is_untouched() -> None:
    working = [turn(n, f"第{n}轮，短短的一句话。") for n in range(10)]
    working[3] = turn(3, "开头" + "很长的文章。" * 2000 + "结尾")
    parts = ContextParts(agent="祈煜", person="木木", now=NOW, working=working)
    rendered = render_within(parts, ZH, 2_000)
    assert len(rendered.text) <= 2_000
    line = next(line for line in rendered.text.splitlines() if line.startswith("祈煜: 开头"))
    assert line.endswith("结尾") and "……（中间省略" in line
    for n in (0, 1, 2, 4, 9):  # nothing dropped: the cut was enough
        assert f"第{n}轮，短短的一句话。" in rendered.text
    assert "略去" not in rendered.text.replace("中间省略", "")
    assert rendered.dropped == []


def test_a_budget_of_0_changes_nothing() -> None:
    parts = huge_parts()
    assert render_within(parts, ZH, 0) == render(parts, ZH)


def test_a_context_within_the_budget_is_rendered_as_before() -> None:
    parts = ContextParts(
        agent="祈煜",
        person="木木",
        now=NOW,
        core_blocks=[CoreBlock(label="persona", text=PERSONA)],
        facts=[fact("f1", "木木最喜欢莫兰迪色系")],
        working=[turn(n, f"第{n}轮的话") for n in range(40)],
    )
    full = render(parts, ZH)
    assert render_within(parts, ZH, len(full.text)) == full
    assert render_within(parts, ZH, Config().context.max_chars) == full


def test_core_blocks_are_never_cut_even_over_the_budget() -> None:
    persona = "我是祈煜。" * 500
    parts = ContextParts(
        agent="祈煜",
        person="木木",
        now=NOW,
        core_blocks=[CoreBlock(label="persona", text=persona)],
        working=[turn(n, "说了一些话" * 50) for n in range(20)],
    )
    rendered = render_within(parts, ZH, 1_000)
    assert persona in rendered.text and "木木: 说了一些话" in rendered.text


@pytest.mark.parametrize(
    "text",
    [
        "e\u0301" * 400,  # e and a combining acute accent
        "👩\u200d👩\u200d👧" * 150,  # a family: emoji joined by zero-width joiners
        "👍🏽" * 300,  # thumbs up with a skin tone
        "汉字" * 300,
    ],
)
def test_a_cut_never_parts_a_character_from_its_marks(text: str) -> None:
    cut = cut_text(text, 100, lambda n: "<cut>")
    head, tail = cut.split("<cut>")
    assert len(head) + len(tail) <= 100
    for part in (head, tail):
        assert part and part[0] not in "\u0301\u200d\U0001f3fd" and part[-1] != "\u200d"
    assert text.startswith(head) and text.endswith(tail)


@pytest.mark.parametrize(
    "flood",
    [
        "Z" + "\u0301" * 50_000,  # one letter under fifty thousand accents ("Zalgo" text)
        "x\u200d" * 25_000,  # every character joined to the next
        "👍" + "\U0001f3fb" * 30_000,  # skin tones with nothing to tone
    ],
)
def test_a_flood_of_marks_is_cut_all_the_same(flood: str) -> None:
    cut = cut_text(flood, 100, lambda n: "<cut>")
    assert len(cut) <= 105 and flood.startswith(cut.split("<cut>")[0])
    working = [turn(0, "你好"), turn(1, "嗯"), turn(2, flood), turn(3, "好"), turn(4, "最后一句")]
    parts = ContextParts(agent="祈煜", person="木木", now=NOW, working=working)
    rendered = render_within(parts, ZH, 2_000)
    assert len(rendered.text) <= 2_000 and rendered.text.endswith("木木: 最后一句")


def test_english_marks_what_it_left_out() -> None:
    parts = ContextParts(
        agent="Ava",
        person="Sam",
        now=NOW,
        language="en",
        working=[turn(n, "We talked about the sea for a long while. " * 40) for n in range(30)],
    )
    rendered = render_within(parts, Templates.load("en"), 3_000)
    assert len(rendered.text) <= 3_000
    assert "earlier turns left out)" in rendered.text and "characters left out] …" in rendered.text


def test_memory_context_keeps_to_the_budget(tmp_path: Path, hash_embedder: Embedder) -> None:
    config = Config(worker={"enabled": False}, context={"max_chars": 6_000})
    with Memory(tmp_path, embedder=hash_embedder, config=config) as memory:
        top = memory.remember("木木最喜欢的颜色是莫兰迪色系", agent="祈煜", person="木木", kind=MemoryKind.FACT)
        pasted = "一篇文章：" + "海边的日出和潮汐，" * 2200
        lines = [{"text": f"第{n}轮：海浪拍打着礁石，远处有船。" * 20} for n in range(80)]
        lines[40] = {"text": pasted[:20_000]}
        for n, line in enumerate(lines):
            line["role"] = "assistant" if n % 2 else "user"
        memory.add([*lines, {"text": "我今天有点累"}], agent="祈煜", person="木木", index=True)
        context = memory.context(agent="祈煜", person="木木", message="你还记得我喜欢什么颜色吗")
        assert context.recall is not None
        assert [hit.id for hit in context.recall.hits if hit.kind is MemoryKind.FACT][:1] == [top.id]
        assert len(context.text) <= 6_000
        assert context.text.endswith("木木: 我今天有点累") and top.text in context.text
        unbounded = memory.context(agent="祈煜", person="木木", message="你还记得我喜欢什么颜色吗", max_chars=0)
        assert len(unbounded.text) > 40_000
        assert len(memory.context(agent="祈煜", person="木木", max_chars=2_500).text) <= 2_500


@pytest.mark.parametrize("bad", [-1, 1.5, "100", True, 2**40])
def test_a_bad_budget_is_refused(tmp_path: Path, hash_embedder: Embedder, bad: Any) -> None:
    with Memory(tmp_path, embedder=hash_embedder) as memory, pytest.raises(InvalidInput, match="max_chars"):
        memory.context(agent="祈煜", person="木木", message="你好", max_chars=bad)


def test_every_face_takes_a_budget(tmp_path: Path, hash_embedder: Embedder) -> None:
    core = AsyncMemory(tmp_path, embedder=hash_embedder, config=Config(worker={"enabled": False}))
    app = create_app(core)
    lines = [
        {"text": f"第{n}轮：海浪拍打着礁石，远处有船。" * 30, "role": ("user", "assistant")[n % 2]} for n in range(40)
    ]
    who = {"agent": "祈煜", "person": "木木"}
    with TestClient(app) as http:
        assert http.post("/v1/messages", json={**who, "messages": lines}).status_code == 200
        unbounded = http.post("/v1/context", json={**who, "message": "你好", "max_chars": 0}).json()["text"]
        assert (
            len(unbounded) > 20_000
            and len(http.post("/v1/context", json={**who, "message": "你好"}).json()["text"]) <= 12_000
        )
        for path in ("/v1/context", "/context"):
            assert len(http.post(path, json={**who, "message": "你好", "max_chars": 3_000}).json()["text"]) <= 3_000
            assert http.post(path, json={**who, "max_chars": -1}).status_code == 422
    with Client("http://huiyi.test", transport=httpx.ASGITransport(app=app)) as client:
        assert len(client.context(**who, message="你好", max_chars=2_000).text) <= 2_000
        assert client.context(**who, message="你好", max_chars=0).text == unbounded
    asyncio.run(core.close())


def test_in_a_busy_group_the_message_being_answered_is_never_trimmed(tmp_path: Path, hash_embedder: Embedder) -> None:
    """The latest turns are kept, but in a group five others may speak after the member the bot answers:
    a budget that kept only those pushed the question itself out of the prompt."""
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=hash_embedder, config=config) as memory:
        chatter = [{"speaker": f"u{n % 7}", "text": f"第{n}条闲聊，今天天气不错，大家都在摸鱼。"} for n in range(20)]
        question = {"speaker": "木木", "text": "祈煜，你还记得我上次说想去哪里旅行吗？"}
        after = [{"speaker": f"v{n}", "text": f"+{n}"} for n in range(5)]
        memory.add([*chatter, question, *after], agent="祈煜", space="g1")
        # room for the question and the latest four turns, not for the one between them
        asked = memory.context(agent="祈煜", space="g1", message=question["text"], max_chars=95).text
        turns = asked.split("对话上下文：")[1]
        assert f"木木: {question['text']}" in turns and len(asked) <= 95
