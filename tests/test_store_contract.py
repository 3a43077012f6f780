"""The store contract: every backend must pass these, unchanged."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from huiyi.config import Config
from huiyi.errors import InvalidInput, SchemaTooNew, StoreError
from huiyi.flows import ingest
from huiyi.model import (
    Entity,
    EntityType,
    Job,
    JobState,
    Link,
    LinkKind,
    MemoryItem,
    MemoryKind,
    Message,
    Person,
    Scope,
)
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Claim, MemoryFilter, Store, Terms, Writes
from huiyi.store.jobs import RunReport
from huiyi.store.rows import EVERY_SPEAKER
from huiyi.store.sqlite import SQLiteStore
from huiyi.text import tokens

EMB = HashEmbedder(64)
T0 = datetime(2024, 5, 1, 9, 0)


def message(i: int, *, agent: str = "qy", space: str = "person:mumu", person: str = "mumu") -> Message:
    return Message(
        id=f"m{i}",
        agent=agent,
        space=space,
        scope=Scope.of_person(agent, person),
        speaker=person,
        role="user",
        text=f"第{i}句话",
        time=T0 + timedelta(minutes=i),
    )


def memory_item(text: str, scope: Scope, **extra: object) -> MemoryItem:
    fields: dict[str, object] = {"time": T0, **extra}
    return MemoryItem(scope=scope, kind=MemoryKind.NOTE, text=text, **fields)  # type: ignore[arg-type]


def add(store: Store, items: list[MemoryItem]) -> None:
    terms = [Terms(tokens.words(i.text), tokens.chars(i.text)) for i in items]
    store.add_memories(items, EMB.embed_passages([i.text for i in items]), terms)


def test_a_message_id_another_conversation_holds_is_refused_and_the_batch_written_not_at_all(store: Store) -> None:
    from huiyi.errors import InvalidInput

    assert [m.id for m in store.append_messages([message(1)])] == ["m1"]
    assert store.append_messages([message(1)]) == []  # a resend in its own chat: nothing to do
    alice = {"space": "person:alice", "person": "alice"}
    for batch in ([message(1, **alice)], [message(5, **alice), message(1, **alice)]):  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="'m1' is already used in another conversation"):
            store.append_messages(batch)
    assert store.get_messages("qy", ["m5"]) == []
    assert [m.text for m in store.recent_messages("qy", "person:mumu", 10)] == ["第1句话"]


def test_store_is_a_store(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.schema_version() >= 1


def test_messages_are_appended_once_with_sequence(store: Store) -> None:
    first = store.append_messages([message(1), message(2)])
    assert [m.seq for m in first] == [1, 2]
    again = store.append_messages([message(2), message(3)])
    assert [(m.id, m.seq) for m in again] == [("m3", 3)]
    assert [m.id for m in store.recent_messages("qy", "person:mumu", 10)] == ["m1", "m2", "m3"]
    assert [m.id for m in store.recent_messages("qy", "person:mumu", 1, before_seq=3)] == ["m2"]
    assert store.get_messages("qy", ["m3", "m1", "nope"])[0].text == "第3句话"
    assert store.get_messages("other-agent", ["m1"]) == []


def test_messages_between_are_found_by_when_they_were_said(store: Store) -> None:
    """A day's summary paged back from the newest seq and stopped at history imported after the chat: older
    lines under newer seqs hid the day (helper). Found by time, in the order stored."""
    store.append_messages([message(i) for i in (5, 6, 7)])  # the chat, then its history imported
    store.append_messages([message(i).model_copy(update={"time": T0 - timedelta(days=30, minutes=-i)}) for i in (1, 2)])
    store.append_messages([message(9, space="person:ann", person="ann")])

    def ids(start: datetime, end: datetime) -> list[str]:
        return [m.id for m in store.messages_between("qy", "person:mumu", start, end)]

    assert ids(T0, T0 + timedelta(days=1)) == ["m5", "m6", "m7"]
    assert ids(T0 + timedelta(minutes=6), T0 + timedelta(minutes=7)) == ["m6"]  # from start, to before end
    assert ids(T0 - timedelta(days=31), T0) == ["m1", "m2"]
    assert ids(T0 - timedelta(days=31), T0 + timedelta(days=1)) == ["m5", "m6", "m7", "m1", "m2"]
    assert store.messages_between("other-agent", "person:mumu", T0, T0 + timedelta(days=1)) == []


def test_recent_messages_from_a_seq_reads_none_before_it(store: Store) -> None:
    store.append_messages([message(i) for i in range(1, 7)])
    store.append_messages([message(9, space="person:ann", person="ann")])

    def ids(limit: int, before_seq: int | None = None, from_seq: int | None = None) -> list[str]:
        return [m.id for m in store.recent_messages("qy", "person:mumu", limit, before_seq, from_seq=from_seq)]

    assert ids(10, from_seq=4) == ["m4", "m5", "m6"]
    assert ids(2, from_seq=2) == ["m5", "m6"]  # still the newest
    assert ids(10, before_seq=5, from_seq=3) == ["m3", "m4"]
    assert ids(10, from_seq=1) == ids(10) == [f"m{i}" for i in range(1, 7)]
    assert ids(10, from_seq=7) == []
    assert ids(10, before_seq=3, from_seq=3) == []


def test_who_spoke_in_a_space_is_told_by_its_messages_alone(store: Store) -> None:
    store.append_messages([message(1), message(2, person="ann", space="person:ann")])
    assert store.spoke_in("qy", "person:mumu", ["mumu", "ann", "nobody"]) == {"mumu"}
    assert store.spoke_in("other-agent", "person:mumu", ["mumu"]) == set()
    assert store.spoke_in("qy", "person:mumu", []) == set()


def test_everyone_who_spoke_in_a_space_is_told_by_its_messages_alone(store: Store) -> None:
    def said(i: int, who: str, space: str, agent: str = "qy") -> Message:
        scope = Scope.of_space(agent, space)
        return Message(
            id=f"m{i}", agent=agent, space=scope.tag, scope=scope, speaker=who, role="user", text="嗯", time=T0
        )

    group = [said(i, who, "g") for i, who in enumerate(["mumu", "ann", "mumu", "bob"], start=3)]
    store.append_messages([*group, said(1, "eve", "g2"), said(2, "zed", "g", agent="other-agent"), message(9)])
    assert store.spoke_in("qy", "space:g", None) == {"mumu", "ann", "bob"}
    assert store.spoke_in("qy", "space:g2", None) == {"eve"}
    assert store.spoke_in("qy", "space:nowhere", None) == set()


def test_whether_a_member_spoke_in_a_group_is_looked_up_not_read_from_the_whole_group(tmp_path: Path) -> None:
    """A named member who never spoke in a group of 100k lines read every line of it (20 ms a recall)."""
    store = SQLiteStore(tmp_path)
    try:
        plans = [
            " ".join(str(row[-1]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", args))
            for conn in [sqlite3.connect(store.path)]
            for sql, args in [
                ("SELECT 1 FROM messages WHERE agent = ? AND space = ? AND speaker = ? LIMIT 1", ("qy", "g", "x")),
                ("SELECT id FROM messages WHERE agent = ? AND speaker = ?", ("qy", "x")),
                (EVERY_SPEAKER.replace("%s", "?"), ("qy", "g", "qy", "g")),
            ]
        ]
        indexed = ("messages_speaker", "messages_space_speaker")
        assert all(any(i in plan for i in indexed) and "SCAN messages" not in plan for plan in plans), plans
        assert "messages_space_speaker" in plans[-1]  # a seek per speaker of the space, not of the agent
    finally:
        store.close()


def test_unindexed_messages_until_memories_mark_them(store: Store) -> None:
    store.append_messages([message(1), message(2)])
    assert [m.id for m in store.unindexed_messages(10)] == ["m1", "m2"]
    item = memory_item("第1句话", Scope.of_person("qy", "mumu"), sources=["m1"])
    store.add_memories([item], EMB.embed_passages([item.text]), [Terms(["第", "1"], [])], [("qy", "m1")])
    assert [m.id for m in store.unindexed_messages(10)] == ["m2"]


def test_unindexed_messages_of_some_scopes_are_their_newest(store: Store) -> None:
    """Recall's keyword tail (memory.indexing): only the scopes asked, the newest ``limit``, oldest first."""
    mumu, other = Scope.of_person("qy", "mumu"), Scope.of_person("qy", "xiao")
    store.append_messages([message(1), message(2), message(3)])
    store.append_messages([message(4, space="person:xiao", person="xiao")])
    store.append_messages([message(5, agent="zz")])  # another agent's, under a scope of the same name
    assert [m.id for m in store.unindexed_messages(2, [mumu])] == ["m2", "m3"]
    assert [m.id for m in store.unindexed_messages(10, [Scope.official("qy"), other])] == ["m4"]
    assert store.unindexed_messages(10, []) == []
    item = memory_item("第3句话", mumu, sources=["m3"])
    store.add_memories([item], EMB.embed_passages([item.text]), [Terms(["第", "3"], [])], [("qy", "m3")])
    assert [m.id for m in store.unindexed_messages(10, [mumu])] == ["m1", "m2"]


def test_unindexed_messages_kept_by_their_text_are_the_only_ones_read_whole(store: Store) -> None:
    """Recall reads a thousand waiting lines' texts and decodes only those holding its terms."""
    mumu = Scope.of_person("qy", "mumu")
    store.append_messages([message(1), message(2), message(3), message(4)])
    texts: list[str] = []

    def keep(text: str) -> bool:
        texts.append(text)
        return text != store.get_messages("qy", ["m3"])[0].text

    assert [m.id for m in store.unindexed_messages(3, [mumu], keep)] == ["m2", "m4"]
    assert len(texts) == 3  # the newest three, each looked at once
    assert store.unindexed_messages(3, [mumu], lambda text: False) == []


def test_unindexed_with_versions_answers_as_the_three_reads(store: Store) -> None:
    """Recall's first read (memory.indexing): its keyword tail, its entities version and its agent's persons
    version, in one round trip."""
    mumu, group = Scope.of_person("qy", "mumu"), Scope.of_space("qy", "g1")
    scopes = [Scope.official("qy"), mumu, group]
    assert store.unindexed_with_versions(10, scopes) == ([], (store.entities_version(scopes), 0))
    store.upsert_entity(Entity(scope=mumu, name="团子"), EMB.embed_passages(["团子"])[0])
    store.upsert_person("qy", Person(id="mumu", name="木木"))
    store.upsert_person("zz", Person(id="mumu", name="木木"))
    store.append_messages([message(1), message(2), message(3)])
    store.append_messages([message(4, agent="zz")])  # another agent's, under a scope of the same name
    keep = lambda text: text != store.get_messages("qy", ["m2"])[0].text  # noqa: E731
    for limit, kept in [(10, None), (2, None), (10, keep), (3, lambda text: False)]:
        found, versions = store.unindexed_with_versions(limit, scopes, kept)
        assert found == store.unindexed_messages(limit, scopes, kept)
        assert versions == (store.entities_version(scopes), store.persons_version("qy"))
    assert [m.id for m in store.unindexed_with_versions(10, scopes, keep)[0]] == ["m1", "m3"]
    assert store.unindexed_with_versions(10, []) == ([], (store.entities_version([]), 0))


def test_every_write_to_a_persons_names_moves_the_agents_persons_version(store: Store) -> None:
    """Recall keeps an agent's persons while this version stands (recall.people): a person added, renamed,
    given or taken an alias, or erased moves it; a write that changes no name, or another agent's, does not."""
    seen = [store.persons_version("qy")]

    def moved(by: bool = True) -> None:
        seen.append(store.persons_version("qy"))
        assert seen[-1] > seen[-2] if by else seen[-1] == seen[-2]

    store.upsert_person("qy", Person(id="mumu", name="木木"))
    moved()
    store.upsert_person("qy", Person(id="mumu", name="木木"))
    moved(by=False)  # the same names again: an import sends every speaker each time
    store.upsert_person("qy", Person(id="mumu", name="木木", platform_ids={"qq": "123"}))
    moved(by=False)
    store.upsert_person("qy", Person(id="mumu", name="木木", aliases=["木头"], platform_ids={"qq": "123"}))
    moved()
    store.upsert_person("qy", Person(id="mumu", name="林木", aliases=["木头"], platform_ids={"qq": "123"}))
    moved()
    store.upsert_person("qy", Person(id="suni", name="苏霓"))
    moved()
    store.upsert_person("zz", Person(id="mumu", name="别人"))
    moved(by=False)
    store.erase("qy", [], person="mumu")
    moved()
    store.erase("qy", [], person="nobody")  # no record went
    moved(by=False)
    store.upsert_person("qy", Person(id="mumu", name="木木"))
    moved()


def test_claiming_unindexed_messages_is_exclusive(store: Store) -> None:
    store.append_messages([message(1), message(2), message(3)])
    assert [m.id for m in store.claim_unindexed("w1", T0, 60, 2)] == ["m1", "m2"]
    assert [m.id for m in store.claim_unindexed("w2", T0, 60, 10)] == ["m3"]
    assert store.claim_unindexed("w3", T0, 60, 10) == []
    assert [m.id for m in store.unindexed_messages(10)] == ["m1", "m2", "m3"]  # claimed is not indexed


def test_an_expired_claim_can_be_taken_and_a_released_one_at_once(store: Store) -> None:
    store.append_messages([message(1), message(2)])
    assert len(store.claim_unindexed("dead", T0, 60, 10)) == 2
    assert store.claim_unindexed("w2", T0 + timedelta(seconds=30), 60, 10) == []  # the lease still holds
    taken = store.claim_unindexed("w2", T0 + timedelta(seconds=61), 60, 10)
    assert [(m.id, m.seq) for m in taken] == [("m1", 1), ("m2", 2)]
    store.release_messages("someone-else", [("qy", "m1")])  # only the holder can release
    assert store.claim_unindexed("w3", T0 + timedelta(seconds=62), 60, 10) == []
    store.release_messages("w2", [("qy", "m1")])
    assert [m.id for m in store.claim_unindexed("w3", T0 + timedelta(seconds=62), 60, 10)] == ["m1"]


def test_claims_of_a_dead_claimer_are_given_back_at_once(store: Store) -> None:
    store.append_messages([message(1), message(2)])
    assert len(store.claim_unindexed("host:1:gone", T0, 300, 1)) == 1
    assert len(store.claim_unindexed("host:2:alive", T0, 300, 1)) == 1
    assert store.release_claims(lambda claimer: claimer.endswith(":gone")) == 1
    assert [m.id for m in store.claim_unindexed("opener", T0, 300, 10)] == ["m1"]  # the live one keeps m2


def test_a_claim_of_a_process_of_this_machine_that_died_is_dead() -> None:
    import os
    import socket
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname()
    assert ingest.dead_here(f"{host}:{done.stdout.strip()}:x")  # exited: its claims are free
    assert not ingest.dead_here(f"{host}:{os.getpid()}:x")  # this process lives
    assert not ingest.dead_here(f"another-host:{done.stdout.strip()}:x")  # elsewhere: the lease decides


def test_messages_appended_under_a_claim_are_not_taken_by_others(store: Store) -> None:
    stored = store.append_messages([message(1)], Claim("adder", T0 + timedelta(seconds=60)))
    assert [m.id for m in stored] == ["m1"]
    assert store.claim_unindexed("opener", T0, 60, 10) == []
    assert [m.id for m in store.claim_unindexed("opener", T0 + timedelta(seconds=61), 60, 10)] == ["m1"]


def test_indexing_the_same_message_twice_writes_one_chunk(store: Store) -> None:
    stored = store.append_messages([message(1), message(2)])
    ingest.index_messages(store, EMB, stored, Config())
    ingest.index_messages(store, EMB, stored, Config())  # a second process that raced the first
    chunks = store.list_memories([Scope.of_person("qy", "mumu")], [MemoryKind.CHUNK])
    assert sorted(c.sources[0] for c in chunks) == ["m1", "m2"]
    assert store.unindexed_messages(10) == []


def test_chunks_keep_their_turn_alone_beside_their_context(store: Store) -> None:
    """Recall tells the turn that says it from the chunks after it by the turn's own vector (issue #17)."""
    stored = store.append_messages([message(1), message(2), message(3)])
    ingest.index_messages(store, EMB, stored, Config(chunk={"own_vector": True}))
    chunks = {c.sources[0]: c for c in store.list_memories([Scope.of_person("qy", "mumu")], [MemoryKind.CHUNK])}
    ids = [chunks[m].id for m in ("m1", "m2", "m3")]
    own = store.own_vectors("qy", ids)
    assert sorted(own) == sorted(ids)
    for m in ("m1", "m2", "m3"):  # the turn alone, not the turn with the two before it
        expected = EMB.embed_passages([chunks[m].text])[0]
        assert np.allclose(own[chunks[m].id], expected, atol=2e-3)
    # the same rows as one matrix, in the answer's order: recall scores them in one product
    assert np.array_equal(own.matrix, np.stack([own[i] for i in own]))
    with_context = {h.id: h.score for h in store.search_dense([chunks["m3"].scope], own[ids[2]], 3).hits}
    assert with_context[ids[2]] < 0.99  # its stored vector still carries m1 and m2
    assert store.own_vectors("another-agent", ids) == {}
    store.delete_memories("qy", [ids[0]])
    assert sorted(store.own_vectors("qy", ids)) == sorted(ids[1:])


def test_erased_messages_take_their_own_vectors_out_of_recall(store: Store) -> None:
    """Own-line vectors recall read are kept in memory (store.owncache): an erasure must not leave them."""
    stored = store.append_messages([message(1), message(2), message(3)])
    ingest.index_messages(store, EMB, stored, Config(chunk={"own_vector": True}))
    chunks = {c.sources[0]: c.id for c in store.list_memories([Scope.of_person("qy", "mumu")], [MemoryKind.CHUNK])}
    ids = list(chunks.values())
    assert sorted(store.own_vectors("qy", ids)) == sorted(ids)  # read, so kept
    store.erase("qy", ["m2"])
    left = store.own_vectors("qy", ids)
    assert chunks["m2"] not in left and chunks["m1"] in left


def test_a_memory_made_from_what_an_erasure_took_meanwhile_is_not_written(store: Store) -> None:
    """A merge or summary planned from what it read before an erasure (another process's) must not write the
    erased back: each of its sources must still be a message or a memory when it lands."""
    scope = Scope.of_person("qy", "mumu")
    store.append_messages([message(1), message(2), message(3)])
    store.erase("qy", ["m2"])  # after the merge below read m2
    merged = memory_item("木木喜欢猫，也喜欢狗", scope, sources=["m1", "m2"])
    summary = memory_item("木木聊了猫", scope, sources=["m1", "m3"])
    of_merged = memory_item("木木的总结", scope, sources=[merged.id])  # made from the merge: goes with it
    ahead = memory_item("同一批里的", scope, sources=[summary.id])  # made from a memory of the same batch
    items = [merged, summary, of_merged, ahead]
    terms = [Terms(tokens.words(i.text), tokens.chars(i.text)) for i in items]
    made_from = [item.sources for item in items]
    writes = Writes(
        memories=items, vectors=EMB.embed_passages([i.text for i in items]), terms=terms, made_from=made_from
    )
    store.apply(writes)
    kept = {m.id for m in store.list_memories([scope])}
    assert merged.id not in kept and of_merged.id not in kept and summary.id in kept and ahead.id in kept
    # a caller's own sources are not checked: they may name what the store never held
    note = memory_item("外部的", scope, sources=["elsewhere:42"])
    add(store, [note])
    assert note.id in {m.id for m in store.list_memories([scope])}


def test_two_writers_indexing_the_same_messages_at_once_both_finish(store: Store) -> None:
    """An opener taking over a backlog may index what another writer is indexing: on PostgreSQL two share
    locks upgraded at the indexed flag deadlocked, and one writer failed."""
    stored = store.append_messages([message(i) for i in range(40)])
    failures: list[BaseException] = []
    start = threading.Barrier(2)

    def index() -> None:
        start.wait()
        try:
            for at in range(0, len(stored), 4):
                ingest.index_messages(store, EMB, stored[at : at + 4], Config())
        except BaseException as exc:
            failures.append(exc)

    writers = [threading.Thread(target=index) for _ in range(2)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
    assert not failures
    chunks = store.list_memories([Scope.of_person("qy", "mumu")], [MemoryKind.CHUNK], limit=1000)
    assert sorted(c.sources[0] for c in chunks) == sorted(m.id for m in stored)


def test_a_report_of_a_run_that_an_erasure_overtook_is_not_kept(store: Store) -> None:
    """A consolidation or summary that read what an erasure (in another process) then took may quote it in its
    report: a report is kept only if no erasure ran since its run began."""
    store.append_messages([message(1), message(2)])
    before = store.erasures()
    store.erase("qy", ["m1"])
    assert store.erasures() == before + 1
    late = RunReport(agent="qy", scope="person:mumu", kind="consolidate", at=T0, body={"quote": "第1句话"})
    assert store.add_report(late, before) is False
    assert store.list_reports("qy") == []
    kept = RunReport(agent="qy", scope="person:mumu", kind="consolidate", at=T0, body={"quote": "第2句话"})
    assert store.add_report(kept, store.erasures()) is True and store.add_report(kept.model_copy(), None) is True
    assert [r.id for r in store.list_reports("qy")] == [kept.id]


def test_turn_alone_chunks_and_other_memories_have_no_own_vector(store: Store) -> None:
    stored = store.append_messages([message(1), message(2)])
    ingest.index_messages(store, EMB, stored, Config(chunk={"context": "turn", "own_vector": True}))
    note = memory_item("木木喜欢猫", Scope.of_person("qy", "mumu"))
    add(store, [note])
    ids = [c.id for c in store.list_memories([Scope.of_person("qy", "mumu")])]
    assert len(ids) == 3
    assert store.own_vectors("qy", ids) == {}


def test_own_vectors_must_match_the_memories(store: Store) -> None:
    items = [memory_item("木木喜欢猫", Scope.of_person("qy", "mumu"))]
    with pytest.raises(StoreError):
        store.add_memories(items, EMB.embed_passages(["a"]), [Terms()], own_vectors=EMB.embed_passages(["a", "b"]))
    assert store.count_memories("qy") == 0


def test_memories_round_trip_every_field(store: Store) -> None:
    scope = Scope.of_space("qy", "g1")
    item = MemoryItem(
        scope=scope,
        kind=MemoryKind.EVENT,
        text="木木在南京大学图书馆翻阅借阅指南 📚",
        time=datetime(2018, 9, 30, 15, 30, 45),
        place="南京大学图书馆",
        participants=["木木", "祈煜"],
        keywords=["图书馆", "借阅"],
        insight="木木对规则好奇",
        importance=0.8,
        strength=3.0,
        sources=["m1", "m2"],
        data={"scene": "校园"},
    )
    add(store, [item])
    got = store.get_memories("qy", [item.id])[0]
    assert got.model_dump(exclude={"created_at"}) == item.model_dump(exclude={"created_at"})
    assert got.created_at is not None
    assert store.get_memories("another-agent", [item.id]) == []


def test_delete_removes_from_every_index(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    keep, gone = memory_item("木木喜欢猫", scope), memory_item("木木喜欢狗", scope)
    add(store, [keep, gone])
    assert store.delete_memories("other", [gone.id]) == 0
    assert store.delete_memories("qy", [gone.id]) == 1
    assert store.get_memories("qy", [gone.id]) == []
    vector = EMB.embed_queries(["木木喜欢狗"])[0]
    assert gone.id not in [h.id for h in store.search_dense([scope], vector, 10).hits]
    assert gone.id not in [h.id for h in store.search_keyword([scope], Terms(["狗"], ["狗"]), 10).hits]
    assert store.count_memories("qy") == 1


def test_keyword_search_finds_chinese_words_and_characters(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    texts = ["木木在南京大学图书馆看书", "今天吃了云南米线", "周末去海边看日出"]
    add(store, [memory_item(t, scope) for t in texts])
    by_word = store.search_keyword([scope], Terms(["图书馆"], []), 5).hits
    assert [store.get_memories("qy", [h.id])[0].text for h in by_word] == [texts[0]]
    # 米 alone is not a word of any text, but it is a character of one
    by_char = store.search_keyword([scope], Terms([], ["米"]), 5).hits
    assert [store.get_memories("qy", [h.id])[0].text for h in by_char] == [texts[1]]
    assert all(h.score > 0 for h in by_word + by_char)


def test_keyword_search_survives_fts_syntax_in_terms(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    add(store, [memory_item('he said "NEAR(a b)" AND OR * ^', scope)])
    hits = store.search_keyword([scope], Terms(['"near', "and", "or", "*", "^", "a)"], []), 5).hits
    assert len(hits) <= 1  # no syntax error, whatever matches


def test_english_words_are_stemmed(store: Store) -> None:
    scope = Scope.of_person("qy", "caroline")
    add(store, [memory_item("Caroline went hiking with friends", scope)])
    assert len(store.search_keyword([scope], Terms(["hike"], []), 5).hits) == 1


def test_dense_search_is_exact_and_scoped(store: Store) -> None:
    mine, other = Scope.of_person("qy", "mumu"), Scope.of_person("qy", "azhe")
    texts = [f"记忆{i}号" for i in range(30)]
    add(store, [memory_item(t, mine) for t in texts])
    add(store, [memory_item(t, other) for t in texts])
    query = EMB.embed_queries(["记忆7号"])[0]
    hits = store.search_dense([mine], query, 5).hits
    assert len(hits) == 3  # 记忆7号 and the two next to it; the next score is shared across the cut
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    found = store.get_memories("qy", [h.id for h in hits])
    assert all(m.scope == mine for m in found)
    assert found[0].text == "记忆7号"
    assert scores[0] == pytest.approx(1.0, abs=1e-2)  # float16 on disk


def test_rows_that_score_alike_across_the_cut_are_all_left_out(store: Store) -> None:
    """Which of several equal scores filled the tail followed the order the rows were written in, so a
    chat added per message and per chat recalled differently; the scan keeps none of them."""
    scope = Scope.of_person("qy", "mumu")
    texts = ["记忆8号", "记忆7号", "记忆7号", "记忆7号", "今天下雨"]
    for order in (texts, texts[::-1]):  # the same rows written the other way round: the same answer
        store.delete_memories("qy", [m.id for m in store.list_memories([scope])])
        add(store, [memory_item(t, scope) for t in order])
        query = EMB.embed_queries(["记忆7号"])[0]
        texts_of = {m.id: m.text for m in store.list_memories([scope])}
        assert [texts_of[h.id] for h in store.search_dense([scope], query, 2).hits] == []
        three = [texts_of[h.id] for h in store.search_dense([scope], query, 3).hits]
        assert three == ["记忆7号"] * 3
        four = [texts_of[h.id] for h in store.search_dense([scope], query, 4).hits]
        assert four == ["记忆7号"] * 3 + ["记忆8号"]  # no tie at the cut: as many as asked


def test_dense_scores_of_any_candidate(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    add(store, [memory_item(f"第{i}条", scope) for i in range(10)])
    query = EMB.embed_queries(["第3条"])[0]
    result = store.search_dense([scope], query, 1)
    keyword_hits = store.search_keyword([scope], Terms([], ["条"]), 10).hits
    scores = result.score_of([h.key for h in keyword_hits])
    assert max(scores) == pytest.approx(result.hits[0].score)
    assert result.score_of([10**9]) == [0.0]


def test_search_sees_writes_made_after_the_cache_was_filled(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    add(store, [memory_item("第一条", scope)])
    query = EMB.embed_queries(["第二条"])[0]
    store.search_dense([scope], query, 5)  # fills the in-memory matrix
    later = memory_item("第二条", scope)
    add(store, [later])
    assert store.search_dense([scope], query, 1).hits[0].id == later.id


def test_list_count_and_access(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    items = [memory_item(f"第{i}条", scope, time=T0 + timedelta(days=i)) for i in range(5)]
    add(store, items)
    assert store.count_memories(scopes=[scope]) == 5
    assert store.count_memories(scopes=[Scope.of_person("qy", "x")]) == 0
    newest = store.list_memories([scope], limit=2)
    assert [m.text for m in newest] == ["第4条", "第3条"]
    assert store.list_memories([scope], kinds=[MemoryKind.EVENT]) == []
    store.record_access("qy", [items[0].id], T0 + timedelta(days=9))
    got = store.get_memories("qy", [items[0].id])[0]
    assert (got.access_count, got.last_access) == (1, T0 + timedelta(days=9))


def test_find_memories_filters_in_the_store(store: Store) -> None:
    """A person's current fact of one kind is found among many, whatever their number (recall.slots)."""
    scope = Scope.of_person("qy", "mumu")

    def fact(text: str, day: int, subject: str, keyword: str, **extra: object) -> MemoryItem:
        data = {"subject": subject, "predicate": "住在" if keyword == "住址" else "喜欢", "keyword": keyword}
        fields: dict[str, object] = {"time": T0 + timedelta(days=day), "data": data, **extra}
        return MemoryItem(scope=scope, kind=MemoryKind.FACT, text=text, **fields)  # type: ignore[arg-type]

    home = fact("木木住在上海", 0, "木木", "住址")
    old = fact("木木住在北京", -5, "木木", "住址", valid_to=T0 - timedelta(days=1))
    said_late = fact("木木住在杭州", 0, "木木", "住址", said_at=T0 + timedelta(days=40))
    other = fact("阿青住在南京", 1, "阿青", "住址")
    tagged = fact("木木家在西湖边", 2, "木木", "", keywords=["住址"])
    likes = [fact(f"木木喜欢第{i}样东西", 3 + i, "木木", "喜好") for i in range(30)]
    add(store, [home, old, said_late, other, tagged, *likes])
    add(store, [memory_item("木木住址在哪", scope, time=T0 + timedelta(days=50))])  # a note, no fact
    mine = MemoryFilter(kinds=(MemoryKind.FACT,), subject="木木", keywords=("住址",))
    assert [m.text for m in store.find_memories([scope], mine)] == [
        "木木住在杭州",
        "木木家在西湖边",
        "木木住在上海",
        "木木住在北京",
    ]
    then = T0 + timedelta(days=10)
    as_of = MemoryFilter(kinds=(MemoryKind.FACT,), subject="木木", keywords=("住址",), said_by=then, open_at=then)
    assert [m.text for m in store.find_memories([scope], as_of, limit=1)] == ["木木家在西湖边"]
    # closed after the moment asked: still open then
    before = MemoryFilter(
        kinds=(MemoryKind.FACT,), subject="木木", predicates=("住在",), open_at=T0 - timedelta(days=3)
    )
    assert [m.text for m in store.find_memories([scope], before)] == ["木木住在杭州", "木木住在上海", "木木住在北京"]
    assert len(store.find_memories([scope], MemoryFilter(kinds=(MemoryKind.FACT,), keywords=("喜好",)), 100)) == 30
    assert store.find_memories([Scope.of_person("qy", "x")], mine) == []
    assert store.find_memories([Scope.of_person("other", "mumu")], mine) == []


def test_find_memories_by_their_exact_text(store: Store) -> None:
    """remember() returns a note already stored rather than storing it twice."""
    official, person = Scope.official("qy"), Scope.of_person("qy", "mumu")
    note = memory_item("营业时间九点", official)
    add(store, [note, memory_item("营业时间九点到五点", official), memory_item("营业时间九点", person)])
    found = store.find_memories([official], MemoryFilter(kinds=(MemoryKind.NOTE,), text="营业时间九点"))
    assert [m.id for m in found] == [note.id]
    assert store.find_memories([official], MemoryFilter(kinds=(MemoryKind.EVENT,), text="营业时间九点")) == []
    assert store.find_memories([official], MemoryFilter(text="营业时间")) == []


def test_persons_and_aliases(store: Store) -> None:
    store.upsert_person("qy", Person(id="suni", name="苏霓", aliases=["霓霓"]))
    store.upsert_person("qy", Person(id="suni", name="苏霓", aliases=["霓霓", "小霓"]))
    assert store.get_person("qy", "suni") == Person(id="suni", name="苏霓", aliases=["霓霓", "小霓"])
    assert store.get_person("other", "suni") is None
    assert [p.id for p in store.list_persons("qy")] == ["suni"]


def test_person_blocks_belong_to_one_person_of_one_agent(store: Store) -> None:
    assert store.set_person_block("qy", "mumu", "human", "木木喜欢猫", None)
    assert not store.set_person_block("qy", "mumu", "human", "lost", None)  # exists already: read again
    assert not store.set_person_block("qy", "mumu", "human", "lost", "stale text")
    assert store.set_person_block("qy", "mumu", "human", "木木喜欢猫\n木木怕冷", "木木喜欢猫")
    assert store.person_blocks("qy", "mumu") == {"human": "木木喜欢猫\n木木怕冷"}
    assert store.person_blocks("qy", "other") == {}
    assert store.person_blocks("other-agent", "mumu") == {}


def test_embedding_model_is_recorded(store: Store) -> None:
    assert store.embedding_model() is None
    store.set_embedding_model("e5", 384)
    assert store.embedding_model() == ("e5", 384)


def test_mismatched_vectors_and_terms_write_nothing(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    with pytest.raises(Exception, match="one vector"):
        store.add_memories([memory_item("a", scope)], np.zeros((0, 64), np.float32), [])
    assert store.count_memories() == 0


def test_two_threads_write_at_once(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    errors: list[BaseException] = []

    def writer(prefix: str) -> None:
        try:
            for i in range(25):
                add(store, [memory_item(f"{prefix}{i}", scope)])
                store.append_messages([message(i, agent=prefix)])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(p,)) for p in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count_memories("qy") == 50
    assert len(store.recent_messages("a", "person:mumu", 100)) == 25


# SQLite specifics: migrations ----------------------------------------------------------------------
def test_migrations_are_idempotent_and_refuse_newer_schemas(tmp_path: Path) -> None:
    first = SQLiteStore(tmp_path)
    version = first.schema_version()
    first.close()
    again = SQLiteStore(tmp_path)
    assert again.schema_version() == version
    again.close()
    with sqlite3.connect(tmp_path / "huiyi.sqlite") as conn:
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    with pytest.raises(SchemaTooNew, match="upgrade huiyi"):
        SQLiteStore(tmp_path)


def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.count_memories()
    conn = sqlite3.connect(tmp_path / "huiyi.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    store.close()


def test_a_second_process_sees_writes(tmp_path: Path) -> None:
    """Two store objects on one file stand in for two processes sharing it."""
    scope = Scope.of_person("qy", "mumu")
    one, two = SQLiteStore(tmp_path), SQLiteStore(tmp_path)
    add(one, [memory_item("第一条", scope)])
    query = EMB.embed_queries(["第二条"])[0]
    assert len(two.search_dense([scope], query, 5).hits) == 1
    later = memory_item("第二条", scope)
    add(one, [later])
    assert two.search_dense([scope], query, 1).hits[0].id == later.id
    one.close()
    two.close()


# jobs and working memory -----------------------------------------------------------------------------
def test_jobs_are_enqueued_once_by_key_and_claimed_once(store: Store) -> None:
    first = Job(kind="fold", agent="qy", key="fold:qy:dm:mumu:1-10", payload={"from": 1, "to": 10})
    assert store.enqueue_job(first)
    assert not store.enqueue_job(Job(kind="fold", agent="qy", key=first.key))
    claimed = store.claim_job("w1", T0, 60)
    assert claimed is not None
    assert (claimed.id, claimed.state, claimed.attempts, claimed.claims, claimed.payload) == (
        first.id,
        JobState.RUNNING,
        0,  # attempts count errors, not claims
        1,
        first.payload,
    )
    assert store.claim_job("w2", T0, 60) is None  # leased to w1


def test_the_jobs_of_a_dead_worker_are_taken_at_once(store: Store) -> None:
    """A worker killed holding a fold: the next flush takes it now, not when its lease ends, and its space's
    next fold is free to follow; a live worker's lease holds."""
    span = {"space": "g1", "from_seq": 1, "to_seq": 10}
    second = timedelta(seconds=1)
    dead = Job(kind="fold", agent="qy", key="g1:1", payload=span, created_at=T0)
    alive = Job(kind="fold", agent="qy", key="g2:1", payload={**span, "space": "g2"}, created_at=T0 + second)
    next_span = {**span, "from_seq": 11, "to_seq": 20}
    later = Job(kind="fold", agent="qy", key="g1:11", payload=next_span, created_at=T0 + 2 * second)
    for job in (dead, later, alive):
        assert store.enqueue_job(job)
    assert store.claim_job("host:1:gone", T0, 300) is not None
    assert store.claim_job("host:2:alive", T0, 300) is not None
    assert store.claim_job("w", T0 + timedelta(seconds=1), 300) is None  # both leased
    assert store.expire_leases(lambda worker: worker.endswith(":gone"), T0 + timedelta(seconds=1)) == 1
    taken = store.claim_job("w", T0 + timedelta(seconds=1), 300)
    assert taken is not None and taken.id == dead.id and taken.claims == 2  # claims kept
    assert store.claim_job("w2", T0 + timedelta(seconds=1), 300) is None  # g1's next waits; g2's is leased
    assert store.expire_leases(lambda worker: worker.endswith(":gone"), T0 + timedelta(seconds=2)) == 0


def test_a_spaces_folds_are_taken_one_at_a_time_in_order(store: Store) -> None:
    """A fold reads what the space's earlier folds wrote (entities and their aliases, plans called off,
    pets): two workers extracting two folds of one space at once (the background worker and a flush's
    drain, after an add that planned several) lost an alias one wrote to the other's write."""

    def fold_job(space: str, first: int, seconds: int) -> Job:
        span = {"space": space, "from_seq": first, "to_seq": first + 9}
        return Job(
            kind="fold", agent="qy", key=f"{space}:{first}", payload=span, created_at=T0 + timedelta(seconds=seconds)
        )

    a1, a2, b1 = fold_job("g1", 1, 0), fold_job("g1", 11, 1), fold_job("g2", 1, 2)
    for job in (a1, a2, b1):
        assert store.enqueue_job(job)
    taken = store.claim_job("w1", T0, 60)
    assert taken is not None and taken.id == a1.id
    other = store.claim_job("w2", T0, 60)
    assert other is not None and other.id == b1.id  # another space's fold runs alongside
    assert store.claim_job("w3", T0, 60) is None  # g1's next fold waits for the one running
    assert store.claim_job("w3", T0 + timedelta(seconds=61), 60) is not None  # a dead worker's fold comes first
    (again,) = [j for j in store.list_jobs("qy", [JobState.RUNNING]) if j.worker == "w3"]
    assert again.id == a1.id
    store.apply(Writes(), complete_job=(a1.id, "w3"))
    last = store.claim_job("w3", T0 + timedelta(seconds=62), 60)
    assert last is not None and last.id == a2.id


def test_an_expired_lease_lets_another_worker_take_the_job(store: Store) -> None:
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    job = store.claim_job("w1", T0, 60)
    assert job is not None
    assert store.claim_job("w2", T0 + timedelta(seconds=30), 60) is None
    again = store.claim_job("w2", T0 + timedelta(seconds=61), 60)
    # a worker that died holding the job made no attempt: only its claim is counted
    assert again is not None and (again.id, again.attempts, again.claims) == (job.id, 0, 2)
    # the first worker, now late, cannot complete it
    with pytest.raises(Exception, match="lease"):
        store.apply(Writes(), complete_job=(job.id, "w1"))
    store.apply(Writes(), complete_job=(job.id, "w2"))
    assert [j.state for j in store.list_jobs("qy")] == [JobState.DONE]


def test_failed_jobs_retry_later_or_give_up(store: Store) -> None:
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    job = store.claim_job("w", T0, 60)
    assert job is not None
    store.fail_job(job.id, "w", "LLM timed out", retry_at=T0 + timedelta(minutes=5))
    assert store.claim_job("w", T0 + timedelta(minutes=1), 60) is None
    job = store.claim_job("w", T0 + timedelta(minutes=5), 60)
    assert job is not None and (job.attempts, job.claims) == (1, 2)
    store.fail_job(job.id, "w", "still broken", retry_at=None)
    (failed,) = store.list_jobs(states=[JobState.FAILED])
    assert (failed.last_error, failed.attempts) == ("still broken", 2)
    assert store.claim_job("w", T0 + timedelta(days=1), 60) is None


def test_a_failed_job_can_be_retried(store: Store) -> None:
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    job = store.claim_job("w", T0, 60)
    assert job is not None
    assert store.retry_job(job.id) is None  # only a failed job is retried
    store.fail_job(job.id, "w", "broken", retry_at=None)
    assert store.retry_job(job.id, agent="someone-else") is None
    retried = store.retry_job(job.id, agent="qy")
    assert retried is not None
    assert (retried.state, retried.attempts, retried.claims, retried.run_after) == (JobState.PENDING, 0, 0, None)
    assert retried.last_error == "broken"  # kept, to say why it was retried
    again = store.claim_job("w2", T0 + timedelta(seconds=1), 60)
    assert again is not None and again.id == job.id
    assert store.retry_job("job_unknown") is None


def test_a_renewed_lease_keeps_the_job_from_other_workers(store: Store) -> None:
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    job = store.claim_job("w1", T0, 10)
    assert job is not None
    assert store.renew_lease(job.id, "w1", T0 + timedelta(seconds=18))
    assert store.claim_job("w2", T0 + timedelta(seconds=15), 10) is None  # the first lease would have expired
    (running,) = store.list_jobs("qy")
    assert running.lease_until == T0 + timedelta(seconds=18)
    assert not store.renew_lease(job.id, "w2", T0 + timedelta(seconds=30))  # not w2's job
    taken = store.claim_job("w2", T0 + timedelta(seconds=19), 10)
    assert taken is not None and taken.id == job.id
    assert not store.renew_lease(job.id, "w1", T0 + timedelta(seconds=40))  # w1 lost it: it must stop
    store.apply(Writes(), complete_job=(job.id, "w2"))
    assert not store.renew_lease(job.id, "w2", T0 + timedelta(seconds=40))  # done jobs have no lease


def test_a_job_given_back_is_claimable_at_once_and_its_claim_not_counted(store: Store) -> None:
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    job = store.claim_job("w1", T0, 600)
    assert job is not None and job.claims == 1
    assert not store.give_back_job(job.id, "w2")  # not w2's job
    assert store.give_back_job(job.id, "w1")
    assert not store.give_back_job(job.id, "w1")  # no longer held
    (pending,) = store.list_jobs("qy")
    assert (pending.state, pending.claims, pending.worker) == (JobState.PENDING, 0, "")
    taken = store.claim_job("w2", T0 + timedelta(seconds=1), 600)  # within the first lease
    assert taken is not None and taken.id == job.id and taken.claims == 1


def test_completing_a_job_writes_its_memories_and_fold_point_together(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    store.enqueue_job(Job(kind="fold", agent="qy", key="k"))
    job = store.claim_job("w", T0, 60)
    assert job is not None and store.working_start("qy", "person:mumu") == 1
    item = memory_item("木木要考驾照", scope, id="ev_fixed")
    writes = Writes(
        memories=[item],
        vectors=EMB.embed_passages([item.text]),
        terms=[Terms(["考驾照"], [])],
        fold_points=[("qy", "person:mumu", 11)],
    )
    store.apply(writes, complete_job=(job.id, "w"))
    assert store.working_start("qy", "person:mumu") == 11
    # a re-run of the same work (same deterministic ids) writes nothing twice
    store.apply(writes)
    assert store.count_memories("qy") == 1
    assert len(store.search_keyword([scope], Terms(["考驾照"], []), 5).hits) == 1
    # fold points only move forward
    store.apply(Writes(fold_points=[("qy", "person:mumu", 5)]))
    assert store.working_start("qy", "person:mumu") == 11


# feedback, updates, the graph -------------------------------------------------------------------------
def test_record_access_adds_strength(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    item = memory_item("第一条", scope)
    add(store, [item])
    store.record_access("qy", [item.id], T0, strength_bonus=15)
    store.record_access("qy", [item.id], T0 + timedelta(hours=1), strength_bonus=15)
    got = store.get_memories("qy", [item.id])[0]
    assert (got.strength, got.access_count) == (31.0, 2)
    # several recalls in one write, as the reinforcer batches them
    other = memory_item("第二条", scope)
    add(store, [other])
    store.record_access("qy", [item.id, other.id], T0 + timedelta(hours=2), strength_bonus=15, times=3)
    first, second = store.get_memories("qy", [item.id, other.id])
    assert (first.strength, first.access_count) == (76.0, 5)
    assert (second.strength, second.access_count) == (other.strength + 45, 3)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(StoreError, match="times"):
            store.record_access("qy", [item.id], T0, strength_bonus=15, times=bad)  # type: ignore[arg-type]
    assert store.get_memories("qy", [item.id])[0].access_count == 5  # unchanged


def test_update_memories_changes_only_allowed_fields(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    item = memory_item("木木喜欢猫", scope, data={"subject": "木木"})
    add(store, [item])
    closed = T0 + timedelta(days=3)
    changed = store.update_memories(
        "qy", [(item.id, {"valid_to": closed, "feedback": -1.0, "data": {"subject": "木木", "x": 1}})]
    )
    assert changed == 1
    got = store.get_memories("qy", [item.id])[0]
    assert (got.valid_to, got.feedback, got.data["x"]) == (closed, -1.0, 1)
    assert store.update_memories("other-agent", [(item.id, {"feedback": 5.0})]) == 0
    with pytest.raises(Exception, match="cannot be updated"):
        store.update_memories("qy", [(item.id, {"text": "changed"})])


def test_a_memory_s_numbers_come_back_as_written(store: Store) -> None:
    """PostgreSQL's jsonb gave 1e20 back as a 21-digit integer, which an export of it could not import (helper)."""
    numbers = {
        "big": 1e20,
        "small": 2.5e-3,
        "whole": 3.0,
        "int": 2**63 - 1,
        "least": -(2**63),
        "deep": [{"x": -1e300}],
        "whole64": 1e16,  # jsonb gave these back as integers: Python writes them 1e+16, with no point
        "whole64_neg": -9e18,
        "said": "1e+16",
    }
    item = memory_item("木木的分数", Scope.of_person("qy", "mumu"), data=numbers)
    add(store, [item])
    (got,) = store.get_memories("qy", [item.id])
    assert got.data == numbers
    assert [type(got.data[key]) for key in ("big", "small", "whole", "int")] == [float, float, float, int]
    assert type(got.data["deep"][0]["x"]) is float
    assert type(got.data["whole64"]) is float and type(got.data["whole64_neg"]) is float


def test_entities_merge_and_unmerge(store: Store) -> None:
    scope = Scope.of_space("qy", "g1")
    suni = Entity(scope=scope, name="苏霓", type=EntityType.OBJECT, aliases=["小霓"])
    nini = Entity(scope=scope, name="霓霓", type=EntityType.OBJECT)
    cat = Entity(scope=scope, name="团子", type=EntityType.SPECIFIC)
    for entity in (suni, nini, cat):
        store.upsert_entity(entity, EMB.embed_passages([entity.name])[0])
    nearest = store.similar_entities([scope], EMB.embed_queries(["霓霓"])[0], 2)
    assert nearest[0][0].id == nini.id and len(nearest) == 2
    merge = store.merge_entities("qy", nini.id, suni.id, "similar name", T0)
    current = {e.id: e for e in store.list_entities([scope])}
    assert set(current) == {suni.id, cat.id}
    assert current[suni.id].names == ["苏霓", "小霓", "霓霓"]
    assert store.list_entities([scope], include_merged=True)[1].merged_into == suni.id
    assert [m.id for m in store.list_merges("qy")] == [merge.id]
    with pytest.raises(Exception, match="merged already"):
        store.merge_entities("qy", nini.id, suni.id, "again", T0)
    undone = store.undo_merge("qy", merge.id)
    assert undone.undone
    current = {e.id: e for e in store.list_entities([scope])}
    assert set(current) == {suni.id, nini.id, cat.id}
    assert current[suni.id].aliases == ["小霓"]
    assert store.list_entities([Scope.of_space("qy", "g2")]) == []


def test_every_entity_write_moves_the_scopes_entities_version(store: Store) -> None:
    """Recall keeps a scope's entity list while this version stands (recall.routes): every write moves it,
    and an erasure that empties the scope never lets it start again at a number read before."""
    scope, other = Scope.of_person("qy", "mumu"), Scope.of_space("qy", "g1")
    seen = [store.entities_version([scope])]

    def moved() -> None:
        seen.append(store.entities_version([scope]))
        assert seen[-1] > seen[-2]

    suni = Entity(scope=scope, name="苏霓", type=EntityType.OBJECT)
    nini = Entity(scope=scope, name="霓霓", type=EntityType.OBJECT)
    for entity in (suni, nini):
        store.upsert_entity(entity, EMB.embed_passages([entity.name])[0])
        moved()
    store.upsert_entity(suni.model_copy(update={"aliases": ["小霓"]}), EMB.embed_passages([suni.name])[0])
    moved()
    merge = store.merge_entities("qy", nini.id, suni.id, "similar name", T0)
    moved()
    store.undo_merge("qy", merge.id)
    moved()
    store.delete_entities("qy", [nini.id])
    moved()
    before_other = store.entities_version([other])
    store.upsert_entity(Entity(scope=other, name="团子"), EMB.embed_passages(["团子"])[0])
    assert store.entities_version([scope]) == seen[-1]  # another scope's write leaves this one's be
    assert store.entities_version([other]) > before_other
    store.erase("qy", [], person="mumu")
    moved()
    store.upsert_entity(suni, EMB.embed_passages([suni.name])[0])
    moved()


def test_undoing_one_merge_keeps_a_later_merge_s_names(store: Store) -> None:
    """Undo takes back the names its merge added, not the target's aliases as they were then: that
    dropped 小霓's names, merged later and still merged, so 霓宝 named nobody."""
    scope = Scope.of_space("qy", "g1")
    suni = Entity(scope=scope, name="苏霓", type=EntityType.OBJECT, aliases=["阿霓"])
    nini = Entity(scope=scope, name="霓霓", type=EntityType.OBJECT)
    xiao = Entity(scope=scope, name="小霓", type=EntityType.OBJECT, aliases=["霓宝"])
    for entity in (suni, nini, xiao):
        store.upsert_entity(entity, EMB.embed_passages([entity.name])[0])
    first = store.merge_entities("qy", nini.id, suni.id, "similar name", T0)
    second = store.merge_entities("qy", xiao.id, suni.id, "similar name", T0)
    store.undo_merge("qy", first.id)
    assert {e.id: e.aliases for e in store.list_entities([scope])}[suni.id] == ["阿霓", "小霓", "霓宝"]
    store.undo_merge("qy", second.id)
    assert {e.id: e.aliases for e in store.list_entities([scope])}[suni.id] == ["阿霓"]


def test_entity_names_are_added_and_dropped_in_the_store_s_write(store: Store) -> None:
    """add_entity_names adds to the names stored, not to those its caller read: the stored name, type and
    merge stay, and so does an alias given meanwhile; drop_entity_aliases takes off only the names it is given."""
    scope = Scope.of_space("qy", "g1")
    suni = Entity(scope=scope, name="苏霓", type=EntityType.OBJECT, aliases=["小霓"], sources=["m1"])
    assert store.add_entity_names(suni, EMB.embed_passages([suni.name])[0]) == suni  # new: stored as given
    nini = Entity(scope=scope, name="霓霓", type=EntityType.OBJECT)
    store.upsert_entity(nini, EMB.embed_passages([nini.name])[0])
    store.merge_entities("qy", nini.id, suni.id, "similar name", T0)
    seen = Entity(id=suni.id, scope=scope, name="苏妮", type=EntityType.SPECIFIC, aliases=["阿霓"], sources=["m2"])
    added = store.add_entity_names(seen, EMB.embed_passages([seen.name])[0])
    assert (added.name, added.type, added.aliases, added.sources) == (
        "苏霓",
        EntityType.OBJECT,
        ["小霓", "霓霓", "阿霓"],
        ["m1", "m2"],
    )
    assert store.get_entities("qy", [suni.id]) == [added]
    store.add_entity_names(nini.model_copy(update={"aliases": ["霓宝"]}), EMB.embed_passages([nini.name])[0])
    assert store.get_entities("qy", [nini.id])[0].merged_into == suni.id  # a merged entity stays merged
    dropped = store.drop_entity_aliases("qy", suni.id, ["小霓", "没有的"])
    assert dropped is not None and dropped.aliases == ["霓霓", "阿霓"]
    assert store.get_entities("qy", [suni.id])[0].aliases == ["霓霓", "阿霓"]
    assert store.drop_entity_aliases("qy", "ent_nobody", ["霓霓"]) is None
    assert store.drop_entity_aliases("other", suni.id, ["霓霓"]) is None  # another agent's id is nobody
    stranger = Entity(id=suni.id, scope=Scope.of_person("qy", "mallory"), name="MALLORY", aliases=["苏霓"])
    with pytest.raises(InvalidInput, match="another scope"):
        store.add_entity_names(stranger, EMB.embed_passages([stranger.name])[0])
    assert store.get_entities("qy", [suni.id])[0].aliases == ["霓霓", "阿霓"]


def test_an_entity_never_crosses_scopes(store: Store) -> None:
    """An id another scope or agent holds is refused, not renamed; a merge across scopes is refused,
    since it gives the target the source's names (an import's hostile lines did both)."""
    alice = Entity(scope=Scope.of_person("qy", "alice"), name="爱丽丝", type=EntityType.OBJECT)
    store.upsert_entity(alice, EMB.embed_passages([alice.name])[0])
    store.upsert_entity(alice.model_copy(update={"aliases": ["丽丽"]}), EMB.embed_passages([alice.name])[0])
    for scope in (Scope.of_person("qy", "mallory"), Scope.of_person("other", "alice")):
        stranger = Entity(id=alice.id, scope=scope, name="MALLORY", type=EntityType.OBJECT)
        with pytest.raises(InvalidInput, match="another scope"):
            store.upsert_entity(stranger, EMB.embed_passages([stranger.name])[0])
    mallory = Entity(scope=Scope.of_person("qy", "mallory"), name="MALSECRET", type=EntityType.OBJECT)
    store.upsert_entity(mallory, EMB.embed_passages([mallory.name])[0])
    with pytest.raises(InvalidInput, match="different scopes"):
        store.merge_entities("qy", mallory.id, alice.id, "hostile", T0)
    kept = store.list_entities([alice.scope])
    assert [(e.name, e.aliases) for e in kept] == [("爱丽丝", ["丽丽"])]


def test_links_are_found_from_either_end(store: Store) -> None:
    links = [Link(source="a", target="b", kind=LinkKind.CAUSE), Link(source="c", target="a")]
    assert store.add_links("qy", links) == 2
    assert store.add_links("qy", links[:1]) == 0
    assert {(x.source, x.target) for x in store.links_of("qy", ["a"])} == {("a", "b"), ("c", "a")}
    assert store.links_of("qy", ["b"])[0].kind is LinkKind.CAUSE
    assert store.links_of("other", ["a"]) == []


def test_deleting_a_memory_drops_its_links(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    first, second = memory_item("第一条", scope), memory_item("第二条", scope)
    add(store, [first, second])
    store.add_links("qy", [Link(source=first.id, target=second.id)])
    store.delete_memories("qy", [first.id])
    assert store.links_of("qy", [second.id]) == []


def test_a_replaced_memory_keeps_its_links_and_a_failed_replacement_leaves_it_as_it_was(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    first, second = memory_item("阿哲在深圳上班", scope), memory_item("第二条", scope)
    add(store, [first, second])
    store.add_links("qy", [Link(source=first.id, target=second.id)])
    corrected = first.model_copy(update={"text": "阿哲在杭州上班"})
    terms = [Terms(tokens.words(corrected.text), tokens.chars(corrected.text))]
    broken = [Terms([1], [])]  # type: ignore[list-item]  # fails inside the transaction, after the delete
    vector = EMB.embed_passages([corrected.text])
    with pytest.raises(TypeError):
        store.apply(Writes([corrected], vector, terms=broken, replaced=[("qy", first.id)]))
    assert [m.text for m in store.get_memories("qy", [first.id])] == ["阿哲在深圳上班"]
    assert store.search_keyword([scope], Terms(["深圳"], []), 5).hits[0].id == first.id
    store.apply(Writes([corrected], vector, terms=terms, replaced=[("qy", first.id)]))
    assert [m.text for m in store.get_memories("qy", [first.id])] == ["阿哲在杭州上班"]
    assert [h.id for h in store.search_keyword([scope], Terms(["杭州"], []), 5).hits] == [first.id]
    assert store.search_keyword([scope], Terms(["深圳"], []), 5).hits == []
    assert store.search_dense([scope], EMB.embed_queries([corrected.text]), 5).hits[0].id == first.id
    assert store.links_of("qy", [second.id]) == [Link(source=first.id, target=second.id)]
    assert store.count_memories("qy") == 2


FILLER = ["我家的猫叫团子", "周末去爬山了", "she bakes bread on sundays", "明天要交报告", "the train was late again"]


def test_a_phrase_outranks_the_same_words_apart(store: Store) -> None:
    """Adjacent query words also count as a phrase, even against a shorter memory holding both words."""
    scope = Scope.of_person("qy", "mumu")
    together = memory_item("Yesterday I finally went to the support group meeting downtown", scope)
    apart = memory_item("group work, then support", scope)
    add(store, [apart, together, *(memory_item(t, scope) for t in FILLER)])
    hits = store.search_keyword([scope], Terms(["support", "group"], []), 5).hits
    assert [h.id for h in hits] == [together.id, apart.id]
    assert hits[0].score > hits[1].score
    # the order matters: "group support" is the other memory's phrase
    hits = store.search_keyword([scope], Terms(["group", "support"], []), 5).hits
    assert [h.id for h in hits] == [apart.id, together.id]


def test_a_cjk_word_cut_differently_is_found_through_its_bigrams(store: Store) -> None:
    """研究生 is one word in the query, 研究 + 生命 in the memory: its bigrams 研究 and 究生 still match,
    so the memory outranks a shorter one holding the same characters more often but never side by side."""
    scope = Scope.of_person("qy", "mumu")
    cut_apart = memory_item("他在研究生命的起源", scope)
    scattered = memory_item("研磨生姜，究竟生研", scope)
    add(store, [scattered, cut_apart, *(memory_item(t, scope) for t in FILLER)])
    assert "研究生" not in tokens.words(cut_apart.text)  # the segmentation really differs
    hits = store.search_keyword([scope], Terms(["研究生"], ["研", "究", "生"]), 5).hits
    assert [h.id for h in hits] == [cut_apart.id, scattered.id]
    assert hits[0].score > hits[1].score


def test_the_fsync_policy_follows_the_config(tmp_path: Path) -> None:
    from huiyi import Memory
    from huiyi.errors import StoreError

    # PRAGMA synchronous: 1 is NORMAL (a commit survives the process dying), 2 is FULL (and power loss)
    for setting, pragma in (("normal", 1), ("full", 2)):
        config = Config.model_validate({"store": {"synchronous": setting}})
        memory = Memory(tmp_path / setting, config=config, embedder=HashEmbedder())
        try:
            assert memory.store._conn().execute("PRAGMA synchronous").fetchone()[0] == pragma  # type: ignore[attr-defined]
        finally:
            memory.close()
    with pytest.raises(ValueError):
        Config.model_validate({"store": {"synchronous": "off"}})
    with pytest.raises(StoreError):
        SQLiteStore(tmp_path / "off", synchronous="off")


def test_a_store_path_that_is_a_file_is_refused_in_words_and_left_alone(tmp_path: Path) -> None:
    from huiyi import Memory
    from huiyi.errors import StoreError

    notes = tmp_path / "bot.db"
    notes.write_bytes(b"someone else's file")
    for path in (notes, notes / "memory"):  # the file itself, or a folder under it
        with pytest.raises(StoreError, match=r"bot\.db is a file, not a folder"):
            Memory(path, embedder=HashEmbedder())
    assert notes.read_bytes() == b"someone else's file"


def test_a_store_file_that_is_not_a_database_is_refused_in_words(tmp_path: Path) -> None:
    from huiyi.errors import StoreError

    (tmp_path / "huiyi.sqlite").write_bytes(b"not a database, " * 100)
    with pytest.raises(StoreError, match="cannot be opened as a huiyi store: file is not a database"):
        SQLiteStore(tmp_path)


def test_taken_ids_are_those_another_agent_holds(store: Store) -> None:
    mine, theirs = Scope.of_person("qy", "mumu"), Scope.of_person("other", "bob")
    add(store, [memory_item("我的", mine, id="m-mine"), memory_item("别人的", theirs, id="m-theirs")])
    store.upsert_entity(
        Entity(id="e-theirs", scope=theirs, name="小白", type=EntityType.SPECIFIC), EMB.embed_passages(["小白"])[0]
    )
    assert store.taken_ids("qy", ["m-mine", "m-theirs", "m-none", "m-theirs"]) == ["m-theirs"]
    assert store.taken_ids("qy", ["e-theirs", "m-theirs"], entities=True) == ["e-theirs"]
    assert store.taken_ids("other", ["m-theirs", "e-theirs"]) == []


def test_a_units_updates_entity_names_and_dropped_aliases_land_with_its_job_or_not_at_all(store: Store) -> None:
    scope = Scope.of_person("qy", "mumu")
    old = memory_item("木木住在北京", scope)
    add(store, [old])
    store.add_entity_names(
        Entity(id="ent_xh", scope=scope, name="小黑", aliases=["苏霓"]), EMB.embed_passages(["小黑"])[0]
    )
    new = memory_item("木木住在上海", scope)
    writes = Writes(
        memories=[new],
        vectors=EMB.embed_passages([new.text]),
        terms=[Terms(tokens.words(new.text), tokens.chars(new.text))],
        updates=[("qy", old.id, {"valid_to": T0})],
        entities=[Entity(id="ent_sh", scope=scope, name="上海", aliases=["魔都"])],
        entity_vectors=EMB.embed_passages(["上海"]),
        dropped_aliases=[("qy", "ent_xh", ["苏霓"])],
    )
    job = Job(kind="fold", agent="qy", key="k1", created_at=T0)
    assert store.enqueue_job(job)
    with pytest.raises(StoreError):  # not running for this worker: nothing of the unit lands
        store.apply(writes, (job.id, "w1"))
    assert [m.valid_to for m in store.get_memories("qy", [old.id, new.id])] == [None]
    assert {e.id: e.aliases for e in store.list_entities([scope])} == {"ent_xh": ["苏霓"]}
    claimed = store.claim_job("w1", T0, 60.0)
    assert claimed is not None and claimed.id == job.id
    store.apply(writes, (job.id, "w1"))
    assert [m.valid_to is not None for m in store.get_memories("qy", [old.id, new.id])] == [True, False]
    assert {e.id: e.aliases for e in store.list_entities([scope])} == {"ent_xh": [], "ent_sh": ["魔都"]}
    [done] = store.list_jobs("qy")
    assert done.state is JobState.DONE


def test_own_vectors_read_by_the_dense_routes_keys_are_those_read_by_id(store: Store) -> None:
    """recall.anchor passes the dense hits' row numbers along: a backend may read by them, never other rows."""
    other = message(9, space="person:xiaoyu", person="xiaoyu")
    stored = store.append_messages([message(1), message(2), message(3), other])
    ingest.index_messages(store, EMB, stored, Config(chunk={"own_vector": True}))
    scope = Scope.of_person("qy", "mumu")
    hits = store.search_dense([scope], EMB.embed_queries(["hello"])[0], 3).hits
    elsewhere = [m.id for m in store.list_memories([Scope.of_person("qy", "xiaoyu")], [MemoryKind.CHUNK])]

    def forget_one() -> None:  # a deletion empties the process's cache: the next read goes to the tables
        store.delete_memories("qy", [elsewhere.pop()])

    by_key = store.own_vectors("qy", [h.id for h in hits], [h.key for h in hits])
    assert sorted(by_key) == sorted(h.id for h in hits)
    forget_one()
    by_id = store.own_vectors("qy", [h.id for h in hits])
    assert all(np.array_equal(by_key[i], by_id[i]) for i in by_id) and sorted(by_id) == sorted(by_key)


def test_rank_rows_read_by_the_routes_keys_are_the_rows_asked_for(store: Store) -> None:
    """recall passes the routes' row numbers along: read by them, a row still comes only under its own id."""
    stored = store.append_messages([message(1), message(2), message(3), message(9, space="person:xy", person="xy")])
    ingest.index_messages(store, EMB, stored, Config())
    query = EMB.embed_queries(["hello"])[0]
    hits = store.search_dense([Scope.of_person("qy", "mumu")], query, 3).hits
    other = store.search_dense([Scope.of_person("qy", "xy")], query, 1).hits[0]
    # a key that is another memory's row: the row asked for, by its id, never the other one
    (first,) = store.rank_rows("qy", [hits[0].id], [other.key])
    assert first.id == hits[0].id and first.scope == "person:mumu"
    assert store.rank_rows("another-agent", [h.id for h in hits], [h.key for h in hits]) == []
    ranked = store.rank_rows("qy", [h.id for h in hits], [h.key for h in hits])
    stored_items = {item.id: item for item in store.get_memories("qy", [h.id for h in hits])}
    assert [row.id for row in ranked] == [h.id for h in hits]
    for row in ranked:
        item = stored_items[row.id]
        assert (row.text, row.scope, row.kind, row.sources) == (
            item.text,
            item.scope.tag,
            item.kind,
            tuple(item.sources),
        )
