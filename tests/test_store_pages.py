"""The store contract for paging memories: a page after a mark neither skips nor repeats a memory
when others are written or deleted between pages, on every backend."""

from __future__ import annotations

from datetime import datetime, timedelta

from huiyi.model import Entity, Job, JobState, MemoryItem, MemoryKind, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store, Terms
from huiyi.store.jobs import RunReport
from huiyi.store.pages import ListMark
from huiyi.text import tokens

EMB = HashEmbedder(16)
T0 = datetime(2024, 5, 1, 9, 0, 0, 123457)  # microseconds: a mark must find its row again to the last digit
MUMU = Scope.of_person("qy", "mumu")


def add(store: Store, texts: list[str], scope: Scope = MUMU, time: datetime | None = None) -> list[MemoryItem]:
    items = [MemoryItem(scope=scope, kind=MemoryKind.NOTE, text=t, time=time or T0) for t in texts]
    terms = [Terms(tokens.words(i.text), tokens.chars(i.text)) for i in items]
    store.add_memories(items, EMB.embed_passages([i.text for i in items]), terms)
    return items


def walk(store: Store, scope: Scope = MUMU, size: int = 2) -> list[str]:
    seen: list[str] = []
    after: ListMark | None = None
    while page := store.page_memories([scope], None, size, after):
        seen += [item.text for item, _ in page]
        after = page[-1][1]
    return seen


def test_pages_follow_the_list_order(store: Store) -> None:
    add(store, ["旧"], time=T0 - timedelta(days=1))
    add(store, ["甲", "乙", "丙"])  # one time: newest written first
    add(store, ["新"], time=T0 + timedelta(days=1))
    assert walk(store) == [m.text for m in store.list_memories([MUMU])] == ["新", "丙", "乙", "甲", "旧"]


def test_a_deletion_between_pages_skips_nothing(store: Store) -> None:
    items = [add(store, [f"第{i}条"], time=T0 + timedelta(days=i))[0] for i in range(5)]
    first = store.page_memories([MUMU], None, 2, None)
    assert [item.text for item, _ in first] == ["第4条", "第3条"]
    store.delete_memories("qy", [items[4].id, items[3].id])  # the page just read, mark and all
    second = store.page_memories([MUMU], None, 2, first[-1][1])
    assert [item.text for item, _ in second] == ["第2条", "第1条"]


def test_a_newer_memory_between_pages_repeats_nothing(store: Store) -> None:
    add(store, ["一", "二", "三"])
    first = store.page_memories([MUMU], None, 2, None)
    add(store, ["后来"], time=T0 + timedelta(hours=1))
    add(store, ["同时"])  # on the same key, written later: before the mark, so not on the next page
    assert [item.text for item, _ in store.page_memories([MUMU], None, 2, first[-1][1])] == ["一"]


def test_a_mark_reads_only_the_scopes_asked(store: Store) -> None:
    add(store, ["木木的"])
    add(store, ["阿哲的秘密"], scope=Scope.of_person("qy", "azhe"), time=T0 - timedelta(days=1))
    add(store, ["别人的秘密"], scope=Scope.of_person("other", "mumu"), time=T0 - timedelta(days=1))
    mark = store.page_memories([MUMU], None, 1, None)[0][1]
    assert store.page_memories([MUMU], None, 10, mark) == []
    assert store.page_memories([MUMU], [MemoryKind.EVENT], 10, None) == []


def test_jobs_after_a_mark_skip_none_when_those_read_are_erased(store: Store) -> None:
    for i in range(5):
        scope = "person:x" if i < 2 else "person:y"
        job = Job(kind="fold", agent="qy", key=f"k{i}", payload={"scope": scope}, created_at=T0 + timedelta(minutes=i))
        store.enqueue_job(job)
    store.enqueue_job(Job(kind="fold", agent="other", key="k9", created_at=T0 + timedelta(days=1)))
    first = store.list_jobs("qy", (), 2)
    assert [job.key for job in first] == ["k0", "k1"]
    assert store.erase("qy", [], person="x").jobs == 2  # the jobs just read go
    assert first[-1].created_at is not None
    after = (first[-1].created_at, first[-1].id)
    assert [job.key for job in store.list_jobs("qy", (), 2, after)] == ["k2", "k3"]
    assert [job.key for job in store.list_jobs("qy", [JobState.PENDING], 9, after)] == ["k2", "k3", "k4"]


def test_reports_after_a_mark_keep_their_place_when_one_is_added_again(store: Store) -> None:
    def report(n: int, scope: str = "person:x") -> RunReport:
        return RunReport(id=f"rep_{n}", agent="qy", scope=scope, kind="consolidate", at=T0 + timedelta(minutes=n))

    for n in range(5):
        store.add_report(report(n))
    store.add_report(report(9, "person:y"))
    store.add_report(RunReport(id="rep_8", agent="other", scope="official", kind="summarize", at=T0))
    first = store.list_reports("qy", "person:x", 2)
    assert [r.id for r in first] == ["rep_4", "rep_3"]
    store.add_report(report(0))  # the oldest kept again: SQLite gave it a new row number, the newest
    after = (first[-1].at, first[-1].id)
    assert [r.id for r in store.list_reports("qy", "person:x", 9, after)] == ["rep_2", "rep_1", "rep_0"]
    assert [r.id for r in store.list_reports("qy", None, 2, after)] == ["rep_2", "rep_1"]
    assert [r.id for r in store.list_reports("qy", None, 9)] == ["rep_9", "rep_4", "rep_3", "rep_2", "rep_1", "rep_0"]


def test_entities_after_a_mark_skip_none_when_those_read_are_deleted(store: Store) -> None:
    vector = EMB.embed_passages(["x"])[0]
    for name in ("甲", "乙", "丙", "丁"):
        store.upsert_entity(Entity(id=f"e_{name}", scope=MUMU, name=name), vector)
    store.upsert_entity(Entity(id="e_别人", scope=Scope.of_person("qy", "other"), name="戊"), vector)
    first = store.page_entities([MUMU], False, 2, None)
    assert [entity.name for entity, _ in first] == ["甲", "乙"]
    assert store.delete_entities("qy", ["e_甲", "e_乙"]) == 2
    store.upsert_entity(Entity(id="e_丙", scope=MUMU, name="丙", aliases=["小丙"]), vector)  # corrected in place
    rest = store.page_entities([MUMU], False, 9, first[-1][1])
    assert [(entity.name, entity.aliases) for entity, _ in rest] == [("丙", ["小丙"]), ("丁", [])]
    assert store.page_entities([MUMU], False, 9, rest[-1][1]) == []
