"""Scope isolation under look-alike ids: no private chat, group or person ever reaches another's recall or prompt.

Every message carries a marker naming the conversation it was said in; whatever a caller reads back
(recall, context, working memory, overview) may only hold markers of the conversations it may see.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import STORE_FACTORIES
from huiyi import InvalidInput, Memory
from huiyi.model import Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 1, 20, 0)
MARK = re.compile(r"MK(\d+)X")


@pytest.fixture(params=sorted(STORE_FACTORIES))
def open_memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Memory]]:
    opened: list[Memory] = []

    def make() -> Memory:
        store = STORE_FACTORIES[request.param](tmp_path / f"store{len(opened)}")
        memory = Memory(tmp_path, store=store, embedder=HashEmbedder(32))
        opened.append(memory)
        return memory

    yield make
    for memory in opened:
        memory.close()


@pytest.mark.parametrize("group_first", [False, True])
def test_a_group_named_like_a_private_chat_shares_nothing_with_it(
    open_memory: Callable[[], Memory], group_first: bool
) -> None:
    """The reported repro: a group whose id is ``dm:bob`` must not be bob's private chat."""
    memory = open_memory()
    private = [{"text": "我的银行卡密码是 SECRET417", "time": T0}]
    group = [{"text": "大家好", "speaker": "mallory", "time": T0 + timedelta(minutes=1 if not group_first else -1)}]
    for part in [group, private] if group_first else [private, group]:
        if part is private:
            memory.add(part, agent="a", person="bob")
        else:
            memory.add(part, agent="a", space="dm:bob")

    assert [m.text for m in memory.working_memory(agent="a", space="dm:bob")] == ["大家好"]
    assert "SECRET417" not in memory.context(agent="a", space="dm:bob", person="mallory", message="密码是多少").text
    memory.flush(agent="a", space="dm:bob")
    memory.flush(agent="a", person="bob")

    seen_by_group = memory.recall("银行卡密码 SECRET417", agent="a", space="dm:bob", person="mallory", limit=50)
    assert all("SECRET417" not in hit.text for hit in seen_by_group.hits)
    assert "SECRET417" not in memory.context(agent="a", space="dm:bob", person="mallory", message="密码是多少").text
    assert all("SECRET417" not in m.text for m in memory.overview(agent="a", space="dm:bob"))
    # bob still has his own chat
    assert any("SECRET417" in hit.text for hit in memory.recall("密码", agent="a", person="bob", limit=50).hits)


def test_ids_with_control_characters_are_refused(open_memory: Callable[[], Memory]) -> None:
    memory = open_memory()
    for bad in ({"person": "bob\x1fofficial"}, {"space": "g\x00"}, {"person": " "}):
        with pytest.raises(InvalidInput):
            memory.add(["hi"], agent="a", **bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        memory.add(["hi"], agent="a\x1fb", person="p")
    with pytest.raises(InvalidInput):
        memory.recall("hi", agent="a", person="p\x1f")
    with pytest.raises(InvalidInput, match="person id must be a string, not int"):
        memory.recall("hi", agent="a", person=7)  # type: ignore[arg-type]
    assert memory.store.count_memories() == 0


BAD_IDS = ["", " ", "a\x1fb", "x" * 201, "\ud800", 7, None]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_a_scope_made_from_its_parts_refuses_what_the_validated_one_refuses(bad: object) -> None:
    """The named constructors skip pydantic (a first recall built its validator); the checks stay the same."""
    with pytest.raises(ValueError):
        Scope(agent="a", kind=ScopeKind.PERSON, key=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Scope.of_person("a", bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Scope.of_space("a", bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Scope.official(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Scope.from_tag("a", f"person:{bad}" if isinstance(bad, str) else "person:")
    with pytest.raises(ValueError, match="no key"):
        Scope.from_tag("a", "official:x")


def test_a_scope_made_from_its_parts_is_the_validated_one() -> None:
    for made, validated in (
        (Scope.official("a"), Scope(agent="a", kind=ScopeKind.OFFICIAL)),
        (Scope.of_person("a", "dm:bob"), Scope(agent="a", kind=ScopeKind.PERSON, key="dm:bob")),
        (Scope.of_space("a", "g"), Scope.model_validate({"agent": "a", "kind": "space", "key": "g"})),
        (Scope.from_tag("a", "person:b:ob"), Scope(agent="a", kind=ScopeKind.PERSON, key="b:ob")),
    ):
        assert made == validated and hash(made) == hash(validated) and {made, validated} == {made}
        assert made.model_dump() == validated.model_dump() and made.tag == validated.tag
        assert type(made.kind) is ScopeKind
        with pytest.raises(ValueError):
            made.key = "other"  # type: ignore[misc]


# ids chosen to look alike: a group named after a person's private chat or scope tag, separators in ids
PERSONS = ["bob", "dm:bob", "person:bob", "b:ob", "space:g"]
GROUPS = ["g", "dm:bob", "person:bob", "space:g", "bob"]
AGENTS = ["a", "a:person", "a:b"]


def _allowed(agent: str, person: str, group: str | None) -> set[tuple[str, str, str]]:
    keys = {(agent, "person", person), (agent, "official", "")}
    if group is not None:
        keys.add((agent, "space", group))
    return keys


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16))
def test_no_marker_ever_crosses_look_alike_scopes(open_memory: Callable[[], Memory], seed: int) -> None:
    """Random chats under look-alike ids; every marker a caller reads back belongs to a scope it may see."""
    rng = random.Random(seed)
    memory = open_memory()
    owner: dict[str, tuple[str, str, str]] = {}
    words = ["猫", "火锅", "生日", "考试", "海边", "密码", "red", "cat"]

    def text_for(key: tuple[str, str, str]) -> str:
        marker = f"MK{len(owner)}X"
        owner[marker[2:-1]] = key
        return f"{' '.join(rng.choices(words, k=3))} {marker}"

    when = T0
    for _ in range(40):
        agent = rng.choice(AGENTS)
        when += timedelta(minutes=1)
        if rng.random() < 0.5:
            person = rng.choice(PERSONS)
            memory.add([{"text": text_for((agent, "person", person)), "time": when}], agent=agent, person=person)
        else:
            group, speaker = rng.choice(GROUPS), rng.choice(PERSONS)
            message = {"text": text_for((agent, "space", group)), "speaker": speaker, "time": when}
            memory.add([message], agent=agent, space=group)
    memory.remember(text_for(("a", "official", "")), agent="a")
    for agent in AGENTS:
        for person in PERSONS:
            memory.flush(agent=agent, person=person)
        for group in GROUPS:
            memory.flush(agent=agent, space=group)

    for _ in range(12):
        agent, person, group = rng.choice(AGENTS), rng.choice(PERSONS), rng.choice([None, *GROUPS])
        allowed = _allowed(agent, person, group)
        seen = [
            hit.text for hit in memory.recall(rng.choice(words), agent=agent, person=person, space=group, limit=50).hits
        ]
        seen.append(memory.context(agent=agent, person=person, space=group, message=rng.choice(words)).text)
        seen += [m.text for m in memory.working_memory(agent=agent, person=person, space=group)]
        for text in seen:
            for marker in MARK.findall(text):
                assert owner[marker] in allowed, f"{owner[marker]} leaked to {agent}/{person}/{group}: {text!r}"


def test_an_older_store_moves_its_chats_to_typed_spaces(tmp_path: Path) -> None:
    """Schema 3 stored a private chat as ``dm:<person>``; opening it moves every row to the scope's space."""
    import sqlite3

    from huiyi.store.sqlite import DB_NAME, SQLiteStore, _statements
    from huiyi.store.sqlite.schema import MIGRATIONS

    tmp_path.mkdir(exist_ok=True)
    conn = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    for script in MIGRATIONS[:3]:
        for statement in _statements(script):
            conn.execute(statement)
    conn.execute("INSERT INTO meta VALUES ('schema_version', '3')")
    rows = [("a", "m1", "dm:bob", "person:bob", "bob", 1), ("a", "m2", "g1", "space:g1", "amy", 1)]
    for agent, id_, space, scope, speaker, seq in rows:
        conn.execute(
            "INSERT INTO messages (agent, id, space, scope, speaker, role, text, time, seq, indexed) "
            "VALUES (?, ?, ?, ?, ?, 'user', 'hi', 0, ?, 1)",
            (agent, id_, space, scope, speaker, seq),
        )
    conn.execute("INSERT INTO working_memory VALUES ('a', 'dm:bob', 2)")
    conn.execute(
        "INSERT INTO jobs (id, kind, agent, key, payload, created_at) VALUES "
        "('j1', 'fold', 'a', 'k1', '{\"space\": \"g1\", \"scope\": \"space:g1\"}', 0)"
    )
    conn.close()

    store = SQLiteStore(tmp_path)
    try:
        assert [m.space for m in store.get_messages("a", ["m1", "m2"])] == ["person:bob", "space:g1"]
        assert store.working_start("a", "person:bob") == 2
        assert store.list_jobs("a")[0].payload["space"] == "space:g1"
    finally:
        store.close()


def _executor_call(memory: Memory, agent: str, person: str | None, space: str | None, name: str, args: dict) -> dict:
    import json

    from huiyi.faces.tools import ToolExecutor

    tools = ToolExecutor(memory.core, agent, person=person, space=space)
    return json.loads(memory._loop.run(tools.call(name, args)))  # type: ignore[no-any-return]


def _core_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "core"
    folder.mkdir()
    (folder / "persona.md").write_text("---\nlabel: persona\n---\n我是一个助手。\n", encoding="utf-8")
    (folder / "a-persona.md").write_text("---\nlabel: persona\nagent: a\n---\n我是祈煜。\n", encoding="utf-8")
    (folder / "human.md").write_text("---\nlabel: human\nlimit: 500\n---\n（还不了解）\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("backend", sorted(STORE_FACTORIES))
def test_core_memory_tools_write_only_the_callers_own_block(tmp_path: Path, backend: str) -> None:
    from huiyi.config import Config

    folder = _core_folder(tmp_path)
    config = Config(worker={"enabled": False}, context={"core_blocks": str(folder)})
    store = STORE_FACTORIES[backend](tmp_path / "store")
    with Memory(tmp_path, store=store, embedder=HashEmbedder(32), config=config) as memory:
        said = _executor_call(
            memory, "a", "p1", None, "core_memory_append", {"label": "human", "content": "p1 的秘密 SECRET9"}
        )
        assert said["status"] == "appended"
        in_group = _executor_call(
            memory, "a", "p1", "g1", "core_memory_append", {"label": "human", "content": "p1 在群里"}
        )
        assert in_group["status"] == "appended"  # the speaker's own block, in a group too
        no_person = _executor_call(memory, "a", None, "g1", "core_memory_append", {"label": "human", "content": "x"})
        assert no_person["error"]["code"] == "invalid_input"

        for agent, person in [("a", "p2"), ("b", "p1"), ("b", "p2")]:
            text = memory.context(agent=agent, person=person, message="你还记得我吗").text
            assert "SECRET9" not in text and "p1 在群里" not in text
            assert "SECRET9" not in " ".join(b.text for b in memory.core_blocks_for(agent=agent, person=person))
        own = memory.context(agent="a", person="p1", message="你还记得我吗").text
        assert "SECRET9" in own and "p1 在群里" in own and "我是祈煜" in own and "我是一个助手" not in own
        assert "我是一个助手" in memory.context(agent="b", person="p1", message="hi").text

        for agent in ("a", "b"):  # the shared persona, and a's own, are read-only to tools by default
            refused = _executor_call(
                memory, agent, "p1", None, "core_memory_append", {"label": "persona", "content": "x"}
            )
            assert refused["error"]["code"] == "read_only"
        assert (folder / "persona.md").read_text(encoding="utf-8").endswith("我是一个助手。\n")
        assert (folder / "a-persona.md").read_text(encoding="utf-8").endswith("我是祈煜。\n")


def test_an_agents_own_blocks_are_editable_by_its_tools_only_when_configured(tmp_path: Path) -> None:
    from huiyi.config import Config

    folder = _core_folder(tmp_path)
    config = Config(worker={"enabled": False}, context={"core_blocks": str(folder), "tools_edit_agent_blocks": True})
    with Memory(tmp_path / "store", embedder=HashEmbedder(32), config=config) as memory:
        done = _executor_call(
            memory, "a", "p1", None, "core_memory_append", {"label": "persona", "content": "我爱画画。"}
        )
        assert done["block"]["text"] == "我是祈煜。\n我爱画画。"
        shared = _executor_call(memory, "b", "p1", None, "core_memory_append", {"label": "persona", "content": "x"})
        assert shared["error"]["code"] == "read_only"
        assert "我爱画画" not in memory.context(agent="b", person="p1", message="hi").text


def test_a_new_store_never_reads_the_entity_cache_of_a_freed_one(tmp_path: Path) -> None:
    """The entity cache was keyed by id(store): a new store reusing a freed object's id read its entities."""
    import gc

    import numpy as np

    from huiyi.model import Entity, Scope
    from huiyi.recall.routes import scope_entities
    from huiyi.store.sqlite import SQLiteStore

    scope = Scope.of_person("a", "bob")
    first = SQLiteStore(tmp_path / "one")
    first.upsert_entity(Entity(scope=scope, name="鲍勃的秘密情人"), np.ones(4, dtype=np.float32))
    assert [e.name for e in scope_entities(first, [scope])] == ["鲍勃的秘密情人"]
    old_id = id(first)
    first.close()
    del first
    gc.collect()
    reused = False
    for attempt in range(200):  # CPython hands a freed object's id to the next object of its size
        second = SQLiteStore(tmp_path / f"two{attempt}")
        reused = id(second) == old_id
        assert scope_entities(second, [scope]) == []
        second.close()
        if reused:
            break
        del second
