"""The demo store: the bundled conversation of 木木 with 祈煜, plus what a console should show on day one —
a group chat, an official memory, a person's aliases and platform id, entities with facts (one of them
superseded), linked events, an automatic merge that was wrong, an extraction job that failed, each
day's summaries (with their reports) and a person's core block.

Facts, entities and the merge are written directly (no LLM is needed), as extraction and consolidation
would have written them.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from huiyi.config import Config
from huiyi.flows.extract.fold import FOLD, plan_folds
from huiyi.memory import Memory
from huiyi.model import Entity, EntityType, LinkKind, MemoryKind, Person, Scope, ScopeKind

__all__ = ["AGENT", "PERSON", "demo_messages", "demo_queries", "seed_demo"]

AGENT = "祈煜"
PERSON = "木木"
GROUP = "读书会"


def demo_messages() -> list[dict[str, Any]]:
    lines = (resources.files("huiyi") / "data" / "demo_zh.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def demo_queries() -> list[dict[str, str]]:
    return list(json.loads((resources.files("huiyi") / "data" / "demo_queries.json").read_text(encoding="utf-8")))


def seed_demo(directory: Path, config: Config | None = None) -> None:
    """Write the demo store into ``directory`` (idempotent for messages; run it on a fresh directory)."""
    settings = config or Config.load(None, worker={"enabled": False})
    with Memory(directory, config=settings) as memory:
        said = memory.add(demo_messages(), agent=AGENT, person=PERSON)
        memory.add(["我最喜欢的颜色是红色", "我的狗叫豆豆"], agent=AGENT, person="阿哲")
        memory.set_person(
            Person(id=PERSON, name="苏木", aliases=["木木", "小木"], platform_ids={"qq": "10001"}), agent=AGENT
        )
        memory.set_person(Person(id="阿哲", name="阿哲", platform_ids={"wechat": "azhe_88"}), agent=AGENT)
        memory.add(
            [
                {"speaker": PERSON, "text": "这周读书会读《百年孤独》吧", "time": "2024-09-28T20:00:00"},
                {"speaker": "阿哲", "text": "好，我带咖啡，周六下午三点老地方", "time": "2024-09-28T20:01:00"},
                {"speaker": PERSON, "text": "祈煜你也来吗？", "time": "2024-09-28T20:02:00"},
            ],
            agent=AGENT,
            space=GROUP,
        )
        memory.remember("祈煜是一名住在上海的插画师，喜欢深夜画画。", agent=AGENT, importance=0.9, keywords=["插画师"])
        _graph(memory, {m.text: m.id for m in said})
        _failed_job(memory)
        # a summary of each day (rule-written, as without an LLM) and the human block of 木木
        for day in sorted({m.time.date() for m in said}):
            memory.summarize(day, agent=AGENT, person=PERSON)
        memory.summarize(date(2024, 9, 28), agent=AGENT, space=GROUP)
        memory.core_block_append("human", "苏木（木木）：插画系学生，养了一只猫叫团子。", agent=AGENT, person=PERSON)


def _entity(memory: Memory, scope: Scope, name: str, kind: EntityType, aliases: list[str] | None = None) -> Entity:
    entity = Entity(id=f"ent_demo_{name}", scope=scope, name=name, type=kind, aliases=aliases or [])
    memory.store.upsert_entity(entity, memory.embedder.embed_passages([name])[0])
    return entity


def _fact(
    memory: Memory,
    subject: str,
    predicate: str,
    obj: str,
    time: str,
    closed: str | None = None,
    said: dict[str, str] | None = None,
    **kind: Any,
) -> str:
    """A fact, its sources the messages that name its object."""
    data = {"subject": subject, "predicate": predicate, "object": obj, "keyword": predicate, **kind}
    sources = [id for text, id in (said or {}).items() if obj[:2] in text]
    item = memory.remember(
        f"{subject}{predicate}{obj}",
        agent=AGENT,
        person=PERSON,
        kind=MemoryKind.FACT,
        time=datetime.fromisoformat(time),
        data=data,
        importance=0.6,
        sources=sources,
    )
    if closed:
        memory.store.update_memories(AGENT, [(item.id, {"valid_to": datetime.fromisoformat(closed)})])
    return item.id


def _graph(memory: Memory, said: dict[str, str]) -> None:
    scope = Scope(agent=AGENT, kind=ScopeKind.PERSON, key=PERSON)
    _entity(memory, scope, PERSON, EntityType.OBJECT, ["小木"])
    _entity(memory, scope, AGENT, EntityType.SUBJECT)
    _entity(memory, scope, "团子", EntityType.SPECIFIC)
    _entity(memory, scope, "小雨", EntityType.SPECIFIC)
    _entity(memory, scope, "驾照", EntityType.GENERIC)
    wrong = _entity(memory, scope, "小雨伞", EntityType.GENERIC)
    _fact(memory, PERSON, "养了一只猫叫", "团子", "2024-09-25T22:05:00", object_type="具体实体", said=said)
    _fact(memory, PERSON, "的室友是", "小雨", "2024-09-20T19:05:00", object_type="具体实体", said=said)
    _fact(memory, PERSON, "下周三要考", "驾照", "2024-09-26T18:20:00", object_type="泛化实体", said=said)
    _fact(memory, PERSON, "最喜欢的颜色是", "红色", "2024-09-01T10:00:00", closed="2024-09-21T21:30:00", said=said)
    _fact(memory, PERSON, "最喜欢的颜色是", "莫兰迪色系", "2024-09-21T21:30:00", said=said)
    _fact(memory, "团子", "咬断了", "耳机线", "2024-09-25T22:05:00", said=said)
    # an automatic merge that was wrong: 小雨伞 (an umbrella) is not 小雨 (the roommate)
    memory.store.merge_entities(
        AGENT, wrong.id, f"ent_demo_{'小雨'}", "名字相近（embedding 相似度 0.91）", datetime(2024, 9, 26, 3, 0)
    )
    first = memory.remember(
        "木木下周三考驾照科目二，倒车入库总压线，很紧张。",
        agent=AGENT,
        person=PERSON,
        kind=MemoryKind.EVENT,
        time=datetime(2024, 9, 26, 18, 20),
        importance=0.8,
        keywords=["驾照", "科目二"],
    )
    second = memory.remember(
        "祈煜答应陪木木复盘每一次倒车练习。",
        agent=AGENT,
        person=PERSON,
        kind=MemoryKind.EVENT,
        time=datetime(2024, 9, 26, 18, 21),
        importance=0.6,
        keywords=["练车"],
    )
    memory.link(first.id, second.id, agent=AGENT, person=PERSON, kind=LinkKind.CAUSE)


def _failed_job(memory: Memory) -> None:
    """A fold of 木木's chat whose extraction failed for good, as a console should show it."""
    store, config = memory.store, memory.config
    plan_folds(store, AGENT, f"person:{PERSON}", PERSON, config, everything=True)
    job = store.claim_job("demo-worker", datetime.now(), 60.0, [FOLD])
    if job is not None:
        store.fail_job(
            job.id,
            "demo-worker",
            "ProviderError: the LLM answered 429 Too Many Requests three times (rate limited)",
            None,
        )
