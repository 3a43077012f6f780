"""Consolidation (Flow 3) worked by hand: a group's week of memories, merged, superseded, linked, forgotten.

The scripted group g1 (members 木木, 苏霓 also called 霓霓, 阿杰; the agent 祈煜), written straight into the
store as a fold would have left it. ``NOW`` is 2024-05-11 09:00.

    day 1  ch_1 10:00, ch_2 10:01 (阿杰: 霓霓就是苏霓啦)    ev_1 10:05 木木喜欢喝咖啡   ev_2 10:40 霓霓就是苏霓
           fa_1 10:05 木木 喜欢 咖啡    fa_2 10:20 木木 住在 上海    fa_3 10:40 霓霓 养了 团子
    day 3  ev_3 20:00 苏霓晒了团子的照片     fa_4 20:00 苏霓 养了 团子
    day 6  ev_4 21:00 木木不喜欢咖啡了       fa_5 21:00 木木 不喜欢 咖啡   fa_6 21:05 木木 喜欢 猫
    day 9  ch_3 08:59   ev_5 09:00 木木搬到南京   ev_6 09:30 阿杰问南京的新家   fa_7 09:00 木木 住在 南京
    day 10 ch_4 20:00
"""

from __future__ import annotations

import asyncio
import doctest
import importlib
import math
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from huiyi.config import LLMConfig
from huiyi.config.forget import ForgetConfig
from huiyi.flows.consolidate.llm import load_prompt
from huiyi.flows.consolidate.run import (
    CONSOLIDATE,
    ConsolidateConfig,
    Report,
    consolidate,
    consolidate_due,
    due_scopes,
    last_run,
    retained_strength,
)
from huiyi.flows.extract.entities import entity_id
from huiyi.flows.ingest import terms_of
from huiyi.model import Entity, EntityType, JobState, Link, LinkKind, MemoryItem, MemoryKind, Person, Scope
from huiyi.providers.embed import Embedder, HashEmbedder, Vectors
from huiyi.providers.llm import LLM, OpenAIChat
from huiyi.store.base import Store
from huiyi.store.sqlite import SQLiteStore

AGENT = "祈煜"
GROUP = Scope.of_space(AGENT, "g1")
MUMU = Scope.of_person(AGENT, "木木")
NOW = datetime(2024, 5, 11, 9, 0)
HASH = HashEmbedder(64)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2024, 5, day, hour, minute)


# building memories ----------------------------------------------------------------------------------------
def chunk(id_: str, when: datetime, text: str, scope: Scope = GROUP, **more: Any) -> MemoryItem:
    fields: dict[str, Any] = {"importance": 0.2, "data": {"space": scope.key}} | more
    return MemoryItem(id=id_, scope=scope, kind=MemoryKind.CHUNK, text=text, time=when, created_at=when, **fields)


def event(id_: str, when: datetime, text: str, people: Sequence[str], scope: Scope = GROUP, **more: Any) -> MemoryItem:
    fields: dict[str, Any] = {"data": {"space": scope.key}} | more
    return MemoryItem(
        id=id_,
        scope=scope,
        kind=MemoryKind.EVENT,
        text=text,
        time=when,
        created_at=when,
        participants=list(people),
        **fields,
    )


def fact(
    id_: str,
    when: datetime,
    edge: tuple[str, str, str],
    text: str,
    *,
    scope: Scope = GROUP,
    kind: str = "preference",
    keyword: str = "",
    object_type: str | None = None,
    sources: Sequence[str] = (),
) -> MemoryItem:
    subject, predicate, obj = edge
    data = {
        "space": scope.key,
        "subject": subject,
        "subject_type": EntityType.OBJECT.value,
        "predicate": predicate,
        "object": obj,
        "object_type": object_type,
        "fact_kind": kind,
        "keyword": keyword,
    }
    return MemoryItem(
        id=id_,
        scope=scope,
        kind=MemoryKind.FACT,
        text=text,
        time=when,
        created_at=when,
        importance=0.9,
        keywords=[keyword] if keyword else [],
        sources=list(sources) or [f"m_{id_}"],
        data=data,
    )


def put(store: Store, embedder: Embedder, items: Sequence[MemoryItem]) -> None:
    store.add_memories(items, embedder.embed_passages([i.text for i in items]), [terms_of(i.text) for i in items])


def entity(store: Store, embedder: Embedder, scope: Scope, name: str, kind: EntityType, *aliases: str) -> str:
    made = Entity(id=entity_id(scope, name), scope=scope, name=name, type=kind, aliases=list(aliases), sources=[name])
    store.upsert_entity(made, embedder.embed_passages([name])[0])
    return made.id


def build_group(store: Store, embedder: Embedder = HASH) -> None:
    """The week of g1 described at the top of this file."""
    for person in ("木木", "阿杰"):
        store.upsert_person(AGENT, Person(id=person, name=person))
    put(
        store,
        embedder,
        [
            chunk("ch_1", at(1, 10, 0), "木木: 早上好，我刚买了杯咖啡"),
            chunk("ch_2", at(1, 10, 1), "阿杰: 霓霓就是苏霓啦，她今天请假"),
            chunk("ch_3", at(9, 8, 59), "木木: 我搬到南京啦"),
            chunk("ch_4", at(10, 20, 0), "阿杰: 晚安"),
            event(
                "ev_1",
                at(1, 10, 5),
                "木木说自己很喜欢喝咖啡",
                ["木木"],
                importance=0.6,
                access_count=1,
                last_access=at(3, 10, 5),
            ),
            event("ev_2", at(1, 10, 40), "阿杰告诉大家霓霓就是苏霓，苏霓今天请假", ["阿杰", "霓霓"], importance=0.6),
            event("ev_3", at(3, 20, 0), "苏霓在群里晒了团子的照片", ["苏霓"], importance=0.25),
            event("ev_4", at(6, 21, 0), "木木说最近胃不好，不喜欢咖啡了", ["木木"], importance=0.7),
            event("ev_5", at(9, 9, 0), "木木搬家到了南京", ["木木"], importance=0.8),
            event("ev_6", at(9, 9, 30), "阿杰问木木南京的新家怎么样", ["阿杰", "木木"], importance=0.3),
            fact(
                "fa_1", at(1, 10, 5), ("木木", "喜欢", "咖啡"), "木木喜欢喝咖啡", keyword="喜好", object_type="generic"
            ),
            fact("fa_2", at(1, 10, 20), ("木木", "住在", "上海"), "木木住在上海", kind="relation", keyword="住址"),
            fact(
                "fa_3",
                at(1, 10, 40),
                ("霓霓", "养了", "团子"),
                "霓霓养了一只叫团子的猫",
                kind="attribute",
                keyword="宠物",
                object_type="specific",
            ),
            fact(
                "fa_4",
                at(3, 20, 0),
                ("苏霓", "养了", "团子"),
                "苏霓家的猫叫团子",
                kind="attribute",
                keyword="宠物",
                object_type="specific",
            ),
            fact(
                "fa_5",
                at(6, 21, 0),
                ("木木", "不喜欢", "咖啡"),
                "木木现在不喜欢咖啡了",
                keyword="厌恶",
                object_type="generic",
            ),
            fact("fa_6", at(6, 21, 5), ("木木", "喜欢", "猫"), "木木喜欢猫", keyword="喜好", object_type="generic"),
            fact("fa_7", at(9, 9, 0), ("木木", "住在", "南京"), "木木搬到了南京住", kind="relation", keyword="住址"),
        ],
    )
    for name, kind in [
        ("木木", EntityType.OBJECT),
        ("苏霓", EntityType.OBJECT),
        ("霓霓", EntityType.OBJECT),
        ("阿杰", EntityType.OBJECT),
        ("团子", EntityType.SPECIFIC),
        ("咖啡", EntityType.GENERIC),
        ("猫", EntityType.GENERIC),
        ("上海", EntityType.SPECIFIC),
        ("南京", EntityType.SPECIFIC),
    ]:
        entity(store, embedder, GROUP, name, kind)


def small_capacity(**more: Any) -> ConsolidateConfig:
    """Capacity at 10 memories, the weakest 20 % go, nothing kept back: small enough to check by hand."""
    return ConsolidateConfig(forget=ForgetConfig(total_limit=10, share=0.2, minimum=0), **more)


def run(
    store: Store,
    scope: Scope = GROUP,
    config: ConsolidateConfig | None = None,
    *,
    embedder: Embedder = HASH,
    llm: LLM | None = None,
    dry_run: bool = False,
    now: datetime = NOW,
    since: datetime | None = None,
) -> Report:
    return asyncio.run(
        consolidate(store, embedder, scope, now, config or ConsolidateConfig(), llm, dry_run, since=since)
    )


def snapshot(store: Store, scope: Scope = GROUP) -> dict[str, Any]:
    """Everything consolidation may touch, field by field."""
    items = store.list_memories([scope], None, 10_000)
    ids = sorted(i.id for i in items)
    return {
        "count": store.count_memories(scopes=[scope]),
        "memories": sorted((i.model_dump() for i in items), key=lambda d: d["id"]),
        "entities": sorted(
            (e.model_dump() for e in store.list_entities([scope], include_merged=True)), key=lambda d: d["id"]
        ),
        "merges": [m.model_dump() for m in store.list_merges(AGENT)],
        "links": sorted(
            (lk.model_dump() for lk in store.links_of(AGENT, ids)), key=lambda d: (d["source"], d["target"])
        ),
        "jobs": [j.model_dump() for j in store.list_jobs(AGENT)],
    }


def memory(store: Store, memory_id: str) -> MemoryItem:
    found = store.get_memories(AGENT, [memory_id])
    assert found, f"{memory_id} is gone"
    return found[0]


@pytest.fixture
def sqlite(tmp_path: Any) -> Iterator[Store]:
    made = SQLiteStore(tmp_path / "store")
    yield made
    made.close()


# the worked example, on every backend ------------------------------------------------------------------------
def test_a_week_of_group_chat_consolidated(store: Store) -> None:
    build_group(store)
    report = run(store, config=small_capacity())

    # a. 阿杰 said 霓霓就是苏霓: one entity, kept as 苏霓 (霓霓 doubles a character: a pet name)
    (merge,) = report.of("merge_entity")
    assert merge.ids == [entity_id(GROUP, "霓霓"), entity_id(GROUP, "苏霓")]
    assert "霓霓就是苏霓" in merge.reason
    alive = {e.name: e for e in store.list_entities([GROUP])}
    assert "霓霓" not in alive and alive["苏霓"].aliases == ["霓霓"]

    # b. 喜欢 咖啡 closed when 不喜欢 咖啡 was said; 住在 上海 closed when 住在 南京 was; never deleted
    assert {tuple(c.ids) for c in report.of("supersede")} == {("fa_1", "fa_5"), ("fa_2", "fa_7")}
    assert memory(store, "fa_1").valid_to == at(6, 21, 0)
    assert memory(store, "fa_1").data["superseded_by"] == "fa_5"
    assert memory(store, "fa_2").valid_to == at(9, 9, 0)
    for still in ("fa_5", "fa_6", "fa_7"):
        assert memory(store, still).valid_to is None

    # c. 霓霓 养了 团子 and 苏霓 养了 团子 are one claim once 霓霓 is 苏霓: one new fact, every source kept
    (merged,) = report.of("merge_facts")
    new_id = merged.ids[0]
    assert merged.ids[1:] == ["fa_3", "fa_4"]
    new = memory(store, new_id)
    assert new.text == "苏霓家的猫叫团子"  # the latest wording
    assert new.sources == ["m_fa_3", "m_fa_4"] and new.data["merged_from"] == ["fa_3", "fa_4"]
    assert new.valid_to is None and new.time == at(3, 20, 0) and new.data["valid_from"] == "2024-05-01 10:40:00"
    for old in ("fa_3", "fa_4"):
        assert memory(store, old).valid_to == NOW and memory(store, old).data["merged_into"] == new_id

    # d. 35 and 30 minutes apart; 咖啡, 苏霓 (through the merge) and 阿杰 shared. 木木 is in 4 of 6 events: a
    #    hub, linking nothing. ev_5 and ev_6 share 南京 but are linked already.
    pairs = {(c.ids[0], c.ids[1]): c.reason for c in report.of("link")}
    assert pairs == {
        ("ev_1", "ev_2"): "35 minutes apart in g1",
        ("ev_5", "ev_6"): "30 minutes apart in g1",
        ("ev_1", "ev_4"): "both involve 咖啡",
        ("ev_2", "ev_3"): "both involve 苏霓",
        ("ev_2", "ev_6"): "both involve 阿杰",
    }
    stored = {(lk.source, lk.target) for lk in store.links_of(AGENT, ["ev_1", "ev_2", "ev_5"])}
    # ev_3 is forgotten below (step e), and its links go with it
    assert stored == {("ev_1", "ev_2"), ("ev_5", "ev_6"), ("ev_1", "ev_4"), ("ev_2", "ev_6")}

    # e. ev_1 was recalled 2 days after it was stored: +3 (seed 000), 1 → 4
    (grown,) = report.of("strength")
    assert (grown.ids, grown.before, grown.after) == (["ev_1"], 1.0, 4.0)
    assert memory(store, "ev_1").data["strength_at"] == "2024-05-03T10:05:00"

    # e. 18 memories (4 chunks, 6 events, 7 facts and the merged one) reach the limit of 10: ⌊0.2 · 18⌋ = 3 go,
    #    the weakest by strength × importance × e^(−λ·days) × (1 + ln(1 + accesses)), λ = 0.05 for both:
    #    ch_1, ch_2: 1 × 0.2 × e^(−0.05·9) = 0.127526 (9 days 23 hours count as 9 whole days)
    #    ev_3:       1 × 0.25 × e^(−0.05·7) = 0.176172
    #    then ch_3 0.2 · e^−0.1 = 0.180967, ch_4 0.2, ev_6 0.3 · e^−0.05 = 0.285369 …
    #    and ev_1 4 · 0.6 · e^−0.45 · (1 + ln 2) = 2.591036
    gone = {c.ids[0]: c.before for c in report.of("delete")}
    assert list(gone) == ["ch_1", "ch_2", "ev_3"]
    assert gone["ch_1"]["retained"] == pytest.approx(0.2 * math.exp(-0.45), abs=1e-6)
    assert gone["ch_1"]["retained"] == pytest.approx(0.127526, abs=1e-6)
    assert gone["ev_3"]["retained"] == pytest.approx(0.25 * math.exp(-0.35), abs=1e-6)
    assert gone["ev_3"]["days"] == 7 and gone["ev_3"]["decay"] == pytest.approx(0.176172, abs=1e-6)
    assert "18 memories reach the limit 10" in report.of("delete")[0].reason
    assert store.count_memories(scopes=[GROUP]) == 18 - 3
    assert store.get_memories(AGENT, ["ch_1", "ch_2", "ev_3"]) == []

    text = str(report)
    for line in ("entities: 1 change", "supersede: 2 changes", "links: 5 changes", "forget: 3 changes"):
        assert line in text


def test_retained_strength_by_hand() -> None:
    config = ConsolidateConfig()
    # 4 · 0.6 · e^(−0.05·9) · (1 + ln 2) = 4 · 0.6 · 0.637628 · 1.693147 = 2.591036
    recalled = event("e", at(1, 10, 5), "x", [], importance=0.6, strength=4.0, access_count=1)
    assert retained_strength(recalled, NOW, config) == pytest.approx((2.591036, 0.647759, 9), abs=1e-6)
    # a relation decays at 0.005 a day: 0.9 · e^(−0.005·2) = 0.891045; an opinion at 0.03: 0.9 · e^(−0.06)
    home = fact("f", at(9, 9, 0), ("木木", "住在", "南京"), "木木住在南京", kind="relation")
    assert retained_strength(home, NOW, config)[0] == pytest.approx(0.891045, abs=1e-6)
    likes = fact("f", at(9, 9, 0), ("木木", "喜欢", "猫"), "木木喜欢猫")
    assert retained_strength(likes, NOW, config)[0] == pytest.approx(0.847588, abs=1e-6)


def test_dry_run_writes_nothing_and_reports_the_same(sqlite: Store) -> None:
    build_group(sqlite)
    before = snapshot(sqlite)
    dry = run(sqlite, config=small_capacity(), dry_run=True)
    assert snapshot(sqlite) == before
    assert dry.dry_run and len(dry.changes) == 13  # 1 merge, 2 supersede, 1 merged fact, 5 links, 1 strength, 3 deletes
    assert "(dry run: nothing written)" in str(dry)
    real = run(sqlite, config=small_capacity())
    assert [c.model_dump() for c in real.changes] == [c.model_dump() for c in dry.changes]
    assert snapshot(sqlite) != before


def test_undoing_a_merge_restores_both_entities(sqlite: Store) -> None:
    build_group(sqlite)
    run(sqlite)
    (merge,) = sqlite.list_merges(AGENT)
    assert (merge.source, merge.target) == (entity_id(GROUP, "霓霓"), entity_id(GROUP, "苏霓"))
    sqlite.undo_merge(AGENT, merge.id)
    alive = {e.name: e for e in sqlite.list_entities([GROUP])}
    assert alive["苏霓"].aliases == [] and alive["霓霓"].merged_into is None
    assert sqlite.list_merges(AGENT)[0].undone
    # the next run merged them again on the same evidence (helper): an operator's undo stands
    assert run(sqlite).of("merge_entity") == []
    assert all(e.merged_into is None for e in sqlite.list_entities([GROUP])) and len(sqlite.list_merges(AGENT)) == 1


def test_a_second_run_changes_nothing_more(sqlite: Store) -> None:
    build_group(sqlite)
    run(sqlite, config=small_capacity())
    again = run(sqlite, config=ConsolidateConfig())  # the default limit of 20 000 is far away
    assert again.changes == [] and str(again).endswith("nothing to change")


# a. entities ----------------------------------------------------------------------------------------------------
def test_the_person_record_merges_a_nickname(sqlite: Store) -> None:
    sqlite.upsert_person(AGENT, Person(id="suni", name="苏霓", aliases=["霓霓"]))
    entity(sqlite, HASH, GROUP, "霓霓", EntityType.OBJECT)
    entity(sqlite, HASH, GROUP, "苏霓", EntityType.OBJECT)
    put(sqlite, HASH, [chunk("c", at(1, 9), "霓霓: 早")])
    report = run(sqlite)
    (merge,) = report.of("merge_entity")
    assert merge.before == {"source": "霓霓", "target": "苏霓"}
    assert merge.reason == "the person record of 苏霓 lists suni, 苏霓, 霓霓"


def test_an_identity_fact_merges_a_real_name(sqlite: Store) -> None:
    mumu = entity(sqlite, HASH, MUMU, "木木", EntityType.OBJECT)
    real = entity(sqlite, HASH, MUMU, "李沐", EntityType.OBJECT)
    put(
        sqlite,
        HASH,
        [fact("f", at(1, 9), ("木木", "本名是", "李沐"), "木木的本名是李沐", scope=MUMU, kind="attribute")],
    )
    (merge,) = run(sqlite, MUMU).of("merge_entity")
    assert set(merge.ids) == {mumu, real} and merge.reason == "fact f: 木木的本名是李沐"


def test_similarity_merges_with_e5(sqlite: Store, e5: Embedder) -> None:
    """Cosines of e5 (passage vectors of the names): 健身房/健身馆 0.987, 南京大学/南大 0.943, 咖啡/咖啡豆 0.972,
    星巴克/星爸爸 0.894, 木木/沐沐 0.893."""
    scope = MUMU
    for name, kind in [
        ("健身房", EntityType.SPECIFIC),
        ("健身馆", EntityType.SPECIFIC),
        ("南京大学", EntityType.SPECIFIC),
        ("南大", EntityType.SPECIFIC),
        ("咖啡", EntityType.GENERIC),
        ("咖啡豆", EntityType.GENERIC),
        ("星巴克", EntityType.SPECIFIC),
        ("星爸爸", EntityType.SPECIFIC),
        ("木木", EntityType.OBJECT),
        ("沐沐", EntityType.OBJECT),
        ("鼓楼区", EntityType.SPECIFIC),
    ]:
        entity(sqlite, e5, scope, name, kind)
    for person in ("木木", "沐沐"):
        sqlite.upsert_person(AGENT, Person(id=person, name=person))
    put(
        sqlite,
        e5,
        [
            fact(
                "f1",
                at(1, 9),
                ("南京大学", "位于", "鼓楼区"),
                "南京大学在鼓楼区",
                scope=scope,
                kind="relation",
                object_type="specific",
            ),
            fact(
                "f2",
                at(2, 9),
                ("南大", "位于", "鼓楼区"),
                "南大在鼓楼区",
                scope=scope,
                kind="relation",
                object_type="specific",
            ),
            event("e1", at(3, 9), "木木买了一袋咖啡豆，回家自己煮咖啡", ["木木"], scope=scope),
        ],
    )
    report = run(sqlite, scope, embedder=e5)
    merged = {frozenset(c.before.values()): c.reason for c in report.of("merge_entity")}
    assert set(merged) == {frozenset({"健身房", "健身馆"}), frozenset({"南京大学", "南大"})}
    assert merged[frozenset({"健身房", "健身馆"})].startswith("similarity 0.98")
    assert "neighbours agree (鼓楼区; overlap 1.00)" in merged[frozenset({"南京大学", "南大"})]
    # 咖啡 and 咖啡豆 are named apart in e1; 星巴克/星爸爸 share no neighbour; 木木 and 沐沐 are persons (and two)


# b. supersede ------------------------------------------------------------------------------------------------------
def test_subjects_are_compared_through_aliases(sqlite: Store) -> None:
    sqlite.upsert_person(AGENT, Person(id="木木", name="木木", aliases=["木头"]))
    entity(sqlite, HASH, MUMU, "木木", EntityType.OBJECT)
    entity(sqlite, HASH, MUMU, "木头", EntityType.OBJECT)
    put(
        sqlite,
        HASH,
        [
            fact("f1", at(1, 9), ("木木", "生日是", "3月1日"), "木木的生日是3月1日", scope=MUMU, kind="attribute"),
            fact("f2", at(2, 9), ("木头", "生日是", "3月2日"), "木头说生日其实是3月2日", scope=MUMU, kind="attribute"),
            fact("f3", at(3, 9), ("木木", "是", "学生"), "木木是学生", scope=MUMU, kind="attribute"),
            fact("f4", at(4, 9), ("木木", "不是", "学生"), "木木已经不是学生了", scope=MUMU, kind="attribute"),
            fact("f5", at(5, 9), ("木木", "喜欢", "猫"), "木木喜欢猫", scope=MUMU),
            fact("f6", at(6, 9), ("木木", "喜欢", "狗"), "木木喜欢狗", scope=MUMU),
            fact("f7", at(7, 9), ("木木", "讨厌", "狗"), "木木讨厌狗", scope=MUMU),
            fact("f8", at(1, 9), ("木木", "喜欢", "喝咖啡"), "木木喜欢喝咖啡", scope=MUMU),
            fact("f9", at(8, 9), ("木木", "不喜欢", "咖啡"), "木木不喜欢咖啡了", scope=MUMU),
        ],
    )
    report = run(sqlite, MUMU)
    assert {tuple(c.ids) for c in report.of("supersede")} == {("f1", "f2"), ("f3", "f4"), ("f6", "f7"), ("f8", "f9")}
    assert "木木 生日是 holds one value: 3月1日 → 3月2日" in report.of("supersede")[0].reason
    assert memory(sqlite, "f5").valid_to is None  # liking cats and hating dogs can both hold


def test_a_history_closes_each_value_at_the_next(sqlite: Store) -> None:
    put(
        sqlite,
        HASH,
        [
            fact("h1", at(1, 9), ("木木", "住在", "上海"), "木木住在上海", scope=MUMU, kind="relation"),
            fact("h2", at(2, 9), ("木木", "住在", "南京"), "木木住在南京", scope=MUMU, kind="relation"),
            fact("h3", at(3, 9), ("木木", "住在", "上海"), "木木又搬回上海", scope=MUMU, kind="relation"),
        ],
    )
    run(sqlite, MUMU)
    assert [memory(sqlite, i).valid_to for i in ("h1", "h2", "h3")] == [at(2, 9), at(3, 9), None]


def test_facts_close_in_the_order_they_were_said_not_by_the_day_they_are_about(sqlite: Store) -> None:
    # on the 1st: "next month I move to 杭州" (about the 20th); on the 5th: "I live in 南京 now" (about the 5th)
    plan = fact("p1", at(20, 9), ("木木", "住在", "杭州"), "木木下个月住在杭州", scope=MUMU, kind="relation")
    plan = plan.model_copy(update={"said_at": at(1, 9), "created_at": at(1, 9)})
    news = fact("p2", at(5, 9), ("木木", "住在", "南京"), "木木现在住在南京", scope=MUMU, kind="relation")
    put(sqlite, HASH, [plan, news])
    run(sqlite, MUMU)
    assert memory(sqlite, "p1").valid_to == at(5, 9)  # the newer statement closes the older plan
    assert memory(sqlite, "p2").valid_to is None


# c. descriptions ------------------------------------------------------------------------------------------------------
def test_repeated_claims_merge_and_different_ones_stay(sqlite: Store) -> None:
    put(
        sqlite,
        HASH,
        [
            fact(
                "p1",
                at(1, 9),
                ("木木", "养了", "团子"),
                "木木养了一只猫叫团子",
                scope=MUMU,
                kind="attribute",
                keyword="宠物",
                sources=["m1"],
            ),
            fact(
                "p2",
                at(2, 9),
                ("木木", "养了", "团子"),
                "木木家的猫叫团子",
                scope=MUMU,
                kind="attribute",
                keyword="宠物",
                sources=["m2", "m3"],
            ),
            fact(
                "p3",
                at(2, 9),
                ("木木", "养了", "豆豆"),
                "木木还养了一只狗叫豆豆",
                scope=MUMU,
                kind="attribute",
                keyword="宠物",
                sources=["m4"],
            ),
            fact("l1", at(1, 9), ("木木", "喜欢", "猫"), "木木喜欢猫", scope=MUMU, keyword="喜好", sources=["m5"]),
            fact("l2", at(3, 9), ("木木", "爱", "猫"), "木木超爱猫", scope=MUMU, keyword="喜好", sources=["m6"]),
        ],
    )
    report = run(sqlite, MUMU)
    merged = {tuple(c.ids[1:]): memory(sqlite, c.ids[0]) for c in report.of("merge_facts")}
    assert set(merged) == {("p1", "p2"), ("l1", "l2")}
    assert merged[("p1", "p2")].text == "木木家的猫叫团子" and merged[("p1", "p2")].sources == ["m1", "m2", "m3"]
    assert merged[("l1", "l2")].text == "木木超爱猫"
    assert memory(sqlite, "p3").valid_to is None
    assert sqlite.count_memories(scopes=[MUMU]) == 7  # nothing deleted: two facts added


# d. links -------------------------------------------------------------------------------------------------------------
def test_links_are_bounded_and_never_duplicated(sqlite: Store) -> None:
    events = [event(f"e{i}", at(1, 9, i * 10), f"第{i}件事：团子又闯祸了", ["阿杰"], scope=MUMU) for i in range(6)]
    put(sqlite, HASH, events)
    entity(sqlite, HASH, MUMU, "团子", EntityType.SPECIFIC)
    sqlite.add_links(AGENT, [Link(source="e0", target="e1", kind=LinkKind.CAUSE)])
    config = ConsolidateConfig(links={"max_per_event": 2, "hub_share": 1.0})
    report = run(sqlite, MUMU, config)
    pairs = [tuple(c.ids) for c in report.of("link")]
    # 10 minutes apart: e1–e2 … e4–e5 (e0–e1 exists already); then every event has two links, and 团子's
    # chain adds nothing more
    assert pairs == [("e1", "e2"), ("e2", "e3"), ("e3", "e4"), ("e4", "e5")]
    assert run(sqlite, MUMU, config).of("link") == []


def test_only_new_events_are_linked_since_the_last_run(sqlite: Store) -> None:
    put(
        sqlite,
        HASH,
        [
            event("old1", at(1, 9), "a", []),
            event("old2", at(1, 9, 5), "b", []),
            event("new1", at(5, 9), "c", []),
            event("new2", at(5, 9, 5), "d", []),
        ],
    )
    report = run(sqlite, since=at(4, 0))
    assert [tuple(c.ids) for c in report.of("link")] == [("new1", "new2")]


# e. strength and forgetting ------------------------------------------------------------------------------------------
def test_strength_grows_by_the_gap_since_the_last_update(sqlite: Store) -> None:
    put(
        sqlite,
        HASH,
        [
            event("a", at(1, 9), "a", [], last_access=at(1, 20), access_count=1),  # 11 hours: +1
            event("b", at(1, 9), "b", [], last_access=at(8, 9), access_count=1),  # 7 days: +7
            event("c", at(1, 9), "c", []),  # never recalled: no step
        ],
    )
    report = run(sqlite)
    assert {c.ids[0]: c.after for c in report.of("strength")} == {"a": 2.0, "b": 8.0}
    sqlite.record_access(AGENT, ["b"], at(10, 9))  # recalled again two days after the step counted it: +3
    report = run(sqlite, now=at(10, 10))
    assert {c.ids[0]: (c.before, c.after) for c in report.of("strength")} == {"b": (8.0, 11.0)}


def test_a_recall_while_the_run_goes_on_keeps_its_bonus(sqlite: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The strength step wrote back what the run read at its start plus the step: a recall's +15 meanwhile
    (the bot answering while its worker consolidates) was lost (helper)."""
    put(sqlite, HASH, [event("a", at(1, 9), "a", [], last_access=at(1, 20), access_count=1)])  # 11 hours: +1
    links = importlib.import_module("huiyi.flows.consolidate.run").discover_links

    def links_then_a_recall(state: Any, last: Any) -> int:
        sqlite.record_access(AGENT, ["a"], at(1, 21), strength_bonus=15)
        return int(links(state, last))

    monkeypatch.setattr("huiyi.flows.consolidate.run.discover_links", links_then_a_recall)
    report = run(sqlite)
    (got,) = sqlite.get_memories(AGENT, ["a"])
    assert got.access_count == 2 and got.strength == 1.0 + 15 + 1  # the recall's bonus, then the step of the gap
    assert [(c.before, c.after) for c in report.of("strength")] == [(16.0, 17.0)]


def test_capacity_never_takes_facts_official_or_summaries(sqlite: Store) -> None:
    old = at(1, 9) - timedelta(days=300)
    items = [chunk(f"c{i}", old, f"闲聊{i}", scope=MUMU) for i in range(3)]
    items += [fact(f"f{i}", old, ("木木", "喜欢", f"东西{i}"), f"木木喜欢东西{i}", scope=MUMU) for i in range(5)]
    items += [MemoryItem(id="s", scope=MUMU, kind=MemoryKind.SUMMARY, text="总结", time=old, created_at=old)]
    put(sqlite, HASH, items)
    config = ConsolidateConfig(forget=ForgetConfig(total_limit=5, share=1.0, minimum=0), links={"enabled": False})
    report = run(sqlite, MUMU, config)
    assert sorted(c.ids[0] for c in report.of("delete")) == ["c0", "c1", "c2"]
    # closed facts go only when asked
    official = Scope.official(AGENT)
    put(sqlite, HASH, [chunk("o", old, "官方设定", scope=official)])
    assert run(sqlite, official, config).of("delete") == []


def test_an_inactive_person_keeps_the_minimum(sqlite: Store) -> None:
    put(sqlite, HASH, [chunk(f"c{i}", at(1, 9, i), f"第{i}句", scope=MUMU, importance=0.1 * (i + 1)) for i in range(5)])
    config = ConsolidateConfig(forget=ForgetConfig(minimum=2, inactive_days=30), links={"enabled": False})
    report = run(sqlite, MUMU, config, now=at(1, 9) + timedelta(days=40))
    assert [c.ids[0] for c in report.of("delete")] == ["c0", "c1", "c2"]
    assert "inactive since 2024-05-01" in report.of("delete")[0].reason


def test_an_inactive_persons_minimum_is_of_memories_that_may_go(sqlite: Store) -> None:
    """Summaries and facts never go, so they do not fill the minimum: a companion's three summaries a
    day passed 1 000 within a year, and a month's silence then forgot every chat line, event and note."""
    old = at(1, 9)
    items = [chunk(f"c{i}", at(1, 9, i), f"第{i}句", scope=MUMU, importance=0.1 * (i + 1)) for i in range(4)]
    items += [
        MemoryItem(id=f"s{i}", scope=MUMU, kind=MemoryKind.SUMMARY, text=f"总结{i}", time=old, created_at=old)
        for i in range(3)
    ]
    put(sqlite, HASH, items)
    config = ConsolidateConfig(forget=ForgetConfig(minimum=2, inactive_days=30), links={"enabled": False})
    report = run(sqlite, MUMU, config, now=at(1, 9) + timedelta(days=40))
    assert [c.ids[0] for c in report.of("delete")] == ["c0", "c1"]


def test_of_memories_equally_strong_an_inactive_person_loses_the_chatter_first(sqlite: Store) -> None:
    """Ties went by id: 在吗 (c0) outlived 我奶奶昨天去世了 (c1), said the same minute, equally important."""
    lines = ["在吗", "我奶奶昨天去世了，我一直在哭", "哈哈哈", "嗯"]
    put(sqlite, HASH, [chunk(f"c{i}", at(1, 9), f"木木: {text}", scope=MUMU) for i, text in enumerate(lines)])
    config = ConsolidateConfig(forget=ForgetConfig(minimum=1, inactive_days=30), links={"enabled": False})
    report = run(sqlite, MUMU, config, now=at(1, 9) + timedelta(days=40))
    assert sorted(c.ids[0] for c in report.of("delete")) == ["c0", "c2", "c3"]


def test_forget_below_is_seed_000_s_limit(sqlite: Store) -> None:
    put(sqlite, HASH, [event("weak", at(1, 9), "w", [], importance=0.1), event("fine", at(10, 9), "f", [])])
    report = run(sqlite, config=ConsolidateConfig(forget_below=0.1, forget=ForgetConfig(minimum=0)))
    assert [c.ids[0] for c in report.of("delete")] == ["weak"]  # 0.1 · e^(−0.05·10) = 0.061


def test_the_current_value_outlives_the_one_it_closed(sqlite: Store) -> None:
    """With valid facts forgettable, the fact that closed a kept one stays: else 木木 lives in 北京 again."""
    old, new = at(1, 9), at(8, 9)
    beijing = fact("bj", old, ("木木", "住在", "北京"), "木木住在北京", scope=MUMU).model_copy(
        update={"strength": 90.0, "valid_to": new, "data": {"superseded_by": "sh"}}
    )
    shanghai = fact("sh", new, ("木木", "住在", "上海"), "木木住在上海", scope=MUMU)
    cat = fact("cat", old, ("木木", "养", "猫"), "木木养猫", scope=MUMU, sources=["m_cat"])
    job = fact("job", new, ("木木", "工作于", "银行"), "木木工作于银行", scope=MUMU, sources=["m9"])
    quit_ = fact("bank", old, ("木木", "工作于", "学校"), "木木工作于学校", scope=MUMU).model_copy(
        update={"strength": 90.0, "valid_to": new, "data": {"closed_by": ["m9"]}}
    )
    put(sqlite, HASH, [beijing, shanghai, cat, job, quit_])
    config = ConsolidateConfig(
        forget_valid_facts=True, forget_below=50.0, forget=ForgetConfig(minimum=0), links={"enabled": False}
    )
    report = run(sqlite, MUMU, config)
    assert [c.ids[0] for c in report.of("delete")] == ["cat"]  # a valid fact nothing replaced may still go


# the LLM path -------------------------------------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def run_with_llm(server: FakeOpenAI, store: Store, scope: Scope) -> Report:
    """Consolidate through a real HTTP client against the fake server's scripted answers."""
    config = LLMConfig(base_url=server.base_url, model="fake-model", timeout_s=5.0, max_retries=0)

    async def main() -> Report:
        async with OpenAIChat(config, backoff_s=0.01) as llm:
            return await consolidate(store, HASH, scope, NOW, ConsolidateConfig(), llm)

    return asyncio.run(main())


def llm_scene(store: Store) -> None:
    work = {"scope": MUMU, "kind": "relation", "keyword": "工作"}
    put(
        store,
        HASH,
        [
            fact("w1", at(1, 9), ("木木", "工作于", "字节跳动"), "木木在字节跳动工作", **work),
            fact("w2", at(5, 9), ("木木", "上班于", "腾讯"), "木木现在去腾讯上班了", **work),
            fact("c1", at(1, 9), ("木木", "喜欢", "猫"), "木木喜欢猫", scope=MUMU, keyword="喜好", sources=["m1"]),
            fact("c2", at(2, 9), ("木木", "喜欢", "狗"), "木木喜欢狗", scope=MUMU, keyword="喜好", sources=["m2"]),
            fact(
                "c3",
                at(3, 9),
                ("木木", "爱", "猫"),
                "木木超爱猫，每天都要撸猫",
                scope=MUMU,
                keyword="喜好",
                sources=["m3"],
            ),
        ],
    )


def test_the_llm_judges_pairs_and_merges_descriptions(server: FakeOpenAI, sqlite: Store) -> None:
    llm_scene(sqlite)
    server.script_chat(json_content={"pairs": [{"pair": "p1", "verdict": "contradicts", "reason": "换了工作"}]})
    merged = {"facts": ["f1", "f3"], "description": "木木特别喜欢猫，每天都要撸猫", "predicate": "喜欢", "object": "猫"}
    server.script_chat(json_content={"merged": [merged]})
    report = run_with_llm(server, sqlite, MUMU)

    first, second = server.chat_requests
    assert "你是一个记忆整理员" in first.messages[0]["content"]
    assert "p1\n  A (2024-05-01 09:00): 木木在字节跳动工作 [木木 | 工作于 | 字节跳动]" in first.messages[1]["content"]
    assert "B (2024-05-05 09:00): 木木现在去腾讯上班了" in first.messages[1]["content"]
    assert "f1 (2024-05-01): 木木喜欢猫" in second.messages[1]["content"]
    assert "f3 (2024-05-03): 木木超爱猫" in second.messages[1]["content"]

    (closed,) = report.of("supersede")
    assert closed.ids == ["w1", "w2"] and closed.reason == "the LLM judged them contradictory: 换了工作"
    (done,) = report.of("merge_facts")
    new = memory(sqlite, done.ids[0])
    assert (new.text, new.data["predicate"], new.data["object"]) == ("木木特别喜欢猫，每天都要撸猫", "喜欢", "猫")
    assert new.sources == ["m1", "m3"] and done.ids[1:] == ["c1", "c3"]
    assert memory(sqlite, "c2").valid_to is None
    assert report.llm_calls == 2 and report.errors == []


def test_a_failing_llm_leaves_the_rules_answer(server: FakeOpenAI, sqlite: Store) -> None:
    llm_scene(sqlite)
    server.script_status(500)
    server.script_chat(json_content={"merged": [{"facts": ["f1", "f9"], "description": "编造的"}]})
    report = run_with_llm(server, sqlite, MUMU)
    assert report.of("supersede") == []  # no rule decides 工作于 vs 上班于
    assert report.errors[0].startswith("supersede: ProviderError")
    assert "ignored a merge the facts do not support" in report.errors[1]
    (done,) = report.of("merge_facts")  # the rule still merges 喜欢 猫 with 爱 猫
    assert done.ids[1:] == ["c1", "c3"] and memory(sqlite, done.ids[0]).text == "木木超爱猫，每天都要撸猫"


def test_english_facts_of_one_moment_go_to_the_llm_in_english(server: FakeOpenAI, sqlite: Store) -> None:
    tom = Scope.of_person(AGENT, "tom")
    home = {"scope": tom, "kind": "relation", "keyword": "home"}
    put(
        sqlite,
        HASH,
        [
            fact("t1", at(1, 9), ("Tom", "lives in", "Paris"), "Tom used to live in Paris", **home),
            fact("t2", at(1, 9), ("Tom", "lives in", "Berlin"), "Tom lives in Berlin now", **home),
        ],
    )
    assert run(sqlite, tom).of("supersede") == []  # one fold said both: the rules cannot tell which is newer
    server.script_chat(json_content={"pairs": [{"pair": "p1", "verdict": "contradicts", "reason": "moved"}]})
    report = run_with_llm(server, sqlite, tom)  # t1 closed, nothing is left to merge: one call
    assert server.chat_requests[0].messages[0]["content"].startswith("You tidy up a memory")
    assert [c.ids for c in report.of("supersede")] == [["t1", "t2"]] and len(server.chat_requests) == 1


@pytest.mark.parametrize("name", ["supersede", "describe"])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_prompt_files_load(name: str, language: str) -> None:
    prompt = load_prompt(name, language)
    placeholder = "{{pairs}}" if name == "supersede" else "{{facts}}"
    assert placeholder in prompt.user and "JSON" in prompt.system and "<!--" not in prompt.system


# the scheduler ------------------------------------------------------------------------------------------------------
def test_consolidate_due_runs_active_scopes_once_per_period(sqlite: Store) -> None:
    sqlite.upsert_person(AGENT, Person(id="木木", name="木木"))
    sqlite.upsert_person(AGENT, Person(id="沐沐", name="沐沐"))
    put(sqlite, HASH, [event("e1", NOW - timedelta(hours=2), "木木来聊天", ["木木"], scope=MUMU)])
    config = ConsolidateConfig()

    def due(now: datetime) -> list[Report]:
        return asyncio.run(consolidate_due(sqlite, HASH, config, now, agents=[AGENT]))

    assert [r.scope for r in due(NOW)] == [MUMU]  # 沐沐 has no memories
    assert last_run(sqlite, MUMU) == NOW
    assert [j.state for j in sqlite.list_jobs(AGENT) if j.kind == CONSOLIDATE] == [JobState.DONE]
    assert due(NOW + timedelta(hours=1)) == []  # once a period
    assert due(NOW + timedelta(days=1)) == []  # nothing new since the last run
    put(sqlite, HASH, [event("e2", NOW + timedelta(days=1, hours=1), "木木又来了", ["木木"], scope=MUMU)])
    assert due_scopes(sqlite, config, NOW + timedelta(days=2), agents=[AGENT]) == [MUMU]
    (report,) = due(NOW + timedelta(days=2))
    assert [c.ids for c in report.of("link")] == []  # e1 and e2 are a day apart, and share only the person


def test_a_day_gone_told_since_the_last_run_makes_its_scope_due(sqlite: Store) -> None:
    sqlite.upsert_person(AGENT, Person(id="木木", name="木木"))
    put(sqlite, HASH, [event("e1", NOW - timedelta(hours=2), "木木来聊天", ["木木"], scope=MUMU)])
    config = ConsolidateConfig()
    asyncio.run(consolidate_due(sqlite, HASH, config, NOW, agents=[AGENT]))
    later = NOW + timedelta(days=1)  # 木木 tells of the day before the last run (昨天…, 今天… said after midnight)
    told = event("e2", NOW - timedelta(days=1), "木木说前天去爬山了", ["木木"], scope=MUMU)
    put(sqlite, HASH, [told.model_copy(update={"said_at": later})])
    assert due_scopes(sqlite, config, later + timedelta(hours=1), agents=[AGENT]) == [MUMU]


def test_consolidate_due_trims_a_long_inactive_person(sqlite: Store) -> None:
    sqlite.upsert_person(AGENT, Person(id="木木", name="木木"))
    put(sqlite, HASH, [chunk(f"c{i}", at(1, 9, i), f"第{i}句", scope=MUMU, importance=0.1 * (i + 1)) for i in range(4)])
    config = ConsolidateConfig(forget=ForgetConfig(minimum=1, inactive_days=30))
    later = at(1, 9) + timedelta(days=60)
    (report,) = asyncio.run(consolidate_due(sqlite, HASH, config, later, agents=[AGENT]))
    assert [c.ids[0] for c in report.of("delete")] == ["c0", "c1", "c2"]
    assert asyncio.run(consolidate_due(sqlite, HASH, config, later + timedelta(days=1), agents=[AGENT])) == []


def test_consolidate_due_finds_scopes_from_extraction_jobs(sqlite: Store) -> None:
    from huiyi.model import Job

    sqlite.enqueue_job(Job(kind="fold", agent=AGENT, key="k", payload={"space": "g1", "scope": GROUP.tag}))
    put(sqlite, HASH, [event("e", NOW - timedelta(hours=1), "群里很热闹", [])])
    assert due_scopes(sqlite, ConsolidateConfig(), NOW) == [GROUP]


@pytest.mark.parametrize(
    "name",
    [
        "huiyi.config.consolidate",
        "huiyi.flows.consolidate.report",
        "huiyi.flows.consolidate.state",
        "huiyi.flows.consolidate.supersede",
    ],
)
def test_docstring_examples(name: str) -> None:
    failures, tried = doctest.testmod(importlib.import_module(name))
    assert tried and not failures


class _FixedEmbedder(HashEmbedder):
    """Hash vectors, except for names given a vector: two of them at a chosen cosine."""

    def __init__(self, fixed: dict[str, list[float]]) -> None:
        super().__init__(64)
        self.fixed = fixed

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        vectors = super().embed_passages(texts)
        for row, text in enumerate(texts):
            if text in self.fixed:
                vectors[row] = 0.0
                vectors[row, : len(self.fixed[text])] = self.fixed[text]
        return vectors


def test_shared_neighbours_alone_do_not_merge_in_the_band(sqlite: Store) -> None:
    """Issue #13: 汪曾祺的散文 and 布偶猫汤圆 (cosine 0.892) both belong to 苏霓; that is no reason to merge."""
    other = (1 - 0.892**2) ** 0.5
    fixed = _FixedEmbedder({"汪曾祺的散文": [1.0, 0.0], "布偶猫汤圆": [0.892, other], "南京大学": [0.0, 0.0, 1.0],
                            "南大": [0.0, 0.0, 0.92, (1 - 0.92**2) ** 0.5]})  # fmt: skip
    for name in ("汪曾祺的散文", "布偶猫汤圆", "南京大学", "南大", "西湖", "鼓楼区"):
        entity(sqlite, fixed, GROUP, name, EntityType.SPECIFIC)
    edges = [("汪曾祺的散文", "在", "西湖"), ("布偶猫汤圆", "在", "西湖"), ("南京大学", "位于", "鼓楼区"),
             ("南大", "位于", "鼓楼区")]  # fmt: skip
    put(sqlite, fixed, [
        fact(f"f{i}", at(1, 9 + i), edge, "".join(edge), kind="relation", object_type="specific")
        for i, edge in enumerate(edges)
    ])  # fmt: skip
    merged = {frozenset(c.before.values()) for c in run(sqlite, embedder=fixed).of("merge_entity")}
    assert merged == {frozenset({"南京大学", "南大"})}


def test_a_merged_fact_is_stamped_by_the_stores_clock(sqlite: Store) -> None:
    """``created_at`` is the store's zone-less UTC moment, as every other memory's: never the run's
    wall-clock ``now`` (Asia/Shanghai's is 8 hours ahead)."""
    written = NOW - timedelta(hours=8)
    sqlite.clock = lambda: written
    llm_scene(sqlite)
    report = asyncio.run(consolidate(sqlite, HASH, MUMU, NOW, ConsolidateConfig()))
    (done,) = report.of("merge_facts")
    assert memory(sqlite, done.ids[0]).created_at == written
