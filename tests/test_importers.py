"""Importers of other apps' exports: each fixture (invented people, never real chats) imports with the
right persons, spaces and times; imports resume without duplicates and extract as live chat would."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import STORE_FACTORIES
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.cli import app
from huiyi.formats.apply import apply_plan
from huiyi.formats.choose import read_import, sniff
from huiyi.formats.plan import Plan
from huiyi.formats.read import read_text
from huiyi.memory import AsyncMemory
from huiyi.model import Entity, MemoryKind, Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder

DATA = Path(__file__).parent / "data" / "imports"
A = "祈煜"


def plan_of(name: str, **options: object) -> Plan:
    return read_import(DATA / name, agent=A, **options)  # type: ignore[arg-type]


def test_every_fixture_is_sniffed_as_its_format() -> None:
    expected = {
        "qq.txt": "qq",
        "wechat.csv": "wechat-csv",
        "wechat.html": "wechat-html",
        "mem0.json": "mem0",
        "memorybank.json": "memorybank",
        "messages.csv": "csv",
    }
    for name, format in expected.items():
        assert sniff((DATA / name).read_text(encoding="utf-8-sig"), name) == format, name


def test_a_qq_message_keeps_the_line_separators_it_holds(tmp_path: Path) -> None:
    """The reader split lines where str.splitlines does, so a message's U+2028 (or U+2029, U+0085) came back as
    a newline, and a separator before text shaped like a header started a message of a speaker never there."""
    said = "周六见\u20282024-05-01 20:16:01 冒名(99999)\u2029带伞\x85好"
    text = (DATA / "qq.txt").read_text(encoding="utf-8").replace("周六去爬山吗？我想去香山", said, 1)
    (tmp_path / "qq.txt").write_text(text, encoding="utf-8")
    group = read_import(tmp_path / "qq.txt", agent=A, selves=["90000"]).batches[0]
    assert group.messages[0]["text"] == said
    assert [m["speaker"] for m in group.messages] == ["10001", "10002", "10001", A]


def test_qq_speakers_become_persons_and_the_group_a_space() -> None:
    plan = plan_of("qq.txt", selves=["90000"])
    group, private = plan.batches
    assert (group.person, group.space) == (None, "周末爬山群")
    assert [m["speaker"] for m in group.messages] == ["10001", "10002", "10001", A]
    assert [m["role"] for m in group.messages] == ["user", "user", "user", "assistant"]
    assert group.messages[1]["text"] == "好呀，我带相机\n顺便拍日出"
    assert group.messages[0]["time"] == datetime(2024, 5, 1, 20, 15, 32)
    assert (private.person, private.space) == ("10002", None)
    assert [m["role"] for m in private.messages] == ["user", "assistant"]
    persons = {person.id: person for _, person in plan.persons}
    assert set(persons) == {"10001", "10002"}
    assert persons["10001"].name == "小满同学" and persons["10001"].aliases == ["小满", "小满同学"]
    assert persons["10001"].platform_ids == {"qq": "10001"}


def test_wechat_csv_keeps_text_and_the_owner_speaks_as_the_agent() -> None:
    plan = plan_of("wechat.csv")
    (chat,) = plan.batches
    assert (chat.person, chat.space) == ("wxid_lin", None)
    assert [m["text"] for m in chat.messages] == ["我家的猫叫团子", "团子几岁啦？", "三岁了，特别能吃, 一天吃四顿"]
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "user"]
    assert chat.messages[2]["time"] == datetime(2024, 5, 2, 8, 3)
    ((_, person),) = plan.persons
    assert person.id == "wxid_lin" and person.name == "小林" and person.platform_ids == {"wechat": "wxid_lin"}
    assert any("1 rows that are not text" in note for note in plan.notes)


def test_wechat_html_is_a_group_with_times_in_the_configured_zone() -> None:
    plan = plan_of("wechat.html")
    (chat,) = plan.batches
    assert (chat.person, chat.space) == (None, "wechat")
    assert [m["speaker"] for m in chat.messages] == ["老周", "Mia", A]
    assert chat.messages[1]["text"] == "好，我已经读到一半了\n很好哭"
    assert chat.messages[0]["time"] == datetime(2024, 5, 2, 20, 0)  # 12:00 UTC is 20:00 in Shanghai
    assert sorted(person.id for _, person in plan.persons) == ["Mia", "老周"]


def test_mem0_memories_become_notes_of_their_user() -> None:
    plan = plan_of("mem0.json")
    assert [person.id for _, person in plan.persons] == ["木木"]
    first, second = (line for _, line in plan.memories)
    assert (first.person, first.kind, first.text) == ("木木", MemoryKind.NOTE, "喜欢莫兰迪色系")
    assert first.time == datetime(2024, 5, 1, 1, 15, 0, 123456)  # 10:15 at -07:00, in Shanghai
    assert first.id == "mem0:3c4f9a2e-0001-4d1b-9a33-6f1e0c2d7b01" and first.keywords == ["preferences"]
    assert second.data["mem0"]["metadata"] == {"source": "chat"}


_TWO_FRIENDS = """消息分组:我的好友
================================================================
消息对象:阿青
================================================================

2024-05-02 09:00:00 阿青(10002)
我下周三要考驾照

================================================================
消息对象:小满
================================================================

2024-05-03 21:00:00 小满(10001)
我的银行卡密码是紫罗兰暗号，千万别告诉阿青
"""


@pytest.mark.parametrize("flag", [{"person": "10002"}, {"space": "g1"}])
def test_one_name_for_a_file_of_several_chats_is_refused(tmp_path: Path, flag: dict[str, str]) -> None:
    """--person put every friend's private chat under that one person, as their words; --space put them in the
    group: 小满's secret reached 阿青's recall (helper)."""
    path = tmp_path / "friends.txt"
    path.write_text(_TWO_FRIENDS, encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"holds 2 chats \('阿青', '小满'\); --person and --space"):
        read_import(path, agent=A, **flag)  # type: ignore[arg-type]
    plan = read_import(path, agent=A)  # without them each chat is its friend's
    assert [(chat.person, chat.space) for chat in plan.batches] == [("10002", None), ("10001", None)]
    one = tmp_path / "one.txt"  # a file of one chat takes either
    one.write_text(
        _TWO_FRIENDS.split("================================================================\n消息对象:小满")[0]
    )
    assert [chat.person for chat in read_import(one, agent=A, person="木木").batches] == ["木木"]
    assert [chat.space for chat in read_import(one, agent=A, space="g1").batches] == ["g1"]


@pytest.mark.parametrize("flag", [{"person": "木木"}, {"space": "g1"}])
def test_one_name_for_a_mem0_export_of_several_users_is_refused(tmp_path: Path, flag: dict[str, str]) -> None:
    """--person filed every user's memories under that person (helper)."""
    records = [
        {"id": "1", "memory": "喜欢莫兰迪色系", "user_id": "木木"},
        {"id": "2", "memory": "密码", "user_id": "阿哲"},
    ]
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"results": records}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"memories of 2 users \('木木', '阿哲'\); --person and --space"):
        read_import(path, agent=A, **flag)  # type: ignore[arg-type]
    assert [line.person for _, line in read_import(path, agent=A).memories] == ["木木", "阿哲"]
    assert [line.person for _, line in plan_of("mem0.json", person="小木").memories] == ["小木", "小木"]  # one user


@pytest.mark.parametrize("flag", [{"person": "木木"}, {"space": "g1"}])
def test_one_name_for_a_mem0_export_of_a_user_and_no_user_is_refused(tmp_path: Path, flag: dict[str, str]) -> None:
    """--person filed the memories of no user_id under that person too, though the file names another user for
    the rest: whose they are it does not say, as a file of several users."""
    records = [
        {"id": "1", "memory": "喜欢莫兰迪色系", "user_id": "阿哲"},
        {"id": "2", "memory": "公司年会定在下周五"},
    ]
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"results": records}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"the user '阿哲' and 1 of no user_id.*--person and --space"):
        read_import(path, agent=A, **flag)  # type: ignore[arg-type]
    assert [line.person for _, line in read_import(path, agent=A).memories] == ["阿哲", None]
    path.write_text(json.dumps({"results": records[1:]}, ensure_ascii=False), encoding="utf-8")
    assert [line.person for _, line in read_import(path, agent=A, person="木木").memories] == ["木木"]  # no user


def test_memorybank_history_summaries_and_personalities() -> None:
    plan = plan_of("memorybank.json")
    (chat,) = plan.batches
    assert chat.person == "小七"
    assert [m["role"] for m in chat.messages] == ["user", "assistant"] * 3
    assert chat.messages[0]["time"] == datetime(2024, 5, 1, 0, 0)
    assert chat.messages[3]["time"] == datetime(2024, 5, 1, 0, 3)
    assert chat.messages[4]["time"] == datetime(2024, 5, 3, 0, 0)
    kinds = [line.data["summary_kind"] for _, line in plan.memories]
    assert kinds == ["daily", "daily", "daily_personality", "global", "global_personality"]
    assert all(line.kind is MemoryKind.SUMMARY and line.person == "小七" for _, line in plan.memories)


def test_huiyi_csv_reads_as_json_lines_would() -> None:
    plan = plan_of("messages.csv")
    private, group = plan.batches
    assert private.person == "木木" and [m["role"] for m in private.messages] == ["user", "assistant"]
    assert group.space == "g1" and group.messages[0]["text"] == "周末谁去看展, 我有两张票"


@pytest.mark.parametrize(
    ("header", "named"), [("text,text,person", "'text'"), ("person,text, person,space,space", "'person', 'space'")]
)
def test_a_csv_column_named_twice_is_refused_by_name(tmp_path: Path, header: str, named: str) -> None:
    """Two text columns kept the last one's cells and dropped the first's without a word."""
    path = tmp_path / "twice.csv"
    path.write_text(f"{header}\n" + ",".join(["木木"] * (header.count(",") + 1)) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=rf"twice.csv: the header names {named} more than once"):
        read_import(path, agent=A)


def test_a_csv_error_names_the_file_line_its_row_starts_on(tmp_path: Path) -> None:
    """Errors named the row (line 3 for the row on line 6): a quoted cell spans lines, a blank line is no row."""
    path = tmp_path / "chat.csv"
    rows = ["agent,person,text,time", "祈煜,木木,好,2024-05-01", "", '祈煜,木木,"两行', '的话",2024-05-01']
    path.write_text("\n".join([*rows, "祈煜,木木,好,yesterday", "祈煜,木木,好,2024-05-01"]) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"^line 6: time: cannot read 'yesterday'"):
        read_import(path, agent=A)
    path.write_text(
        "\r\n".join([*rows, "祈煜,木木,", "祈煜,木木,好,2024-05-01"]) + "\r\n", encoding="utf-8", newline=""
    )
    with pytest.raises(InvalidInput, match=r"^line 6: text: Field required"):
        read_import(path, agent=A)


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ('祈煜,木木,"引号没有收尾\n祈煜,木木,好', r"^line 3: not a CSV row .*unexpected end of data"),
        ("祈煜,木木,好,多出来的", r"^line 3: 4 cells, but the header names 3 columns"),
        ("祈煜,木木," + "好" * 200_000, r"^line 3: not a CSV row .*field limit"),
    ],
    ids=["open-quote", "more-cells", "huge-cell"],
)
def test_a_csv_row_that_is_no_csv_is_refused_by_its_line(tmp_path: Path, row: str, error: str) -> None:
    """A quote left open read the rest of the file as one message; a cell past the header was dropped
    without a word; a cell over the csv module's limit was a traceback."""
    path = tmp_path / "chat.csv"
    path.write_text(f"agent,person,text\n祈煜,木木,好\n{row}\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=error):
        read_import(path, agent=A)


def test_a_csv_of_bare_carriage_returns_reads_a_row_a_line(tmp_path: Path) -> None:
    """Old Mac line ends (\\r alone) were a traceback: a new-line character seen in an unquoted field."""
    path = tmp_path / "mac.csv"
    path.write_text(
        "agent,person,text,time\r祈煜,木木,好,2024-05-01\r祈煜,木木,不好,2024-05-01,\r", encoding="utf-8", newline=""
    )
    (chat,) = read_import(path, agent=A).batches
    assert [m["text"] for m in chat.messages] == ["好", "不好"]  # an empty cell past the header is nothing


def test_mem0_json_lines_keep_a_line_separator_inside_a_memory(tmp_path: Path) -> None:
    """Cut at U+2028 as ``str.splitlines`` cuts, mem0's JSON lines were no mem0 file."""
    texts = ["喜欢猫\u2028也喜欢狗", "住在杭州"]
    records = [{"id": f"m{n}", "memory": text, "user_id": "木木"} for n, text in enumerate(texts)]
    path = tmp_path / "mem0.jsonl"
    path.write_text("\n".join(json.dumps(record, ensure_ascii=False) for record in records), encoding="utf-8")
    assert [line.text for _, line in read_import(path, agent=A).memories] == texts


@pytest.mark.parametrize("cut", [120, 300, -3])
def test_a_json_file_cut_short_says_so(tmp_path: Path, cut: int) -> None:
    """A mem0 export cut short was read as JSON lines: "line 1: expecting property name … column 2"."""
    whole = (DATA / "mem0.json").read_text(encoding="utf-8")
    path = tmp_path / "cut.json"
    path.write_text(whole[:cut], encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"^cut.json ends before its JSON does \(cut short\?\): .* at line \d+$"):
        read_import(path, agent=A)
    lines = tmp_path / "lines.jsonl"  # JSON lines with a line cut short still name the line
    lines.write_text('{"type": "message", "person": "木木", "text": "好"}\n{"type": "mess', encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"^line 2: "):
        read_import(lines, agent=A)


def test_a_chat_export_needs_its_agent() -> None:
    with pytest.raises(InvalidInput, match="--agent"):
        read_import(DATA / "qq.txt")


def _memory(path: Path) -> AsyncMemory:
    return AsyncMemory(path, embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))


async def _import(path: Path, plan: Plan) -> tuple[list[tuple[str, str]], int]:
    async with _memory(path) as memory:
        await apply_plan(memory, plan)
        await memory.run_jobs()
        jobs = sorted((job.key, ",".join(job.payload["message_ids"])) for job in await memory.jobs())
        count = len(await memory.messages([m["id"] for b in plan.batches for m in b.messages], agent=A))
    return jobs, count


def test_an_interrupted_import_continues_without_duplicates(tmp_path: Path) -> None:
    plan = plan_of("qq.txt", selves=["90000"])
    whole, _ = asyncio.run(_import(tmp_path / "whole", plan))
    half = Plan(batches=plan.batches[:1], persons=plan.persons)  # stopped after the group chat
    asyncio.run(_import(tmp_path / "resumed", half))
    resumed, count = asyncio.run(_import(tmp_path / "resumed", plan))
    assert resumed == whole and count == 6


def test_an_import_extracts_as_live_chat_would(tmp_path: Path) -> None:
    plan = plan_of("qq.txt", selves=["90000"])
    imported, _ = asyncio.run(_import(tmp_path / "imported", plan))

    async def live() -> list[tuple[str, str]]:
        async with _memory(tmp_path / "live") as memory:
            for batch in plan.batches:
                for message in batch.messages:  # one message a call, as a bot sends them
                    await memory.add([message], agent=A, person=batch.person, space=batch.space)
            await memory.run_jobs()
            return sorted((job.key, ",".join(job.payload["message_ids"])) for job in await memory.jobs())

    assert asyncio.run(live()) == imported


def test_the_command_imports_each_fixture_into_its_scopes(tmp_path: Path) -> None:
    runner = CliRunner()
    store = tmp_path / "store"
    for name in ("qq.txt", "wechat.csv", "wechat.html", "mem0.json", "memorybank.json"):
        args = ["import", str(DATA / name), "--store", str(store), "--agent", A, "--self", "90000", "--no-extract"]
        result = runner.invoke(app, args, env={"HUIYI_EMBED__PROVIDER": "hash", "HUIYI_EMBED__DIM": "32"})
        assert result.exit_code == 0, result.output
    again = runner.invoke(
        app,
        ["import", str(DATA / "qq.txt"), "--store", str(store), "-a", A, "--self", "90000", "--no-extract"],
        env={"HUIYI_EMBED__PROVIDER": "hash", "HUIYI_EMBED__DIM": "32"},
    )
    assert "0 messages stored, 6 already there" in again.output

    async def look() -> None:
        async with _memory(store) as memory:
            person = await memory.get_person("10002", agent=A)
            assert person is not None and person.platform_ids == {"qq": "10002"}
            group = await memory.working_memory(agent=A, space="周末爬山群")
            assert [m.speaker for m in group][:2] == ["10001", "10002"] and group[0].scope.kind is ScopeKind.SPACE
            notes = await memory.memories(agent=A, person="木木")
            assert {item.text for item in notes} >= {"喜欢莫兰迪色系", "养了一只叫团子的猫"}
            summaries = await memory.memories(agent=A, person="小七", kinds=["summary"])
            assert len(summaries) == 5

    asyncio.run(look())


def test_an_absurd_memorybank_day_is_refused(tmp_path: Path) -> None:
    """``datetime.fromisoformat`` reads a run of ones as 1111-11-11: such a day is no date."""
    path = tmp_path / "memorybank.json"
    path.write_text(
        '{"小七": {"name": "小七", "history": {"' + "1" * 200 + '": [{"query": "在吗"}]}}}', encoding="utf-8"
    )
    with pytest.raises(InvalidInput, match="is not a date"):
        read_import(path, agent=A)


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
@pytest.mark.parametrize("kind", ["memory", "entity"])
def test_an_id_another_agent_holds_refuses_the_import_before_it_writes_anything(
    tmp_path: Path, backend: str, kind: str
) -> None:
    """Memory and entity ids are unique in a store: an import naming one another agent holds is refused
    whole, as one naming another scope's is, never after its messages were written."""
    line = {
        "type": kind,
        "agent": "A",
        "id": "shared-1",
        **({"kind": "note", "text": "A的笔记"} if kind == "memory" else {"name": "小白", "entity_type": "具体实体"}),
    }
    message = {"type": "message", "agent": "A", "person": "p", "id": "msg-1", "text": "你好"}
    text = "\n".join(json.dumps(one, ensure_ascii=False) for one in (message, line))

    async def run() -> None:
        store = STORE_FACTORIES[backend](tmp_path / "s")
        memory = AsyncMemory(tmp_path, store=store, embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))
        try:
            if kind == "memory":
                await memory.remember("B的笔记", agent="B", id="shared-1")
            else:
                await memory.put_entity(Entity(id="shared-1", scope=Scope.from_tag("B", "official"), name="小黑"))
            with pytest.raises(InvalidInput, match=r"'shared-1'.*nothing was imported"):
                await apply_plan(memory, read_text(text, "f.jsonl", None, None, None, []))
            assert await memory.messages(["msg-1"], agent="A") == []
        finally:
            await memory.close()

    asyncio.run(run())


def test_a_message_add_would_refuse_refuses_the_whole_file_by_its_id(tmp_path: Path) -> None:
    """The checks ran on ids and scopes only: the chats before a line with an empty text (or a time in
    year 9999) were stored when ``add`` met it."""
    lines = [
        {"agent": A, "person": "木木", "id": "p0", "text": "好的第0条", "time": "2024-05-01T10:00:00+08:00"},
        {"agent": A, "person": "木木", "id": "p1", "text": "好的第1条", "time": "2024-05-01T10:01:00+08:00"},
        {"agent": A, "person": "阿青", "id": "bad", "text": "", "time": "2024-05-02T10:00:00+08:00"},
    ]
    for broken, reason in (({"text": ""}, "empty"), ({"text": "ok", "time": "9999-05-02T10:00:00"}, "outside")):
        text = "\n".join(json.dumps({**line, **(broken if line["id"] == "bad" else {})}) for line in lines)

        async def run(text: str = text, reason: str = reason) -> None:
            async with _memory(tmp_path / reason) as memory:
                with pytest.raises(
                    InvalidInput, match=rf"message 'bad' of person:阿青: .*{reason}.*nothing was imported"
                ):
                    await apply_plan(memory, read_text(text, "f.jsonl", None, None, None, []))
                assert await memory.messages(["p0", "p1"], agent=A) == []

        asyncio.run(run())


@pytest.mark.parametrize(("suffix", "line"), [("csv", 5), ("jsonl", 7)])
def test_a_message_add_would_refuse_is_named_by_its_line_too(tmp_path: Path, suffix: str, line: int) -> None:
    """A line without an id was named by the id made for it (chat:a79331c5…), found in no line of the file."""
    said = [("好", "2024-05-01"), ("两行\n的话", "2024-05-01"), ("   ", "2024-05-01")]
    if suffix == "csv":
        rows = [f'{A},木木,"{text}",{time}' for text, time in said]  # the second row takes lines 3 and 4
        text = "agent,person,text,time\n" + "\n".join(rows) + "\n"
    else:
        records = [{"agent": A, "person": "木木", "text": text, "time": time} for text, time in said]
        text = "\n\n\n".join(json.dumps(record, ensure_ascii=False) for record in records) + "\n"  # blank lines
    path = tmp_path / f"chat.{suffix}"
    path.write_text(text, encoding="utf-8")

    async def run() -> None:
        async with _memory(tmp_path / "st") as memory:
            with pytest.raises(InvalidInput, match=rf"^line {line}: message 'chat:\w+' of person:木木: .*empty"):
                await apply_plan(memory, read_import(path))
            assert (
                await memory.messages([m["id"] for b in read_import(path).batches for m in b.messages], agent=A) == []
            )

    asyncio.run(run())


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "bad.txt",
            "消息记录（此消息记录为文本格式）\n\n消息对象:小满\n2024-02-30 20:15:32 小满(10001)\n在吗\n",
        ),
        ("mb.json", '{"小七": {"name": "小七", "history": [["在吗"]]}}'),
        ("mb2.json", '{"小七": {"name": "小七", "history": {"2024-05-01": ["在吗"]}}}'),
    ],
)
def test_a_broken_record_of_a_chat_export_is_refused_not_raised(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"not a \w+ file this huiyi can read"):
        read_import(path, agent=A)


@pytest.mark.parametrize("format", ["auto", "qq"])
@pytest.mark.parametrize(
    "text", ['{"text": "hi", "n": ' + "1" * 5000 + "}\n", "[" * 100_000 + "]" * 100_000], ids=["digits", "deep"]
)
def test_json_no_reader_takes_is_refused_not_raised(tmp_path: Path, text: str, format: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput):
        read_import(path, agent=A, format=format)


def test_a_file_named_as_another_format_is_refused_not_imported_as_nothing() -> None:
    with pytest.raises(InvalidInput, match="found nothing to import as qq; it reads as csv"):
        read_import(DATA / "messages.csv", agent=A, format="qq")


def test_an_export_with_a_merge_imports_again_as_a_no_op(tmp_path: Path) -> None:
    """Run again, the import put the merged entity back without the names its merge gave it, then replayed
    the merge, which was refused: the import failed halfway and could never be finished."""

    async def source() -> None:
        async with _memory(tmp_path / "source") as memory:
            cat = await memory.create_entity("团子", agent=A, person="木木", aliases=["小团子"])
            other = await memory.create_entity("团团", agent=A, person="木木", aliases=["胖团"])
            await memory.merge_entities(other.id, cat.id, agent=A, reason="同一只猫", at=datetime(2024, 4, 1, 12))

    asyncio.run(source())
    exported = tmp_path / "export.jsonl"
    args = ["export", "-a", A, "--person", "木木", "--store", str(tmp_path / "source"), "-o", str(exported)]
    result = CliRunner().invoke(app, args, env={"HUIYI_EMBED__PROVIDER": "hash", "HUIYI_EMBED__DIM": "32"})
    assert result.exit_code == 0, result.output

    async def entities(memory: AsyncMemory) -> list[tuple[str, tuple[str, ...], bool]]:
        found = await memory.entities(agent=A, person="木木")
        return sorted((e.name, tuple(e.aliases), e.merged_into is not None) for e in found)

    async def target() -> None:
        async with _memory(tmp_path / "target") as memory:
            await apply_plan(memory, read_import(exported))
            first = await entities(memory)
            again = await apply_plan(memory, read_import(exported))
            assert await entities(memory) == first and (again.entities, again.merges) == (0, 0)
        assert first == [("团子", ("小团子", "团团", "胖团"), False)]  # the merged 团团 is listed no more

    asyncio.run(target())


def test_a_csv_column_with_no_name_is_named_as_empty(tmp_path: Path) -> None:
    """A header's trailing comma named a column '' that the error printed as nothing: "columns ; the…"."""
    path = tmp_path / "trailing.csv"
    path.write_text("person,text,\n木木,你好,\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"unknown CSV columns ''; the columns are"):
        read_import(path, agent=A)
