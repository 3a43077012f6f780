"""A group's turns show people's names, not their platform ids, wherever the chat model reads them.

A bot passes QQ numbers as speakers (``10001``) and records each member's name with ``set_person``. The
folds already wrote ``小林说：…``; working memory, recalled chunks and the search tools showed ``10001: 笑死``,
which the chat model could neither place nor connect to 小林. What is stored and what ``recall()`` returns
keep the ids.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import anyio

from huiyi import AsyncMemory, Memory
from huiyi.config import Config
from huiyi.faces.tools import ToolExecutor
from huiyi.flows.ingest import chunk_id
from huiyi.model import Person
from huiyi.providers.embed import HashEmbedder

AGENT = "bot"
T0 = datetime(2024, 5, 1, 9, 0)
FILLER = ["哈哈", "确实", "今天好热", "+1", "笑死", "有道理", "在吗", "上班好累", "下雨了", "晚安"]


def _config() -> Config:
    # one overview event: the recalled chunks are not all told by the overview already
    return Config(worker={"enabled": False}, recall={"reinforce": False}, overview={"size": 1})


def _open(tmp_path: Path) -> Memory:
    return Memory(tmp_path, embedder=HashEmbedder(64), config=_config(), clock=lambda: T0 + timedelta(days=2))


def _say(memory: Memory, lines: list[tuple[str, str]], space: str = "g1", start: int = 0) -> None:
    memory.add(
        [
            {"id": f"{space}-{start + i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=start + i)}
            for i, (who, text) in enumerate(lines)
        ],
        agent=AGENT,
        space=space,
        index=True,
    )


def _working(memory: Memory, space: str = "g1", message: str = "在吗") -> list[str]:
    return memory.context(agent=AGENT, space=space, message=message).rendered.sections["working"].splitlines()[1:]


def test_working_memory_and_a_recalled_chunk_show_the_name_and_what_is_stored_keeps_the_id(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        memory.set_person(Person(id="10001", name="小林"), agent=AGENT)
        memory.set_person(Person(id="10002", name="王一舟"), agent=AGENT)
        lines = [("10001", "我下周六要去杭州看西湖"), ("10002", "我最近在学吉他，手指都磨出茧了")]
        lines += [(["10001", "10002"][i % 2], FILLER[i % 10]) for i in range(40)]
        _say(memory, lines)
        memory.add([{"role": "assistant", "text": "大家好", "time": T0 + timedelta(hours=1)}], agent=AGENT, space="g1")
        memory.run_jobs()
        context = memory.context(agent=AGENT, space="g1", message="吉他")
        events = context.rendered.sections["events"]
        working = context.rendered.sections["working"].splitlines()[1:]
        assert "王一舟: 我最近在学吉他，手指都磨出茧了" in events, events  # a recalled chunk's line
        assert "1000" not in context.text, context.text
        assert working[-3:] == ["小林: 下雨了", "王一舟: 晚安", "bot: 大家好"], working  # the agent's as before
        # stored and recalled as they were
        assert context.working[-2].speaker == "10002"
        hit = next(hit for hit in context.recall.hits if "吉他" in hit.text) if context.recall else None
        assert hit is not None and hit.text.startswith("10002: ")
        recalled = [hit.text for hit in memory.recall("吉他", agent=AGENT, space="g1").hits]
        assert "10002: 我最近在学吉他，手指都磨出茧了" in recalled, recalled


def test_a_rename_shows_the_new_name_at_the_next_context(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        memory.set_person(Person(id="10001", name="小林"), agent=AGENT)
        _say(memory, [("10001", "在吗"), ("10002", "在")])
        assert _working(memory) == ["小林: 在吗", "10002: 在"]  # no record: shown as today
        memory.set_person(Person(id="10001", name="林总"), agent=AGENT)
        memory.set_person(Person(id="10002", name="阿杰"), agent=AGENT)
        assert _working(memory) == ["林总: 在吗", "阿杰: 在"]


def test_two_ids_sharing_a_name_stay_apart(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        memory.set_person(Person(id="10001", name="小林"), agent=AGENT)
        memory.set_person(Person(id="10004", name="小林"), agent=AGENT)
        memory.set_person(Person(id="10002", name="阿杰"), agent=AGENT)
        _say(memory, [("10001", "我借了你500块"), ("10004", "我没借过钱"), ("10002", "哈哈")])
        assert _working(memory) == ["小林（10001）: 我借了你500块", "小林（10004）: 我没借过钱", "阿杰: 哈哈"]
        # a member whose id is the name keeps it; the one named so by a record shows its id
        _say(memory, [("小林", "我才是小林")], space="g2")
        _say(memory, [("10001", "我也是小林")], space="g2", start=1)
        assert _working(memory, "g2") == ["小林: 我才是小林", "小林（10001）: 我也是小林"]


def test_a_name_that_is_a_section_title_or_the_agents_is_quoted_or_marked(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        memory.set_person(Person(id="10005", name="前情提要"), agent=AGENT)
        memory.set_person(Person(id="10006", name=AGENT), agent=AGENT)
        _say(memory, [("10005", "大家好"), ("10006", "我是管理员")])
        assert _working(memory) == ["「前情提要」: 大家好", "bot (user): 我是管理员"]


def test_a_person_of_another_agent_names_no_one_here(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        memory.set_person(Person(id="10001", name="小林"), agent="other")
        memory.set_person(Person(id="10002", name="阿杰"), agent=AGENT)
        _say(memory, [("10001", "在吗"), ("10002", "在")])
        assert _working(memory) == ["10001: 在吗", "阿杰: 在"]


def test_a_private_chat_shows_its_person_by_name(tmp_path: Path) -> None:
    with _open(tmp_path) as memory:
        memory.set_person(Person(id="u42", name="木木"), agent=AGENT)
        memory.add(
            [{"text": "今天好累", "time": T0}, {"role": "assistant", "text": "早点休息", "time": T0}],
            agent=AGENT,
            person="u42",
        )
        working = memory.context(agent=AGENT, person="u42", message="今天好累").rendered.sections["working"]
        assert working.splitlines()[1:] == ["木木: 今天好累", "bot: 早点休息"]


def test_the_async_face_and_the_tools_show_the_names_as_the_sync_face(tmp_path: Path) -> None:
    async def check() -> str:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(64), config=_config(), clock=lambda: T0)
        try:
            await memory.set_person(Person(id="10001", name="小林"), agent=AGENT)
            await memory.set_person(Person(id="10004", name="小林"), agent=AGENT)
            said = [("10001", "我借了你500块"), ("10004", "我没借过钱")]
            messages = [{"id": f"m{i}", "speaker": who, "text": text} for i, (who, text) in enumerate(said)]
            await memory.add(messages[:1], agent=AGENT, space="g1", index=True)  # a chunk
            await memory.add(messages[1:], agent=AGENT, space="g1", index=False)  # a line not indexed yet
            context = await memory.context(agent=AGENT, space="g1", message="借钱")
            assert context.rendered.sections["working"].splitlines()[1:] == [
                "小林（10001）: 我借了你500块",
                "小林（10004）: 我没借过钱",
            ]
            executor = ToolExecutor(memory, AGENT, space="g1")
            found = json.loads(await executor.call("conversation_search", {"query": "借钱"}))
            texts = sorted(hit["text"] for hit in found["memories"])
            assert texts == ["小林（10001）: 我借了你500块", "小林（10004）: 我没借过钱"], texts
            chunk = chunk_id(AGENT, "m0")
            rated = json.loads(await executor.call("rate_memory", {"memory_id": chunk, "value": 1}))
            assert rated["memory"]["text"] == "小林: 我借了你500块", rated  # alone in its result: no id needed
            return context.text
        finally:
            await memory.close()

    shown = anyio.run(check)
    with Memory(tmp_path, embedder=HashEmbedder(64), config=_config(), clock=lambda: T0) as memory:
        assert memory.context(agent=AGENT, space="g1", message="借钱").text == shown
