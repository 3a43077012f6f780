"""``huiyi import / export / inspect / recall / tools`` through typer's CliRunner, on hash-vector stores."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.cli import app
from huiyi.faces.cli.data import _job_parts
from huiyi.faces.tools import TOOL_NAMES
from huiyi.formats.jobcount import JobTally
from huiyi.memory import AsyncMemory, Memory
from huiyi.model import MemoryKind, Person

runner = CliRunner()


@pytest.fixture(autouse=True)
def _hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")  # meaning does not matter here; speed does
    monkeypatch.setenv("HUIYI_WORKER__ENABLED", "false")
    monkeypatch.setenv("COLUMNS", "160")


def huiyi(*args: str | Path) -> Result:
    result = runner.invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def open_store(path: Path) -> Memory:
    return Memory(path, config=Config.load())


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


PROBES = {
    "name": "example",
    "cases": [
        {
            "id": case,
            "agent": "AI",
            "language": "zh",
            "messages": [
                {
                    "id": "m1",
                    "space": "s1",
                    "speaker": "木木",
                    "role": "user",
                    "text": f"{case}: 我下周三要考试",
                    "time": "2023-04-27T20:00:00",
                },
                {
                    "id": "m2",
                    "space": "s1",
                    "speaker": "AI",
                    "role": "assistant",
                    "text": "加油！",
                    "time": "2023-04-27T20:01:00",
                },
                {
                    "id": "m3",
                    "space": "g",
                    "speaker": "阿哲",
                    "role": "user",
                    "text": "今晚谁一起打游戏",
                    "time": "2023-04-27T21:00:00",
                },
                {
                    "id": "m4",
                    "space": "g",
                    "speaker": "小雨",
                    "role": "user",
                    "text": "我！",
                    "time": "2023-04-27T21:01:00",
                },
            ],
            "memories": [
                {
                    "id": "x1",
                    "person": "木木",
                    "text": f"{case}: 木木喜欢莫兰迪色系",
                    "time": "2023-04-01T00:00:00",
                    "kind": "fact",
                }
            ],
            "probes": [
                {
                    "id": "q1",
                    "query": "我什么时候考试？",
                    "context": [],
                    "person": "木木",
                    "time": "2023-05-07T12:00:00",
                    "gold": ["m1"],
                    "group": "single",
                }
            ],
        }
        for case in ("c1", "c2")
    ],
}


def test_every_command_has_help() -> None:
    for command in ("import", "export", "inspect", "recall", "tools", "mcp"):
        result = huiyi(command, "--help")
        assert "Usage" in result.output and "--help" in result.output, command


def test_import_a_probe_file(tmp_path: Path) -> None:
    probe_file = tmp_path / "probes.json"
    probe_file.write_text(json.dumps(PROBES, ensure_ascii=False), encoding="utf-8")
    result = huiyi("import", probe_file, "--store", tmp_path / "st")
    assert "8 messages stored, 0 already there, 2 memories" in result.stdout
    assert "prefixed with its case id" in result.stderr and "2 probes" in result.stderr
    with open_store(tmp_path / "st") as memory:
        found = memory.messages(["c1:m1", "c2:m1", "c1:m3"], agent="AI")
        assert {m.id: (m.space, m.scope.tag) for m in found} == {
            "c1:m1": ("person:木木", "person:木木"),  # one user speaker: a private chat
            "c2:m1": ("person:木木", "person:木木"),
            "c1:m3": ("space:g", "space:g"),  # two: a group
        }
        facts = memory.memories(agent="AI", person="木木", kinds=[MemoryKind.FACT])
        assert sorted((f.text, tuple(f.sources)) for f in facts) == [
            ("c1: 木木喜欢莫兰迪色系", ("c1:x1",)),
            ("c2: 木木喜欢莫兰迪色系", ("c2:x1",)),
        ]
    one = huiyi("import", probe_file, "--store", tmp_path / "one", "--case", "c2")
    assert "4 messages stored" in one.stdout and "prefixed" not in one.stderr  # one case: ids as they are


def test_import_json_lines_of_messages(tmp_path: Path) -> None:
    lines = write_lines(
        tmp_path / "chat.jsonl",
        [
            {
                "agent": "祈煜",
                "person": "木木",
                "speaker": "木木",
                "role": "user",
                "text": "我养了一只猫叫团子",
                "time": "2025-11-01T20:00:00",
                "id": "a1",
            },
            {
                "agent": "祈煜",
                "person": "木木",
                "speaker": "祈煜",
                "role": "assistant",
                "text": "团子好可爱",
                "time": "2025-11-01T20:01:00",
                "id": "a2",
            },
            {
                "agent": "祈煜",
                "space": "g1",
                "speaker": "阿哲",
                "role": "user",
                "text": "周末去爬山吗",
                "time": "2025-11-02T09:00:00",
                "id": "g1",
            },
            {"text": "明天见", "id": "a3", "time": "2025-11-01T20:02:00"},  # agent and person from the options
        ],
    )
    store = tmp_path / "st"
    first = huiyi("import", lines, "-s", store, "--agent", "祈煜", "--person", "木木")
    assert "4 messages stored, 0 already there" in first.stdout
    again = huiyi("import", lines, "-s", store, "--agent", "祈煜", "--person", "木木")
    assert "0 messages stored, 4 already there" in again.stdout  # idempotent by id
    with open_store(store) as memory:
        texts = {m.id: (m.speaker, m.scope.tag, m.time) for m in memory.messages(["a1", "a3", "g1"], agent="祈煜")}
    assert texts == {
        "a1": ("木木", "person:木木", datetime(2025, 11, 1, 20, 0)),
        "a3": ("木木", "person:木木", datetime(2025, 11, 1, 20, 2)),
        "g1": ("阿哲", "space:g1", datetime(2025, 11, 2, 9, 0)),
    }

    # a bad line anywhere: nothing of the file is written, and the error names the line
    bad = write_lines(
        tmp_path / "bad.jsonl", [{"agent": "祈煜", "person": "木木", "text": "好", "id": "b1"}, {"text": 3}]
    )
    result = runner.invoke(app, ["import", str(bad), "-s", str(store)])
    assert isinstance(result.exception, InvalidInput) and "line 2" in result.exception.message
    orphan = write_lines(tmp_path / "orphan.jsonl", [{"text": "谁说的？"}])
    result = runner.invoke(app, ["import", str(orphan), "-s", str(store), "--agent", "祈煜"])
    assert isinstance(result.exception, InvalidInput) and "no person or space" in result.exception.message
    with open_store(store) as memory:
        assert memory.messages(["b1"], agent="祈煜") == []


def test_lines_without_ids_are_imported_once_however_often_the_file_is(tmp_path: Path) -> None:
    """An import stopped half-way and run again added every line a second time (each got a random id)."""
    said = [
        {"text": "早", "time": "2025-11-01T08:00:00"},
        {"text": "早", "time": "2025-11-01T08:00:00"},
        {"text": "吃了吗"},
    ]
    lines = write_lines(tmp_path / "day1.jsonl", said)
    (tmp_path / "day1.csv").write_text("text,person\n早,木木\n好,木木\n", encoding="utf-8")
    store = tmp_path / "st"
    for path in (lines, tmp_path / "day1.csv"):
        first = huiyi("import", path, "-s", store, "--agent", "祈煜", "--person", "木木", "--no-extract")
        again = huiyi("import", path, "-s", store, "--agent", "祈煜", "--person", "木木", "--no-extract")
        stored = 3 if path == lines else 2
        assert f"{stored} messages stored, 0 already there" in first.stdout  # two alike lines are two messages
        assert f"0 messages stored, {stored} already there" in again.stdout
    other = write_lines(tmp_path / "day2.jsonl", said)  # another file's same lines are other messages
    assert "3 messages stored" in huiyi("import", other, "-s", store, "--agent", "祈煜", "--person", "木木").stdout


def _comparable(path: Path) -> list[dict[str, Any]]:
    """An export's lines without what a store makes anew (memory ids, creation times)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [
        {k: v for k, v in line.items() if not (line["type"] == "memory" and k in ("id", "created_at"))}
        for line in lines
    ]


def test_export_then_import_gives_the_same_memories(tmp_path: Path) -> None:
    with open_store(tmp_path / "a") as memory:
        memory.set_person(Person(id="木木", name="林木木", aliases=["木木", "小木"]), agent="祈煜")
        memory.add(
            [
                {"text": "我下周三要考驾照", "id": "k1", "time": datetime(2025, 11, 1, 20, 0)},
                {"text": "加油，你可以的", "role": "assistant", "id": "k2", "time": datetime(2025, 11, 1, 20, 1)},
                {"text": "考完想去海边", "id": "k3", "time": datetime(2025, 11, 1, 20, 2)},
            ],
            agent="祈煜",
            person="木木",
        )
        memory.remember(
            "木木下周三考驾照",
            agent="祈煜",
            person="木木",
            kind=MemoryKind.EVENT,
            time=datetime(2025, 11, 5, 9, 0),
            importance=0.8,
            keywords=["驾照"],
            sources=["k1"],
            data={"subject": "木木", "predicate": "考"},
        )
        memory.remember("木木的猫叫团子", agent="祈煜", person="木木", kind=MemoryKind.FACT)
        memory.remember("祈煜是一名画家", agent="祈煜")  # official: another scope, not in this export
        memory.add(["我的狗叫豆豆"], agent="祈煜", person="阿哲")  # another person: not in it either
        before = sorted(
            (m.kind, m.text, m.time, tuple(m.sources)) for m in memory.memories(agent="祈煜", person="木木")
        )

    exported = tmp_path / "muumuu.jsonl"
    result = huiyi("export", "--agent", "祈煜", "--person", "木木", "-s", tmp_path / "a", "-o", exported)
    assert "exported 11 lines" in result.stderr
    records = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    # chunks are rebuilt from the messages: their lines carry only their state
    assert [r["type"] for r in records] == ["export", "person", *["message"] * 3, "working", *["memory"] * 5]
    assert records[5]["first"] == "k1"  # nothing extracted yet: all three are working memory
    assert "豆豆" not in exported.read_text(encoding="utf-8") and "画家" not in exported.read_text(encoding="utf-8")

    imported = huiyi("import", exported, "-s", tmp_path / "b")
    assert "3 messages stored, 0 already there, 2 memories, 1 person," in imported.stdout
    with open_store(tmp_path / "b") as memory:
        after = sorted((m.kind, m.text, m.time, tuple(m.sources)) for m in memory.memories(agent="祈煜", person="木木"))
        assert memory.get_person("木木", agent="祈煜") == Person(id="木木", name="林木木", aliases=["木木", "小木"])
        kept_ids = {m.id for m in memory.memories(agent="祈煜", person="木木") if m.kind is not MemoryKind.CHUNK}
        # extracted history came in as history, working memory as working memory: nothing was due to fold
        assert memory.jobs(agent="祈煜") == []
        assert [m.id for m in memory.working_memory(agent="祈煜", person="木木")] == ["k1", "k2", "k3"]
    assert after == before  # chunks included: rebuilt from the same messages
    assert kept_ids == {r["id"] for r in records if r["type"] == "memory" and r["kind"] != "chunk"}
    # imported again: nothing is stored twice, and the count says so (it said "2 memories" and "1 person"
    # again; helper)
    again_out = huiyi("import", exported, "-s", tmp_path / "b").stdout
    assert "0 messages stored, 3 already there, 0 memories," in again_out
    assert "person" not in again_out

    stdout = huiyi("export", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "b").stdout  # to stdout this time
    again = tmp_path / "again.jsonl"
    again.write_text(stdout, encoding="utf-8")
    assert _comparable(again) == _comparable(exported)


def test_inspect_shows_a_table_a_page_at_a_time(tmp_path: Path) -> None:
    chat = [
        {"text": f"第{i}条：今天画了第{i}幅画", "id": f"p{i}", "time": f"2025-11-01T20:{i:02d}:00"} for i in range(25)
    ]
    lines = write_lines(tmp_path / "chat.jsonl", chat)
    huiyi("import", lines, "-s", tmp_path / "st", "-a", "祈煜", "-p", "木木", "--no-extract")
    with open_store(tmp_path / "st") as memory:
        memory.remember("木木喜欢莫兰迪色系", agent="祈煜", person="木木", kind=MemoryKind.FACT)
    first = huiyi("inspect", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "st", "-n", "10").stdout
    assert "祈煜 · person:木木 · page 1 (rows 1–10)" in first and "more: --page 2" in first
    assert "第24条" in first and "第0条" not in first  # newest first
    # 80 columns: each memory's text under its row, not squeezed out of a table
    args = ["inspect", "-a", "祈煜", "-p", "木木", "-s", str(tmp_path / "st")]
    narrow = runner.invoke(app, args, env={"COLUMNS": "80"}).stdout
    assert "seen 0\n   木木喜欢莫兰迪色系" in narrow and "今天画了第24幅画" in narrow
    wide = runner.invoke(app, args, env={"COLUMNS": "160"}).stdout
    for column in ("id", "kind", "time", "imp", "str", "seen", "text", "今天画了第24幅画"):
        assert column in wide
    last = huiyi("inspect", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "st", "-n", "10", "--page", "3").stdout
    assert "rows 21–26" in last and "第0条" in last and "more:" not in last
    facts = huiyi("inspect", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "st", "--kind", "fact").stdout
    assert "莫兰迪" in facts and "chunk" not in facts
    empty = huiyi("inspect", "-a", "祈煜", "-p", "没人", "-s", tmp_path / "st").stdout
    assert "no memories" in empty


def test_inspect_goes_on_by_cursor_past_a_forgotten_memory(tmp_path: Path) -> None:
    with open_store(tmp_path / "st") as memory:
        made = [memory.remember(f"设定{day}", agent="祈煜", time=datetime(2024, 5, day, 9)) for day in range(1, 6)]
    first = huiyi("inspect", "-a", "祈煜", "-s", tmp_path / "st", "-n", "2").stdout
    assert "设定5" in first and "设定4" in first and "more: --page 2 or --cursor " in first
    cursor = first.split("--cursor ")[1].split()[0]
    with open_store(tmp_path / "st") as memory:
        memory.delete(made[4].id, agent="祈煜")  # a memory already shown goes: a --page 2 would skip 设定3
    second = huiyi("inspect", "-a", "祈煜", "-s", tmp_path / "st", "-n", "2", "--cursor", cursor).stdout
    assert "after the cursor" in second and "设定3" in second and "设定2" in second and "设定4" not in second
    refused = runner.invoke(app, ["inspect", "-a", "祈煜", "-s", str(tmp_path / "st"), "--cursor", "x"])
    assert isinstance(refused.exception, InvalidInput) and "next_cursor" in str(refused.exception)


def test_recall_prints_route_scores_and_timings(tmp_path: Path) -> None:
    lines = write_lines(
        tmp_path / "chat.jsonl",
        [
            {"text": "我下周三要考驾照，好紧张", "id": "r1", "time": "2025-11-01T20:00:00"},
            {"text": "周末我想去海边看日出", "id": "r2", "time": "2025-11-01T20:05:00"},
        ],
    )
    huiyi("import", lines, "-s", tmp_path / "st", "-a", "祈煜", "-p", "木木")
    shown = huiyi("recall", "驾照哪天考", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "st", "-n", "2").stdout
    rows = shown.splitlines()
    assert rows[0] == "recall: 驾照哪天考"
    assert rows[1].startswith("  1. ") and "dense" in rows[1] and "keyword" in rows[1] and "考驾照" in rows[1]
    assert "2025-11-01 20:00" in rows[1] and "ms:" in rows[-1] and "total" in rows[-1]
    as_json = json.loads(
        huiyi("recall", "海边", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "st", "--json", "-n", "1").stdout
    )
    assert as_json["hits"][0]["sources"] == ["r2"] and set(as_json["hits"][0]["route_scores"]) >= {"dense", "keyword"}


def test_tools_prints_the_schemas() -> None:
    schemas = json.loads(huiyi("tools").stdout)
    assert tuple(tool["function"]["name"] for tool in schemas) == TOOL_NAMES
    assert "记忆的主体" in huiyi("tools").stdout  # Chinese kept readable
    only = json.loads(huiyi("tools", "--name", "search_memories").stdout)
    assert [tool["function"]["name"] for tool in only] == ["search_memories"]


def test_a_users_mistake_is_an_error_line_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of these printed a Python traceback (FileNotFoundError, IsADirectoryError, OverflowError, ValueError,
    ZoneInfoNotFoundError)."""
    import sys

    from huiyi.faces.cli.app import main

    def exit_of(*args: str | Path) -> int:
        monkeypatch.setattr(sys, "argv", ["huiyi", *map(str, args)])
        with pytest.raises(SystemExit) as stopped:  # any other exception is the traceback a user saw
            main()
        return int(stopped.value.code or 0)

    store = tmp_path / "st"
    huiyi("import", write_lines(tmp_path / "a.jsonl", [{"text": "早", "id": "m1"}]), "-s", store, "-a", "a", "-p", "b")
    for args in (
        ("export", "-a", "a", "-p", "b", "-s", store, "-o", tmp_path / "no" / "such" / "out.jsonl"),
        ("export", "-a", "a", "-p", "b", "-s", store, "-o", tmp_path),
        ("summarize", "2024-13-01", "-a", "a", "-p", "b", "-s", store),
        ("inspect", "-a", "a", "-s", store, "--page", "9" * 21),
        ("serve", "--port", "99999", "-s", store),
    ):
        assert exit_of(*args) == 2, args
    monkeypatch.setenv("HUIYI_TIMEZONE", "Mars/Olympus")
    assert exit_of("inspect", "-a", "a", "-s", store) == 2
    from huiyi.errors import ConfigError

    with pytest.raises(ConfigError, match="timezone: unknown timezone 'Mars/Olympus'"):
        Config.load()


def test_every_command_naming_an_agent_or_person_takes_the_short_options_too() -> None:
    import typer

    missing = []
    for name, command in typer.main.get_command(app).commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            short = {"agent": "-a", "person": "-p"}.get(param.name or "")
            if short and param.param_type_name == "option" and short not in param.opts:
                missing.append(f"{name} {param.opts[0]}")  # `huiyi chat -a 祈煜` was "No such option: -a"
    assert not missing


def test_export_then_import_keeps_when_a_plan_was_said(tmp_path: Path) -> None:
    # a plan fact is dated by the day it is about; an import that lost when it was said hid it from a
    # recall as of any moment before that day (a moved store, a replay)
    said = datetime(2025, 11, 1, 20, 0)
    with open_store(tmp_path / "a") as memory:
        memory.add([{"text": "我下周三要考驾照科目二", "id": "k1", "time": said}], agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        memory.run_jobs()
        plans = [m for m in memory.memories(agent="祈煜", person="木木") if m.said_at is not None]
    assert plans and all(plan.said_at == said for plan in plans)

    exported = tmp_path / "plans.jsonl"
    huiyi("export", "-a", "祈煜", "-p", "木木", "-s", tmp_path / "a", "-o", exported)
    huiyi("import", exported, "-s", tmp_path / "b")
    with open_store(tmp_path / "b") as memory:
        moved = {m.id: m.said_at for m in memory.memories(agent="祈煜", person="木木")}
    assert {plan.id: plan.said_at for plan in plans}.items() <= moved.items()


@pytest.mark.parametrize("person", ["bob\x07", "bob\u200b"])
def test_an_import_line_with_an_id_no_face_takes_is_refused_and_writes_nothing(tmp_path: Path, person: str) -> None:
    """A person id the file gives that is refused (a control or an invisible character) was a ValueError
    traceback out of the import's preflight, not the InvalidInput every other bad line gets."""
    store = tmp_path / "st"
    lines = [
        {"agent": "A", "person": "bob", "text": "第一条", "id": "x1"},
        {"agent": "A", "person": person, "text": "二"},
    ]
    result = runner.invoke(app, ["import", str(write_lines(tmp_path / "in.jsonl", lines)), "-s", str(store)])
    assert isinstance(result.exception, InvalidInput), result.exception
    assert "person id" in result.exception.message
    with open_store(store) as memory:
        assert memory.messages(["x1"], agent="A") == []


def test_a_refused_import_leaves_no_store_where_there_was_none(tmp_path: Path) -> None:
    """A file refused before any write still made the folder --store named, and an empty store in it."""
    lines = [{"agent": "A", "person": "bob", "text": "第一条"}, {"agent": "A", "person": "bob", "text": " "}]
    file = write_lines(tmp_path / "in.jsonl", lines)
    result = runner.invoke(app, ["import", str(file), "-s", str(tmp_path / "new" / "st")])
    assert isinstance(result.exception, InvalidInput), result.exception
    assert not (tmp_path / "new").exists()
    huiyi("import", write_lines(tmp_path / "ok.jsonl", lines[:1]), "-s", tmp_path / "kept")
    result = runner.invoke(app, ["import", str(file), "-s", str(tmp_path / "kept")])
    assert isinstance(result.exception, InvalidInput), result.exception
    assert (tmp_path / "kept" / "huiyi.sqlite").is_file()  # a store that was there stays


@pytest.mark.parametrize(
    "args",
    [
        ["inspect", "-a", "祈煜", "-p", "木木"],
        ["recall", "驾照", "-a", "祈煜", "-p", "木木"],
        ["export", "-a", "祈煜", "-p", "木木"],
        ["compact"],
        ["jobs", "list", "-a", "祈煜"],
        ["merges", "list", "-a", "祈煜"],
    ],
)
def test_a_command_on_a_mistyped_store_says_so_and_makes_none(tmp_path: Path, args: list[str]) -> None:
    # a typo of the folder read as an empty store: "no memories", "compacted", and a new store left there
    typo = tmp_path / "typo" / "stroe"
    result = runner.invoke(app, [*args, "--store", str(typo)])  # main() prints it as "error: …", exit 2
    assert isinstance(result.exception, InvalidInput) and "there is no huiyi store in" in str(result.exception)
    assert not (tmp_path / "typo").exists()


def test_a_worker_count_below_one_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["worker", "--count", "0", "--store", str(tmp_path / "s")])
    assert result.exit_code == 2 and not (tmp_path / "s").exists()


def _chat(path: Path, person: str) -> Path:
    """Twelve turns of a private chat with ``person``, a round a day: each day a scene, folded once past."""
    said = [
        {
            "person": person,
            "role": role,
            "text": f"{person}的第{n}句话",
            "time": f"2025-11-{n // 2 + 1:02d}T20:0{n % 2}",
        }
        for n, role in zip(range(12), ["user", "assistant"] * 6, strict=True)
    ]
    return write_lines(path, said)


def _folds(store: Path, person: str) -> dict[str, int]:
    with open_store(store) as memory:
        jobs = [job for job in memory.jobs(agent="祈煜", limit=1000) if job.payload["space"] == f"person:{person}"]
    return {state: sum(job.state.value == state for job in jobs) for state in ("pending", "done")}


def test_an_import_counts_the_extraction_jobs_the_background_worker_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import counted only the jobs its own drain ran: the background worker its adds woke had often
    run them all first, and it said "0 extraction jobs run"."""
    drain = AsyncMemory.run_jobs

    async def run_by_another(memory: AsyncMemory) -> int:
        await drain(memory)
        return 0  # as when the background worker took every job first

    monkeypatch.setattr(AsyncMemory, "run_jobs", run_by_another)
    store = tmp_path / "st"
    result = huiyi("import", _chat(tmp_path / "a.jsonl", "木木"), "-s", store, "-a", "祈煜")
    folds = _folds(store, "木木")
    assert folds["done"] > 0 and folds["pending"] == 0
    assert f"{folds['done']} extraction jobs run" in result.stdout


def test_an_import_counts_its_own_chats_extraction_jobs_and_those_it_finishes(tmp_path: Path) -> None:
    """--no-extract counted every pending job of the store, another file's too; an import run again runs
    the jobs its first run left queued, which it counts, and those of other chats, which it counts apart."""
    store, first, other = tmp_path / "st", _chat(tmp_path / "a.jsonl", "木木"), _chat(tmp_path / "b.jsonl", "阿青")
    left = huiyi("import", first, "-s", store, "-a", "祈煜", "--no-extract")
    mine = _folds(store, "木木")["pending"]
    assert mine > 0 and f"{mine} extraction jobs left queued" in left.stdout
    theirs = huiyi("import", other, "-s", store, "-a", "祈煜", "--no-extract")
    queued = _folds(store, "阿青")["pending"]
    assert queued > 0 and f"{queued} extraction jobs left queued" in theirs.stdout
    again = huiyi("import", first, "-s", store, "-a", "祈煜")
    ran = (
        f"0 messages stored, 12 already there, 0 memories, {mine} extraction jobs run, {queued} of other chats run too"
    )
    assert ran in again.stdout
    assert _folds(store, "木木") == {"pending": 0, "done": mine} and _folds(store, "阿青")["done"] == queued


def test_an_imports_jobs_not_done_are_counted_apart_with_where_to_look() -> None:
    parts = _job_parts(JobTally(done=3, failed=1, waiting=2, others_done=4), extract=True)
    assert parts == [
        "3 extraction jobs run",
        "4 of other chats run too",
        "1 failed",
        "2 not done yet (huiyi jobs list)",
    ]
    assert _job_parts(JobTally(waiting=2, others_done=4), extract=False) == ["2 extraction jobs left queued"]


def test_the_readmes_import_line_is_what_the_import_prints(tmp_path: Path) -> None:
    """The README quoted "4 extraction jobs run" long after the demo's import ran 8."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    quoted = re.search(r"^imported demo_zh\.jsonl into /tmp/curlstore: (.*)$", readme, re.MULTILINE)
    assert quoted is not None
    demo = Path(__file__).parents[1] / "src" / "huiyi" / "data" / "demo_zh.jsonl"
    store = tmp_path / "curlstore"
    result = huiyi("import", demo, "--agent", "祈煜", "--person", "木木", "--store", store)
    assert result.stdout == f"imported demo_zh.jsonl into {store}: {quoted.group(1)}\n"
