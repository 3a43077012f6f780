"""The import/export formats without the command line: the same calls an HTTP route would make."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.formats import apply_plan, export_lines, read_text, write_lines
from huiyi.memory import AsyncMemory


@pytest.fixture(autouse=True)
def _hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")
    monkeypatch.setenv("HUIYI_WORKER__ENABLED", "false")


LINES = "\n".join(
    json.dumps(record, ensure_ascii=False)
    for record in [
        {"id": "m1", "speaker": "木木", "text": "我下周三要考试", "time": "2023-04-27T20:00:00"},
        {"type": "memory", "text": "木木怕黑", "kind": "fact", "importance": 0.8},
        {"type": "person", "id": "木木", "name": "木木", "aliases": ["木头"]},
    ]
)


def test_text_read_into_a_plan_with_the_callers_scope() -> None:
    plan = read_text(LINES, "chat.jsonl", "祈煜", "木木", None, [])
    assert [(b.agent, b.person, b.space, len(b.messages)) for b in plan.batches] == [("祈煜", "木木", None, 1)]
    assert [(agent, line.text) for agent, line in plan.memories] == [("祈煜", "木木怕黑")]
    assert plan.persons[0][1].aliases == ["木头"] and not plan.export
    with pytest.raises(InvalidInput, match="line 1: no agent"):
        read_text(LINES, "chat.jsonl", None, "木木", None, [])


def test_a_line_separator_inside_a_text_ends_no_line() -> None:
    """JSON lines were cut with ``str.splitlines``, which breaks at U+2028, U+2029 and U+0085 too: ``json.dumps``
    (so ``huiyi export``) writes them inside a text as they are, and such a message could not be imported."""
    texts = ["第一段\u2028第二段", "甲\u2029乙", "丙\x85丁"]
    lines = [json.dumps({"text": text}, ensure_ascii=False) for text in texts]
    (chat,) = read_text("\r\n".join(lines), "chat.jsonl", "祈煜", "木木", None, []).batches
    assert [m["text"] for m in chat.messages] == texts
    with pytest.raises(InvalidInput, match=r"^line 4: "):  # lines counted as the file has them
        read_text("\n".join([*lines, "{"]), "chat.jsonl", "祈煜", "木木", None, [])


def test_a_plan_applied_then_exported_reads_back_as_an_export(tmp_path: Path) -> None:
    async def run() -> str:
        async with AsyncMemory(tmp_path / "st", config=Config.load()) as memory:
            counts = await apply_plan(memory, read_text(LINES, "chat.jsonl", "祈煜", "木木", None, []))
            assert (counts.stored, counts.memories, counts.persons) == (1, 1, 1)
            await memory.flush(agent="祈煜", person="木木")  # the message's chunk is what export reads it by
            handle = io.StringIO()
            assert await write_lines(export_lines(memory, "祈煜", "木木", None), handle) >= 4
            return handle.getvalue()

    exported = asyncio.run(run())
    types = [json.loads(line)["type"] for line in exported.splitlines()]
    # then what extraction found: the entities (the graph travels with the export) and the plan fact the
    # rules read from 我下周三要考试 (issue #13)
    assert types[:5] == ["export", "person", "message", "working", "memory"]
    assert set(types[5:]) <= {"entity", "link", "merge", "memory"}
    assert any("下周三" in json.loads(line).get("text", "") for line in exported.splitlines()[5:])
    again = read_text(exported, "export.jsonl", None, None, None, [])
    # the message, both memories (木木怕黑 and the plan) and the state of the message's chunk
    assert again.export and again.size == 4 and again.persons[0][1].name == "木木"
    assert [line.kind.value for _, line in again.memories].count("chunk") == 1


def test_a_file_that_names_another_scopes_ids_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    """A message, memory, entity, merge or link line naming what another person holds: refused whole,
    not after the lines before it were written (nor by renaming that person's entity)."""
    from huiyi.model import Entity, EntityType, Scope

    def lines(*records: dict[str, object]) -> str:
        first = {"type": "message", "agent": "a", "person": "mallory", "text": "我是 mallory FIRSTLINE", "id": "x1"}
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in (first, *records))

    async def run() -> None:
        async with AsyncMemory(tmp_path / "st", config=Config.load()) as memory:
            await memory.add([{"text": "我喜欢ALICEPRIV", "id": "a1"}], agent="a", person="alice")
            fact = await memory.remember("alice喜欢ALICEPRIV", agent="a", person="alice", kind="fact")
            alice = Entity(scope=Scope.of_person("a", "alice"), name="爱丽丝", type=EntityType.OBJECT)
            await memory.put_entity(alice)
            mine = {"agent": "a", "person": "mallory"}
            hostile = {
                "message": lines({"type": "message", **mine, "text": "冒名", "id": "a1"}),
                "memory": lines({"type": "memory", **mine, "text": "冒名", "id": fact.id}),
                "entity": lines({"type": "entity", **mine, "id": alice.id, "name": "MALLORY"}),
                "merge": lines(
                    {"type": "entity", **mine, "id": "ent_m", "name": "MALSECRET"},
                    {"type": "merge", **mine, "id": "g1", "source": "ent_m", "target": alice.id},
                ),
                "link": lines(
                    {"type": "memory", **mine, "text": "mallory喜欢猫", "id": "mm"},
                    {"type": "link", **mine, "source": "mm", "target": fact.id},
                ),
            }
            for what, text in hostile.items():
                with pytest.raises(InvalidInput):
                    await apply_plan(memory, read_text(text, f"{what}.jsonl", None, None, None, []))
                assert await memory.messages(["x1"], agent="a") == [], what
            assert await memory.memories(agent="a", person="mallory") == []
            assert await memory.entities(agent="a", person="mallory", merged=True) == []
            assert [(e.name, e.aliases) for e in await memory.entities(agent="a", person="alice")] == [("爱丽丝", [])]

    asyncio.run(run())


def test_an_export_holds_every_message_even_one_whose_chunk_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Messages were found through their chunks: one whose chunk was deleted (or forgotten) left the export."""
    import huiyi.formats.export as export

    monkeypatch.setattr(export, "PAGE", 2)  # the log is read page by page

    async def run() -> list[str]:
        async with AsyncMemory(tmp_path / "st", config=Config.load()) as memory:
            said = [{"text": f"第{i}句 内容{i}", "id": f"p{i}"} for i in range(5)]
            await memory.add(said, agent="a", person="bob", index=True)
            chunk = next(m for m in await memory.memories(agent="a", person="bob") if m.sources == ["p0"])
            await memory.delete(chunk.id, agent="a")
            handle = io.StringIO()
            await write_lines(export_lines(memory, "a", "bob", None), handle)
            return [r["id"] for r in map(json.loads, handle.getvalue().splitlines()) if r["type"] == "message"]

    assert asyncio.run(run()) == ["p0", "p1", "p2", "p3", "p4"]


def test_a_file_not_in_utf8_is_refused_in_words_and_utf16_is_read(tmp_path: Path) -> None:
    """A GBK chat export was a UnicodeDecodeError traceback; UTF-16 with its BOM (Windows tools) is read."""
    from huiyi.formats.choose import read_import

    gbk = tmp_path / "qq.txt"
    gbk.write_bytes("消息对象:小满\n2024-05-01 20:15:32 小满(10001)\n你好\n".encode("gbk"))
    with pytest.raises(InvalidInput, match=r"qq\.txt is not UTF-8 text"):
        read_import(gbk, agent="a")
    wide = tmp_path / "chat.jsonl"
    wide.write_bytes(json.dumps({"text": "你好", "person": "p"}, ensure_ascii=False).encode("utf-16"))
    plan = read_import(wide, agent="a")
    assert [m["text"] for b in plan.batches for m in b.messages] == ["你好"]
