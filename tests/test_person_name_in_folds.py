"""A person record's ``name`` names its speaker in what a fold extracts, as its aliases do: a bot that
keys members by QQ number and records 群名片 as the name got facts and events of ``100001``, which the
chat model cannot tell apart, while the same name given as an alias made them 小林's. The aliases still
come first, so a rename that keeps the old 群名片 as an alias files the member's facts as before."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import Person
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 13, 20, 0)
LINES = [
    ("100001", "我是程序员，在杭州做后端"),
    ("100002", "我住在上海浦东"),
    ("100003", "哈哈哈"),
    ("100001", "[图片]"),
]


def test_a_person_records_name_is_the_speakers_name_in_facts_and_events(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(64), config=Config(recall={"reinforce": False})) as memory:
        memory.set_person(Person(id="100001", name="小林"), agent="bot")
        memory.set_person(Person(id="100002", name="阿杰"), agent="bot")
        memory.add(
            [
                {"id": f"m{i}", "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
                for i, (who, text) in enumerate(LINES)
            ],
            agent="bot",
            space="g",
        )
        memory.flush(agent="bot", space="g", wait=True)
        facts = sorted(f.text for f in memory.memories(agent="bot", space="g", kinds=["fact"]))
        events = [e.text for e in memory.memories(agent="bot", space="g", kinds=["event"])]
    assert facts == ["小林是程序员", "阿杰住在上海浦东"]
    assert events and all("100001" not in text and "100002" not in text for text in events)
    assert any("小林说：我是程序员" in text for text in events)


def test_the_askers_current_home_is_found_under_the_name_it_is_filed_by(tmp_path: Path) -> None:
    lines = ["我住在上海", "今天天气不错", "我搬到杭州了", "晚安", *(f"随便聊聊第{i}句" for i in range(30))]
    config = Config(recall={"reinforce": False})
    clock = lambda: T0 + timedelta(days=30)  # noqa: E731
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=clock) as memory:
        memory.set_person(Person(id="u42", name="木木"), agent="bot")
        memory.add(
            [{"id": f"m{i}", "text": text, "time": T0 + timedelta(hours=i)} for i, text in enumerate(lines)],
            agent="bot",
            person="u42",
        )
        memory.flush(agent="bot", person="u42", wait=True)
        found = memory.recall("我现在住哪", agent="bot", person="u42", limit=3)
    assert found.hits[0].text == "木木搬到杭州住"


def test_a_rename_that_keeps_the_old_name_as_an_alias_files_facts_as_before(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(64), config=Config(recall={"reinforce": False})) as memory:
        memory.set_person(Person(id="100001", name="小林"), agent="bot")
        memory.add({"id": "m0", "speaker": "100001", "text": "我是程序员", "time": T0}, agent="bot", space="g")
        memory.add({"id": "m1", "speaker": "100002", "text": "哈哈", "time": T0}, agent="bot", space="g")
        memory.add({"id": "m2", "speaker": "100003", "text": "早", "time": T0}, agent="bot", space="g")
        memory.flush(agent="bot", space="g", wait=True)
        memory.set_person(Person(id="100001", name="林总今天不加班", aliases=["小林"]), agent="bot")
        later = T0 + timedelta(hours=1)
        memory.add({"id": "m3", "speaker": "100001", "text": "我住在杭州", "time": later}, agent="bot", space="g")
        memory.flush(agent="bot", space="g", wait=True)
        facts = sorted(f.text for f in memory.memories(agent="bot", space="g", kinds=["fact"]))
    assert facts == ["小林住在杭州", "小林是程序员"]
