"""Consolidation and summaries through the public API: several days of a group chat, worked end to end."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from huiyi import Memory, Person
from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.flows.extract import EventDraft, Extraction, FactDraft, Fold
from huiyi.memory import AsyncMemory
from huiyi.model import FactKind, MemoryKind, Scope
from huiyi.providers.embed import Embedder

DAY1 = datetime(2024, 9, 2, 20, 0)
NOW = datetime(2024, 9, 6, 23, 0)


class GroupFacts:
    """Scripted extraction of a week in group g1: preferences change and 霓霓 turns out to be 苏霓."""

    async def extract(self, fold: Fold) -> Extraction:
        first = fold.messages[0]
        text = " ".join(m.text for m in fold.messages)
        facts = []
        if "喜欢咖啡" in text:
            facts.append(FactDraft("苏霓", "喜欢", "咖啡", "苏霓喜欢喝咖啡", [first.id], kind=FactKind.PREFERENCE))
        if "不喜欢咖啡" in text:
            facts.append(
                FactDraft("霓霓", "不喜欢", "咖啡", "霓霓不喜欢喝咖啡了", [first.id], kind=FactKind.PREFERENCE)
            )
        for fact in facts:
            fact.time = first.time
        return Extraction(
            events=[EventDraft(text=f"群里聊到：{first.text}", sources=[first.id], time=first.time)],
            facts=facts,
        )


def week(memory: Memory) -> None:
    lines = [
        (DAY1, "苏霓", "我超喜欢咖啡，每天两杯"),
        (DAY1 + timedelta(days=2), "许仙", "霓霓最近怎么样"),
        (DAY1 + timedelta(days=3), "苏霓", "我现在不喜欢咖啡了，改喝茶"),
    ]
    for when, speaker, text in lines:
        memory.add([{"text": text, "speaker": speaker, "time": when}], agent="bot", space="g1")
        memory.flush(agent="bot", space="g1")


def test_a_week_of_group_chat_consolidates_and_summarises(tmp_path: Path, e5: Embedder) -> None:
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=e5, config=config, extractor=GroupFacts(), clock=lambda: NOW) as memory:
        memory.set_person(Person(id="苏霓", name="苏霓", aliases=["霓霓"]), agent="bot")
        week(memory)
        dry = memory.consolidate(agent="bot", space="g1", dry_run=True)
        assert memory.merges(agent="bot") == []  # a dry run writes nothing
        report = memory.consolidate(agent="bot", space="g1")
        assert report.counts() == dry.counts()
        (merge,) = memory.merges(agent="bot")
        scope = Scope.of_space("bot", "g1")
        names = {e.name: e for e in memory.store.list_entities([scope])}
        assert "苏霓" in names and "霓霓" in names["苏霓"].aliases and "霓霓" not in names
        facts = {f.text: f for f in memory.memories(agent="bot", space="g1", kinds=[MemoryKind.FACT])}
        assert facts["苏霓喜欢喝咖啡"].valid_to == DAY1 + timedelta(days=3)  # closed, not deleted
        assert facts["霓霓不喜欢喝咖啡了"].valid_to is None
        undone = memory.undo_merge(merge.id, agent="bot")
        assert undone.undone and {e.name for e in memory.store.list_entities([scope])} >= {"苏霓", "霓霓"}

        summaries = memory.summarize(date(2024, 9, 2), agent="bot", space="g1")
        kinds = {item.data["summary_kind"] for item in summaries}
        assert {"daily", "diary"} <= kinds
        assert all(item.kind is MemoryKind.SUMMARY and item.sources for item in summaries)
        found = memory.recall("九月二日群里聊了什么", agent="bot", space="g1", kinds=[MemoryKind.SUMMARY])
        assert found.hits


def test_context_feedback_and_consolidate_over_http(tmp_path: Path, e5: Embedder) -> None:
    memory = AsyncMemory(tmp_path, embedder=e5, config=Config(worker={"enabled": False}))
    with TestClient(create_app(memory, close_on_shutdown=True)) as client:
        body = {"agent": "祈煜", "person": "木木", "messages": [{"text": "我家的猫叫团子"}]}
        assert client.post("/v1/messages", json=body).status_code == 200
        context = client.post(
            "/context", json={"agent": "祈煜", "person": "木木", "message": "我的猫叫什么", "last_reply": ""}
        ).json()
        assert context["sections"]["working"].startswith("对话上下文：")
        assert context["recalled"] and "total" in context["timings_ms"]
        memory_id = context["recalled"][0]
        judged = client.post("/v1/feedback", json={"agent": "祈煜", "memory_id": memory_id, "value": 1})
        assert judged.status_code == 200 and judged.json()["feedback"] == 1.0
        bad = client.post("/v1/feedback", json={"agent": "祈煜", "memory_id": memory_id, "value": 3})
        assert bad.status_code == 422
        report = client.post("/v1/consolidate", json={"agent": "祈煜", "person": "木木", "dry_run": True})
        assert report.status_code == 200 and report.json()["dry_run"] is True


def test_maintain_catches_up_on_every_day_with_messages(tmp_path: Path) -> None:
    """Nine days of chat summarised two days later: all nine daily summaries, not only the last week's."""
    from huiyi.providers.embed import HashEmbedder

    start, now = datetime(2024, 11, 10, 20, 0), datetime(2024, 11, 20, 9, 0)
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, embedder=HashEmbedder(16), config=config, clock=lambda: now) as memory:
        for day in range(9):
            for turn in range(3):
                when = start + timedelta(days=day, minutes=2 * turn)
                memory.add([{"text": f"第{day}天，今天去公园散步看到了猫", "time": when}], agent="祈煜", person="木木")
        memory.run_jobs()
        _, summaries = memory.maintain()
    days = sorted({s.data.get("period") for s in summaries if s.data.get("summary_kind") == "daily"})
    assert days == [f"2024-11-{d}" for d in range(10, 19)]
