"""Forgetting a person (GDPR-style erasure) and single messages: rows gone, files clean, others intact."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import pg_server
from conftest import STORE_FACTORIES
from huiyi import Memory, MemoryKind, Person
from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.flows.extract import Extraction, Fold
from huiyi.flows.extract.fold import refolds
from huiyi.flows.extract.rules import RuleExtractor
from huiyi.model import EntityType, Job, JobState, Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.rows import partition_key

T0 = datetime(2024, 11, 1, 20, 0)
BOB = ["QZXBOBPRIVATE1", "鲍勃的秘密暗号七三九", "QZXBOBGROUP2", "QZXBOBFACT3", "QZXBOBBLOCK4"]
ALICE = "QZXALICEKEEP9"
QUIET = Config(worker={"enabled": False})
SRC = Path(__file__).resolve().parents[1] / "src"


def _fill(memory: Memory) -> None:
    memory.set_person(Person(id="bob", name="鲍勃", aliases=["QZXBOBALIAS5"]), agent="a")
    memory.add(
        [
            {"text": f"我的银行卡密码是 {BOB[0]}", "time": T0},
            {"text": f"还有 {BOB[1]}", "time": T0 + timedelta(minutes=1)},
            {"text": "好的我记住了", "role": "assistant", "time": T0 + timedelta(minutes=2)},
        ],
        agent="a",
        person="bob",
    )
    memory.add(
        [
            {"text": f"大家好 {ALICE}", "speaker": "alice", "time": T0 + timedelta(minutes=3), "id": "g-a1"},
            {"text": f"我周末去爬山 {BOB[2]}", "speaker": "bob", "time": T0 + timedelta(minutes=4)},
            {"text": f"一起去吧 {ALICE}", "speaker": "alice", "time": T0 + timedelta(minutes=5)},
        ],
        agent="a",
        space="g1",
    )
    memory.remember(f"鲍勃喜欢 {BOB[3]}", agent="a", space="g1", kind=MemoryKind.FACT, data={"subject": "鲍勃"})
    memory.core_block_append("human", f"鲍勃是学生 {BOB[4]}", agent="a", person="bob")
    memory.flush(agent="a", person="bob")
    memory.flush(agent="a", space="g1")


def _files_holding(folder: Path, needles: list[str]) -> list[tuple[str, str]]:
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            found += [(path.name, n) for n in needles if n.encode() in data]
    return found


def test_a_forgotten_person_leaves_no_byte_in_the_store_files(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        assert _files_holding(store, [*BOB, ALICE])  # the grep does find text that is there
        done = memory.forget_person("bob", agent="a")
        assert done.messages == 4 and done.persons == 1 and done.blocks == 1 and done.memories > 0
        assert done.reindexed >= 1  # alice's chunk that embedded bob's turn is indexed again
        seen = memory.recall("爬山 密码 大家好", agent="a", space="g1", person="alice", limit=50)
        assert all(marker not in hit.text for hit in seen.hits for marker in BOB)
        assert any(ALICE in hit.text for hit in seen.hits)  # alice's memories stay recallable
        assert memory.get_person("bob", agent="a") is None
        assert memory.working_memory(agent="a", person="bob") == []
        assert not memory.core_blocks_for(agent="a", person="bob")
    # nor their partition's key, which a guess at their id would confirm (the entities' version row had it)
    bobs_part = partition_key("a", Scope.of_person("a", "bob", stored=True))
    leftovers = _files_holding(store, [*BOB, "QZXBOBALIAS5", bobs_part])
    assert leftovers == []
    assert _files_holding(store, [ALICE])


# a process killed right after the erasure committed, before it purged the files
KILLED_BEFORE_PURGE = """
import os, sys
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.store.rows import partition_key
from huiyi.store.sqlite.erase import SQLiteErase

SQLiteErase._purge_marked = lambda self: os._exit(9)
memory = Memory(sys.argv[1], embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))
memory.forget_person("bob", agent="a")
memory.purged()  # the purge behind the call starts, and the process is killed in it
"""


def test_a_purge_a_kill_cut_short_is_finished_by_the_next_open(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    killed = subprocess.run([sys.executable, "-c", KILLED_BEFORE_PURGE, str(store)], env=env, check=False)
    assert killed.returncode == 9
    assert _files_holding(store, [BOB[0]])  # committed, but not purged
    with Memory(store, embedder=HashEmbedder(32), config=QUIET) as memory:
        assert memory.get_person("bob", agent="a") is None  # the erasure had committed
        # a bot reopening lives on: its files hold no erased byte while it runs, not only once it closes
        assert memory.purged(timeout=60)  # the open asked for the purge; it runs behind it
        assert _files_holding(store, [*BOB, "QZXBOBALIAS5"]) == []
        assert _files_holding(store, [ALICE])


# a process killed right after the erasure committed, before it vacuumed the dead rows away
KILLED_BEFORE_VACUUM = """
import os, sys
from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from huiyi.store.rows import partition_key
import psycopg

execute = psycopg.Cursor.execute
def killed_at_vacuum(self, query, *args, **kwargs):
    if str(query).startswith("VACUUM"):
        os._exit(9)
    return execute(self, query, *args, **kwargs)
psycopg.Cursor.execute = killed_at_vacuum
memory = Memory(sys.argv[1], embedder=HashEmbedder(32), config=Config(worker={"enabled": False}))
memory.forget_person("bob", agent="a")
memory.purged()  # the purge behind the call starts, and the process is killed in it
"""


def _tuples_holding(dsn: str, needles: list[str]) -> list[tuple[str, str]]:
    """The needles found in a row version still on a page of the store's tables (their TOAST too), live
    or dead: read from the files after a checkpoint, through each page's line pointers."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        home = str(conn.execute("SHOW data_directory").fetchone()[0])  # type: ignore[index]
        files = conn.execute(
            "SELECT c.relname, pg_relation_filepath(c.oid) FROM pg_class c WHERE c.relkind IN ('r', 't') AND"
            " (c.relnamespace = current_schema()::regnamespace OR c.oid IN (SELECT reltoastrelid FROM pg_class"
            " WHERE relnamespace = current_schema()::regnamespace))"
        ).fetchall()
    found = []
    for name, relative in files:
        data = (Path(home) / relative).read_bytes()
        for start in range(0, len(data), 8192):
            page = data[start : start + 8192]
            lower = int.from_bytes(page[12:14], "little")
            for at in range(24, lower, 4):
                pointer = int.from_bytes(page[at : at + 4], "little")
                offset, flags, length = pointer & 0x7FFF, (pointer >> 15) & 3, pointer >> 17
                row = page[offset : offset + length] if flags == 1 else b""  # 1: a row version with storage
                found += [(name, n) for n in needles if n.encode() in row]
    return found


def test_a_postgres_erasure_a_kill_cut_short_before_its_vacuum_is_finished_by_the_next_open(tmp_path: Path) -> None:
    dsn = pg_server.fresh_dsn()
    with Memory(dsn, embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
    assert _tuples_holding(dsn, [BOB[0], ALICE])  # the reader finds rows that are there
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    killed = subprocess.run([sys.executable, "-c", KILLED_BEFORE_VACUUM, dsn], env=env, check=False)
    assert killed.returncode == 9
    assert _tuples_holding(dsn, [BOB[0]])  # committed, but the dead row versions are still on their pages
    with Memory(dsn, embedder=HashEmbedder(32), config=QUIET) as memory:
        assert memory.get_person("bob", agent="a") is None  # the erasure had committed
        assert memory.purged(timeout=60)  # the open asked for the vacuum; it runs behind it
        assert _tuples_holding(dsn, [*BOB, "QZXBOBALIAS5"]) == []
        assert _tuples_holding(dsn, [ALICE])


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_forgetting_on_every_backend(tmp_path: Path, backend: str) -> None:
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        _fill(memory)
        other = memory.add([{"text": f"别人的话 {ALICE}", "time": T0}], agent="a", person="carol")
        done = memory.forget_person("bob", agent="a")
        assert done.messages == 4 and done.persons == 1 and done.reindexed >= 1
        for kind in (None, [MemoryKind.FACT]):
            for where in ({"person": "bob"}, {"space": "g1"}):
                texts = [m.text for m in memory.memories(agent="a", kinds=kind, limit=500, **where)]  # type: ignore[arg-type]
                assert not any(marker in text for text in texts for marker in BOB), texts
        assert memory.jobs(agent="a") == [] or all("bob" not in str(j.payload) for j in memory.jobs(agent="a"))
        assert memory.messages([other[0].id], agent="a")  # carol untouched
        one = memory.forget_messages([other[0].id], agent="a")
        assert one.messages == 1 and memory.messages([other[0].id], agent="a") == []
        assert all(ALICE not in h.text for h in memory.recall("别人的话", agent="a", person="carol", limit=20).hits)


def test_an_id_add_refuses_with_nothing_under_it_is_an_error_and_one_stored_under_it_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huiyi.errors import InvalidInput

    with Memory(tmp_path, embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.add("我叫小雨", agent="a", person="u2")
        with pytest.raises(InvalidInput, match="starts or ends with a space; nothing was stored"):
            memory.forget_person("u2 ", agent="a")  # a typo: not a person who had nothing to forget
        assert memory.forget_person("nobody", agent="a").messages == 0  # a valid id: zeros, as ever
        assert memory.memories(agent="a", person="u2")  # nothing changed
        with monkeypatch.context() as before_the_rule:  # an id stored before ids were checked as now
            before_the_rule.setattr("huiyi.model.check_scope", lambda *args, **kwargs: None)
            memory.add("旧的话", agent="a", person="u3 ")
        assert memory.forget_person("u3 ", agent="a").messages == 1


def test_http_forgets_a_person_and_a_message(tmp_path: Path) -> None:
    with Memory(tmp_path / "s", embedder=HashEmbedder(32), config=QUIET) as memory:
        _fill(memory)
        with TestClient(create_app(memory.core)) as client:
            gone = client.delete("/v1/persons/bob", params={"agent": "a"})
            assert gone.status_code == 200 and gone.json()["messages"] == 4
            assert client.get("/v1/persons/bob", params={"agent": "a"}).status_code == 404
            assert client.delete("/v1/messages/g-a1", params={"agent": "a"}).json()["messages"] == 1
            missing = client.delete("/v1/messages/nope", params={"agent": "a"})
            assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_http_erases_an_id_with_a_slash_and_dot_ids_are_refused(tmp_path: Path) -> None:
    """``wx/123`` was stored, but ``DELETE /v1/persons/wx%2F123`` reached no route (404) and its memories
    stayed; ``.`` and ``..`` a client's URL resolves away before it is sent, so they are no ids."""
    from huiyi.errors import InvalidInput

    with Memory(tmp_path / "s", embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.add([{"text": "我的身份证号是 110101199001011234", "id": "wx/m1"}], agent="a", person="wx/123")
        memory.add([{"text": "我的狗叫豆豆", "id": "wx/m2"}], agent="a", person="wx/124")
        for dots in (".", ".."):
            with pytest.raises(InvalidInput, match="not an id a URL can name"):
                memory.add("你好", agent="a", person=dots)
        with TestClient(create_app(memory.core)) as client:
            gone = client.delete("/v1/persons/wx%2F123", params={"agent": "a"})
            assert gone.status_code == 200 and gone.json()["messages"] == 1
            assert client.delete("/v1/messages/wx%2Fm2", params={"agent": "a"}).json()["messages"] == 1
        assert memory.recall("身份证号", agent="a", person="wx/123").hits == []
        assert memory.memories(agent="a", person="wx/124") == []


@pytest.mark.parametrize("erase", ["person", "message"])
def test_a_place_only_the_erased_named_in_a_group_goes_with_them(tmp_path: Path, erase: str) -> None:
    """An entity an extraction names (a place, a thing) was stored with no sources, so no erasure matched
    it: 西湖, which only 木木 named, stayed in the group's entities, its export and the file."""
    lines = [("木木", "大家好，我是木木"), ("阿哲", "你好木木，我是阿哲"), ("木木", "我周六要去西湖边跑步")]
    with Memory(tmp_path / "s", embedder=HashEmbedder(32), config=QUIET) as memory:
        memory.add(
            [
                {"speaker": who, "text": text, "time": T0 + timedelta(minutes=i), "id": f"g{i}"}
                for i, (who, text) in enumerate(lines)
            ],
            agent="a",
            space="g1",
        )
        memory.flush(agent="a", space="g1")
        assert "西湖" in [entity.name for entity in memory.entities(agent="a", space="g1")]
        if erase == "person":
            memory.forget_person("木木", agent="a", purge="wait")
        else:
            memory.forget_messages(["g2"], agent="a", purge="wait")
        left = [entity.name for entity in memory.entities(agent="a", space="g1")]
        assert "西湖" not in left and "阿哲" in left
        assert ("木木" in left) is (erase == "message")  # 阿哲 named 木木 too: a message's erasure keeps her
    assert _files_holding(tmp_path / "s", ["西湖"]) == []


def test_the_cli_forgets_a_person(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from huiyi.faces.cli import app

    with Memory(tmp_path / "s", config=QUIET) as memory:  # the CLI opens it with the default embedder
        memory.add([f"我的秘密是 {BOB[0]}"], agent="a", person="bob")
    done = CliRunner().invoke(app, ["forget", "-a", "a", "-p", "bob", "--yes", "-s", str(tmp_path / "s")])
    assert done.exit_code == 0 and "messages 1" in done.stdout
    assert _files_holding(tmp_path / "s", [BOB[0]]) == []
    refused = CliRunner().invoke(app, ["forget", "-a", "a", "-s", str(tmp_path / "s")])
    assert refused.exit_code != 0


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_summaries_of_summaries_and_the_things_their_words_named_go_with_them(tmp_path: Path, backend: str) -> None:
    """A group's daily summary is made of events and its global one of dailies: neither cites bob's
    message, yet both quoted it; and the place his words named was an entity of his scope."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        memory.set_person(Person(id="bob", name="鲍勃"), agent="a")
        memory.add([{"text": "我住在QZXBOBHOME小区", "time": T0}], agent="a", person="bob")
        memory.add(
            [
                {"text": f"大家好 {ALICE}", "speaker": "alice", "time": T0 + timedelta(minutes=1)},
                {"text": "我喜欢QZXBOBFILM电影", "speaker": "bob", "time": T0 + timedelta(minutes=2)},
                {"text": f"一起去吧 {ALICE}", "speaker": "alice", "time": T0 + timedelta(minutes=3)},
            ],
            agent="a",
            space="g1",
        )
        memory.flush(agent="a", person="bob")
        memory.flush(agent="a", space="g1")
        memory.summarize(T0.date(), agent="a", person="bob")
        memory.summarize(T0.date(), agent="a", space="g1")
        entities = [e.name for e in memory.entities(agent="a", person="bob")]
        assert any("QZXBOBHOME" in name for name in entities), entities
        memory.forget_person("bob", agent="a")
        texts = [m.text for m in memory.memories(agent="a", space="g1", limit=500)]
        assert not [t for t in texts if "QZXBOBFILM" in t], texts
        hits = memory.recall("QZXBOBFILM 电影", agent="a", space="g1", person="alice", limit=50).hits
        assert not [h.text for h in hits if "QZXBOBFILM" in h.text]
        assert not memory.entities(agent="a", person="bob")


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_anothers_lines_whose_chunks_went_are_indexed_again_behind_the_call(tmp_path: Path, backend: str) -> None:
    """Ben's turns right after ann's embedded hers, so their chunks go with her; they are his own lines,
    found by keyword at once and indexed again behind the call, though the claims of their first indexing
    have not expired yet."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        lines = [("ann", "我喜欢爬山"), ("ben", "我家的猫叫QZXBENCAT"), ("ben", "我住在QZXBENHOME"), ("cat", "好呀")]
        said = [{"text": t, "speaker": s, "time": T0 + timedelta(minutes=i)} for i, (s, t) in enumerate(lines)]
        memory.add(said, agent="a", space="g")
        done = memory.forget_person("ann", agent="a")
        assert done.reindexed >= 2
        assert any("QZXBENCAT" in hit.text for hit in memory.recall("QZXBENCAT", agent="a", space="g").hits)
        memory.indexed()
        chunks = [m.text for m in memory.memories(agent="a", space="g", kinds=[MemoryKind.CHUNK], limit=50)]
        assert any("QZXBENCAT" in text for text in chunks) and any("QZXBENHOME" in text for text in chunks), chunks
        assert not any("爬山" in text for text in chunks)


def _evening(rounds: int) -> list[dict[str, Any]]:
    """A group's evening: ann, ben and cat each say a line a round, three minutes apart; ids ``ann0``, ``ben0``…"""
    lines = [("ann", "我下周三要去QZXANNCITY出差"), ("ben", "这周末有人去看电影吗"), ("cat", "今天好冷啊")]
    return [
        {
            "text": f"{text}，第{round_}次",
            "speaker": who,
            "time": T0 + timedelta(minutes=3 * round_ + i),
            "id": f"{who}{round_}",
        }
        for round_ in range(rounds)
        for i, (who, text) in enumerate(lines)
    ]


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_the_others_talk_in_a_group_keeps_its_events_when_a_member_is_forgotten(tmp_path: Path, backend: str) -> None:
    """Events of a group's talk hold every member's turns: forgetting one took them all, and the others'
    lines were never extracted again (12 events of a group's evening became 1)."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        said = _evening(12)
        memory.add(said, agent="a", space="g")
        memory.flush(agent="a", space="g")

        def extracted() -> tuple[list[str], set[str]]:
            made = memory.memories(agent="a", space="g", kinds=[MemoryKind.EVENT, MemoryKind.FACT], limit=500)
            events = [m.text for m in made if m.kind is MemoryKind.EVENT]
            return events, {source for m in made for source in m.sources}

        before, _ = extracted()
        assert len(before) > 1 and all("QZXANNCITY" in text for text in before)
        memory.forget_person("ann", agent="a")
        memory.run_jobs()
        after, sources = extracted()
        assert after and not any("QZXANNCITY" in text for text in after)
        # every line of ben's and cat's is extracted again: none is left as if never said
        assert {line["id"] for line in said if line["speaker"] != "ann"} <= sources
        assert any("今天好冷啊" in text for text in after)
        # and again when a second member goes: the events made anew held cat's lines too
        memory.forget_person("cat", agent="a")
        memory.run_jobs()
        last, sources = extracted()
        assert last and not any("今天好冷啊" in text for text in last)
        assert {line["id"] for line in said if line["speaker"] == "ben"} <= sources


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_a_second_member_forgotten_before_the_first_erasures_folds_ran_leaves_the_rest_extracted(
    tmp_path: Path, backend: str
) -> None:
    """Forgetting cat deleted the fold queued again by ann's erasure, as it named cat's lines; ben's lines, whose
    events went with ann, were in no other job and never extracted again."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        said = _evening(8)
        memory.add(said, agent="a", space="g")
        memory.flush(agent="a", space="g")
        memory.forget_person("ann", agent="a")
        memory.forget_person("cat", agent="a")  # before the worker ran ann's erasure's folds
        memory.run_jobs()
        made = memory.memories(agent="a", space="g", kinds=[MemoryKind.EVENT, MemoryKind.FACT], limit=500)
        sources = {source for m in made for source in m.sources}
        assert {line["id"] for line in said if line["speaker"] == "ben"} <= sources
        assert not [m.text for m in made if "QZXANNCITY" in m.text or "今天好冷啊" in m.text]


class _FailsFirst(RuleExtractor):
    """The first fold's extraction fails (an LLM down), the rules take the later ones."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def extract(self, fold: Fold) -> Extraction:
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("LLM down")
        return await super().extract(fold)


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_a_member_forgotten_from_a_failed_fold_planned_past_leaves_its_other_lines_extracted(
    tmp_path: Path, backend: str
) -> None:
    """A fold failed for good that later folds were planned past is retried later; the erasure deleted it (it
    named ann's lines), and ben's and cat's lines in it, behind working memory, were never extracted."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    config = Config(worker={"enabled": False, "max_attempts": 1, "failed_retry_minutes": 0})
    store = make(tmp_path / "s")
    with Memory(tmp_path, store=store, embedder=HashEmbedder(32), config=config, extractor=_FailsFirst()) as memory:  # type: ignore[arg-type]
        said = _evening(20)
        memory.add(said[:30], agent="a", space="g")
        memory.run_jobs()  # the first fold fails
        memory.add(said[30:], agent="a", space="g")
        memory.run_jobs()  # later folds are done past it
        states = sorted(job.state.value for job in memory.jobs(agent="a"))
        assert "failed" in states and "done" in states
        memory.forget_person("ann", agent="a")
        memory.flush(agent="a", space="g")  # working memory's tail too
        made = memory.memories(agent="a", space="g", kinds=[MemoryKind.EVENT, MemoryKind.FACT], limit=500)
        sources = {source for m in made for source in m.sources}
        assert {line["id"] for line in said if line["speaker"] != "ann"} <= sources
        assert not [m.text for m in made if "QZXANNCITY" in m.text]


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_the_folds_extracting_the_others_lines_again_are_queued_in_the_erasures_transaction(
    tmp_path: Path, backend: str
) -> None:
    """They were queued after the erasure's commit, so a kill between the two left ben's and cat's lines with no
    event and no fold ever to make one. The store now plans them inside its transaction: a planner that fails
    leaves everything as it was, and the jobs are pending the moment ``erase`` returns."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        said = _evening(6)
        memory.add(said, agent="a", space="g")
        memory.flush(agent="a", space="g")
        store = memory.store
        kept = len(memory.memories(agent="a", space="g", limit=500))

        def fails(messages: Sequence[Message]) -> list[Job]:
            raise RuntimeError("planner failed")

        with pytest.raises(RuntimeError):
            store.erase("a", (), person="ann", refold=fails)
        assert len(memory.memories(agent="a", space="g", limit=500)) == kept
        assert len(store.get_messages("a", [str(line["id"]) for line in said])) == len(said)

        planned: list[Job] = []

        def plan(messages: Sequence[Message]) -> list[Job]:
            planned.extend(refolds("a", memory.config)(messages))
            return planned

        done = store.erase("a", (), person="ann", refold=plan)
        assert done.refold and planned
        others = {line["id"] for line in said if line["speaker"] != "ann"}
        assert set(done.refold) <= others
        queued = [job for job in store.list_jobs("a", [JobState.PENDING], limit=100) if job.payload.get("again")]
        assert sorted(job.key for job in queued) == sorted(job.key for job in planned)
        assert {i for job in queued for i in job.payload["message_ids"]} == set(done.refold)


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_a_name_another_person_goes_by_takes_only_what_is_said_where_the_erased_one_talks(
    tmp_path: Path, backend: str
) -> None:
    """jie and ben are both 阿杰 (ben speaks under it in g2): erasing jie takes the facts and entity of 阿杰 in
    the group jie talks in, and none of ben's in his."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        memory.set_person(Person(id="jie", name="杰", aliases=["阿杰"]), agent="a")
        memory.set_person(Person(id="kai", aliases=["凯子"]), agent="a")
        memory.add([{"text": "我喜欢爬山", "speaker": "jie", "time": T0}], agent="a", space="g1")
        said = [("阿杰", "我喜欢猫"), ("阿杰", "我家的猫叫小白"), ("erin", "小白真可爱"), ("fay", "是啊")]
        memory.add(
            [{"text": t, "speaker": s, "time": T0 + timedelta(minutes=i)} for i, (s, t) in enumerate(said)],
            agent="a",
            space="g2",
        )
        memory.flush(agent="a", space="g2")
        for space, marker in (("g1", "QZXJIEFACT"), ("g2", "QZXBENFACT")):
            memory.remember(f"阿杰是{marker}", agent="a", space=space, kind=MemoryKind.FACT, data={"subject": "阿杰"})
        memory.create_entity("阿杰", agent="a", space="g1", type=EntityType.OBJECT)  # g2's is ben's, from his words
        memory.remember("凯子是QZXKAIFACT", agent="a", space="g2", kind=MemoryKind.FACT, data={"subject": "凯子"})
        ben_facts = {m.text for m in memory.memories(agent="a", space="g2", kinds=[MemoryKind.FACT], limit=50)}
        assert {"阿杰喜欢猫", "阿杰是QZXBENFACT"} <= ben_facts
        memory.forget_person("jie", agent="a")
        facts = {m.text for m in memory.memories(agent="a", space="g2", kinds=[MemoryKind.FACT], limit=50)}
        assert facts == ben_facts
        assert "阿杰" in [e.name for e in memory.entities(agent="a", space="g2")]
        assert not memory.memories(agent="a", space="g1", kinds=[MemoryKind.FACT], limit=50)
        assert "阿杰" not in [e.name for e in memory.entities(agent="a", space="g1")]
        memory.forget_person("kai", agent="a")  # a name nobody else goes by: its facts go wherever they are
        assert "凯子是QZXKAIFACT" not in {m.text for m in memory.memories(agent="a", space="g2", limit=50)}


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_forgetting_a_member_named_like_the_agent_takes_their_lines_and_spares_the_agents(
    tmp_path: Path, backend: str
) -> None:
    """A member called 祈煜 speaks as 祈煜（用户） (flows.ingest.namesake): erasing them takes those lines,
    never the agent's own lines, entity or facts, which go by the agent's name."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        said = [("user", "祈煜", "我喜欢爬山 QZXNAMESAKE"), ("assistant", "祈煜", "爬山很好 QZXAGENTLINE")]
        lines = [
            {"id": f"n{i}", "role": role, "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (role, who, text) in enumerate(said)
        ]
        memory.add(lines, agent="祈煜", space="g")
        persona = memory.remember("祈煜是QZXPERSONA", agent="祈煜", kind=MemoryKind.FACT, data={"subject": "祈煜"})
        memory.forget_person("祈煜", agent="祈煜")
        assert [m.id for m in memory.messages(["n0", "n1"], agent="祈煜")] == ["n1"]
        assert memory.get(persona.id, agent="祈煜").text == "祈煜是QZXPERSONA"


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_in_one_group_a_shared_nickname_keeps_what_the_other_one_said_of_themself(tmp_path: Path, backend: str) -> None:
    """Two members both go by 阿杰 in one group: erasing one takes what 阿杰 said there and what names 阿杰
    with no message behind it, and leaves the other's own words about himself (阿杰喜欢猫, from his lines)."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        memory.set_person(Person(id="qq_10001", aliases=["阿杰"]), agent="a")
        memory.set_person(Person(id="qq_20002", aliases=["阿杰"]), agent="a")
        said = [
            ("qq_10001", "我喜欢爬山"),
            ("qq_20002", "我喜欢猫"),
            ("qq_20002", "我住在QZXBENHOME"),
            ("erin", "好呀"),
        ]
        memory.add(
            [{"text": t, "speaker": s, "time": T0 + timedelta(minutes=i)} for i, (s, t) in enumerate(said)],
            agent="a",
            space="g",
        )
        memory.flush(agent="a", space="g")
        memory.remember("阿杰是QZXJIEFACT", agent="a", space="g", kind=MemoryKind.FACT, data={"subject": "阿杰"})
        before = {m.text for m in memory.memories(agent="a", space="g", kinds=[MemoryKind.FACT], limit=50)}
        assert {"阿杰喜欢爬山", "阿杰喜欢猫", "阿杰住在QZXBENHOME", "阿杰是QZXJIEFACT"} <= before
        memory.forget_person("qq_10001", agent="a")
        after = {m.text for m in memory.memories(agent="a", space="g", kinds=[MemoryKind.FACT], limit=50)}
        assert after == before - {"阿杰喜欢爬山", "阿杰是QZXJIEFACT"}


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_forgetting_a_member_whose_name_only_looks_like_the_agents_takes_their_lines(
    tmp_path: Path, backend: str
) -> None:
    """``Аva`` (a Cyrillic А) prints as the agent ``Ava`` and speaks as ``Аva (user)``: erasing ``Аva`` finds
    those lines and spares the agent's."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        said = [("user", "\u0410va", "I love hiking QZXLOOKALIKE"), ("assistant", "Ava", "Hiking is great QZXAGENT")]
        lines = [
            {"id": f"n{i}", "role": role, "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (role, who, text) in enumerate(said)
        ]
        memory.add(lines, agent="Ava", space="g")
        assert [m.speaker for m in memory.messages(["n0"], agent="Ava")] == ["\u0410va (user)"]
        persona = memory.remember("Ava is QZXPERSONA", agent="Ava", kind=MemoryKind.FACT, data={"subject": "Ava"})
        memory.forget_person("\u0410va", agent="Ava")
        assert [m.id for m in memory.messages(["n0", "n1"], agent="Ava")] == ["n1"]
        assert memory.get(persona.id, agent="Ava").text == "Ava is QZXPERSONA"
        assert all("QZXLOOKALIKE" not in m.text for m in memory.memories(agent="Ava", limit=50))


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_forgetting_a_lookalike_member_takes_the_lines_stored_under_their_name_before_the_rule(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines ``Аva`` said before look-alike names were told apart are stored under ``Аva`` as sent, the ones
    after under ``Аva (user)``: erasing ``Аva`` takes both, and still spares the agent's."""
    make: Callable[[Path], object] = STORE_FACTORIES[backend]
    with Memory(tmp_path, store=make(tmp_path / "s"), embedder=HashEmbedder(32), config=QUIET) as memory:  # type: ignore[arg-type]
        said = [("user", "\u0410va", "I love hiking QZXBEFORE"), ("assistant", "Ava", "Hiking is great QZXAGENT")]
        lines = [
            {"id": f"n{i}", "role": role, "speaker": who, "text": text, "time": T0 + timedelta(minutes=i)}
            for i, (role, who, text) in enumerate(said)
        ]
        with monkeypatch.context() as before_the_rule:
            before_the_rule.setattr("huiyi.flows.ingest.user_speaker", lambda speaker, agent: speaker)
            memory.add(lines, agent="Ava", space="g")
        memory.add(
            [{"id": "n2", "speaker": "\u0410va", "text": "QZXAFTER", "time": T0 + timedelta(minutes=5)}],
            agent="Ava",
            space="g",
        )
        assert [m.speaker for m in memory.messages(["n0", "n2"], agent="Ava")] == ["\u0410va", "\u0410va (user)"]
        assert memory.forget_person("\u0410va", agent="Ava").messages == 2
        assert [m.id for m in memory.messages(["n0", "n1", "n2"], agent="Ava")] == ["n1"]
        assert all("QZXBEFORE" not in m.text for m in memory.memories(agent="Ava", limit=50))


def test_a_consolidation_an_erasure_overtook_keeps_no_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process forgets bob while this one consolidates: the run's report, written after, may quote what
    went, so it is not kept (a run with no erasure meanwhile keeps one)."""
    from huiyi.flows.consolidate import run

    with Memory(tmp_path / "s", embedder=HashEmbedder(64), config=QUIET) as memory:
        _fill(memory)
        memory.consolidate(agent="a", space="g1")
        assert [r.kind for r in memory.reports(agent="a")] == ["consolidate"]
        consolidate = run.consolidate

        async def overtaken(*args: object, **kwargs: object) -> object:
            report = await consolidate(*args, **kwargs)  # type: ignore[arg-type]
            memory.store.erase("a", [], person="bob", names=["bob", "鲍勃"])  # as another process would
            return report

        monkeypatch.setattr(run, "consolidate", overtaken)
        memory.consolidate(agent="a", space="g1")
        # the erasure took the first run's report (bob spoke in g1), and the second's is not kept
        assert memory.reports(agent="a") == []
