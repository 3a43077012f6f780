"""``huiyi.client``: the same calls as ``Memory``, answered by a server, with the same answers.

One scenario runs against an embedded ``Memory`` and against a ``Client``; what each observes must be
equal. The fast tests reach the app in process (``httpx.ASGITransport``); the slow ones a real
``huiyi serve`` in a child process, over a socket, with API keys.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from huiyi import Memory
from huiyi.client import AsyncClient, Client, RemoteError
from huiyi.config import Config
from huiyi.errors import InvalidInput, NotFound
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.model import LinkKind, Person
from huiyi.providers.embed import Embedder
from huiyi_serve import HuiyiServe

A, P = "祈煜", "木木"
SHANGHAI = timezone(timedelta(hours=8))
SAID = datetime(2024, 5, 1, 20, 0)


def scenario(memory: Any) -> dict[str, Any]:
    """Every method, as an app would call it; returns what it saw (nothing that differs by run)."""
    seen: dict[str, Any] = {}
    lines = [
        {"text": "我下周三要考驾照，好紧张", "id": "m1", "time": SAID},
        {"text": "周末我想去海边看日出", "id": "m2", "time": SAID + timedelta(minutes=1)},
        {"text": "我家的猫叫团子", "id": "m3", "time": SAID + timedelta(minutes=2)},
    ]
    stored = memory.add(lines, agent=A, person=P)
    seen["stored"] = [(m.id, m.speaker, m.time.replace(tzinfo=None)) for m in stored]
    seen["again"] = memory.add(lines[:1], agent=A, person=P)
    memory.set_person(Person(id=P, name="苏木", aliases=["木木", "阿木"], platform_ids={"qq": "10001"}), agent=A)
    seen["person"] = memory.get_person(P, agent=A)
    seen["nobody"] = memory.get_person("nobody", agent=A)

    note = memory.remember("祈煜的生日是三月七日", agent=A, time=datetime(2024, 3, 7), keywords=["生日"], id="n1")
    other = memory.remember("祈煜喜欢下雨天", agent=A, importance=0.9, place="书房")
    seen["note"] = (note.id, note.text, note.time.replace(tzinfo=None), note.keywords, note.created_at is not None)
    seen["other"] = (other.text, other.importance, other.place)
    painter = memory.remember("", agent=A, kind="fact", subject=A, predicate="是", object="画家", fact_kind="attribute")
    seen["fact"] = (painter.text, painter.data["subject"], painter.data["fact_kind"])
    seen["get"] = memory.get("n1", agent=A).text
    seen["official"] = sorted(item.text for item in memory.memories(agent=A))
    seen["feedback"] = memory.feedback("n1", 0.5, agent=A).feedback
    seen["link"] = memory.link("n1", other.id, agent=A, kind=LinkKind.CAUSE).kind

    hits = memory.recall("考驾照是哪天", agent=A, person=P, limit=3).hits
    seen["recall"] = hits[0].text
    seen["recall_notes"] = [h.text for h in memory.recall("生日", agent=A, kinds=["note"], limit=5).hits]
    seen["context"] = "考驾照" in memory.context(agent=A, person=P, message="我什么时候考驾照？").text
    seen["messages"] = [m.text for m in memory.messages(["m2", "m1", "zzz"], agent=A)]
    seen["working"] = [m.text for m in memory.working_memory(agent=A, person=P)]
    seen["flush"] = [job.kind for job in memory.flush(agent=A, person=P)]
    seen["overview"] = [item.kind for item in memory.overview(agent=A, person=P)]
    seen["person_memories"] = sorted({item.kind for item in memory.memories(agent=A, person=P, limit=1000)})
    seen["core_blocks"] = memory.core_blocks_for(agent=A, person=P)

    seen["update"] = memory.update("n1", {"text": "祈煜的生日是三月八日", "importance": 0.7}, agent=A).text
    # an entity of our own: the chat's 团子 is extracted as one already
    made = memory.create_entity("豆包", agent=A, person=P, type="具体实体", aliases=["包包"])
    seen["entity"] = (made.name, made.type, made.aliases, made.scope)
    seen["entity_update"] = memory.update_entity(made.id, {"aliases": ["包包", "小豆"]}, agent=A).aliases
    seen["entities"] = [e.name for e in memory.entities(agent=A, person=P)]
    seen["get_entity"] = memory.get_entity(made.id, agent=A).aliases
    with pytest.raises(InvalidInput):
        memory.create_entity("小豆", agent=A, person=P)  # a name another entity of the scope holds
    seen["delete_entity"] = memory.delete_entity(made.id, agent=A)
    with pytest.raises(NotFound):
        memory.get_entity(made.id, agent=A)
    seen["merges"] = memory.merges(agent=A)
    memory.consolidate(agent=A, person=P, dry_run=True)
    seen["reports"] = [(r.kind, r.scope, r.dry_run) for r in memory.reports(agent=A)]

    memory.delete(other.id, agent=A)
    with pytest.raises(NotFound):
        memory.get(other.id, agent=A)
    with pytest.raises(InvalidInput):
        memory.recall("  ", agent=A)
    seen["forget_messages"] = memory.forget_messages(["m2"], agent=A).messages
    seen["after_forget"] = [m.text for m in memory.messages(["m1", "m2"], agent=A)]
    seen["forget_person"] = memory.forget_person(P, agent=A).messages
    seen["gone"] = memory.get_person(P, agent=A)
    return seen


@pytest.fixture
def embedded(tmp_path: Path, e5: Embedder) -> Iterator[Memory]:
    with Memory(tmp_path / "embedded", embedder=e5, config=Config(worker={"enabled": False})) as memory:
        yield memory


@pytest.fixture
def in_process(tmp_path: Path, e5: Embedder) -> Iterator[Client]:
    core = AsyncMemory(tmp_path / "served", embedder=e5, config=Config(worker={"enabled": False}))
    transport = httpx.ASGITransport(app=create_app(core))
    with Client("http://huiyi.test", transport=transport) as client:
        yield client
    asyncio.run(core.close())


def test_the_client_sees_what_an_embedded_memory_sees(embedded: Memory, in_process: Client) -> None:
    expected = scenario(embedded)
    assert expected["recall"].endswith("考驾照，好紧张") and expected["flush"]
    assert scenario(in_process) == expected


def test_an_empty_batch_is_nothing_to_store_for_both(embedded: Memory, in_process: Client) -> None:
    """``Memory.add([])`` answered [] and the client raised the server's "at least 1 item" (helper)."""
    for memory in (embedded, in_process):
        assert memory.add([], agent="祈煜", person="木木") == []
        with pytest.raises(InvalidInput, match="name a person"):
            memory.add([], agent="祈煜")
        with pytest.raises(InvalidInput, match="agent is required"):
            memory.add([], agent="", person="木木")


def test_times_come_back_with_their_zone(in_process: Client) -> None:
    stored = in_process.add({"text": "早上好", "time": SAID}, agent=A, person=P)
    assert stored[0].time == SAID.replace(tzinfo=SHANGHAI)
    zoned = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)  # 20:30 in Shanghai
    stored = in_process.add({"text": "晚上好", "time": zoned}, agent=A, person=P)
    assert stored[0].time == zoned and stored[0].time.utcoffset() == timedelta(hours=8)
    note = in_process.remember("一条设定", agent=A)
    assert note.created_at is not None and note.created_at.tzinfo is not None
    assert abs(note.created_at - datetime.now(UTC)) < timedelta(minutes=5)


def test_the_client_has_the_methods_of_memory() -> None:
    """Same names, same parameters (Memory's extra ones are for embedded use: progress, extract, a clock)."""
    embedded_only = {"progress", "extract", "now", "explain"}  # explain: the console's debugger, in process
    # a search page by page: the console's route, which Memory has no twin of
    remote_only = {"search_page", "iter_search"}
    # a scope's export over HTTP; embedded, huiyi.formats.export_lines reads the store itself
    remote_only |= {"export"}
    for name, method in inspect.getmembers(Client, inspect.isfunction):
        if name.startswith("_") or name in {"close", "health"} | remote_only:
            continue
        ours = inspect.signature(method).parameters
        theirs = inspect.signature(getattr(Memory, name)).parameters
        assert set(theirs) - set(ours) <= embedded_only - ({"now"} if name == "recall" else set()), name
        assert set(ours) <= set(theirs), name
        for param in ours.values():
            assert param.kind == theirs[param.name].kind, f"{name}({param.name})"
    mirrored = {"add", "recall", "context", "remember", "get", "delete", "memories", "messages", "set_person"}
    mirrored |= {"get_person", "feedback", "link", "flush", "forget_person", "forget_messages", "core_blocks_for"}
    assert mirrored <= set(dir(Client)) and mirrored <= set(dir(AsyncClient))


def test_a_base_url_past_the_root_is_no_memory_missing(tmp_path: Path, hash_embedder: Embedder) -> None:
    # …/v1, as the proxy's OpenAI clients take it: every route 404'd as not_found, which the client raised as
    # NotFound (a memory missing) and get_person answered None (a person with no record)
    core = AsyncMemory(tmp_path / "served", embedder=hash_embedder, config=Config(worker={"enabled": False}))
    transport = httpx.ASGITransport(app=create_app(core))
    with (
        Client("http://huiyi.test/v1", transport=transport) as wrong,
        Client("http://huiyi.test", transport=transport) as right,
    ):
        for call in (lambda: wrong.get_person(P, agent=A), lambda: wrong.add(["你好"], agent=A, person=P)):
            with pytest.raises(RemoteError) as caught:
                call()
            assert caught.value.status == 404 and caught.value.code == "no_route"
            assert "/v1/v1/" in str(caught.value) and not isinstance(caught.value, NotFound)
        assert right.get_person(P, agent=A) is None
        with pytest.raises(NotFound):
            right.get("n1", agent=A)
    asyncio.run(core.close())


def test_an_unreachable_server_is_a_typed_error() -> None:
    with Client(f"http://127.0.0.1:{_closed_port()}", timeout=2) as client, pytest.raises(RemoteError) as caught:
        client.health()
    assert caught.value.code == "unreachable"


def _closed_port() -> int:
    from huiyi_serve import free_port

    return free_port()


# a live huiyi serve --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HuiyiServe]:
    with HuiyiServe(tmp_path_factory.mktemp("serve")) as server:
        yield server


@pytest.mark.slow
def test_a_live_server_answers_as_embedded_memory_does(served: HuiyiServe, embedded: Memory) -> None:
    expected = scenario(embedded)
    with Client(served.url, api_key=served.key) as client:
        assert client.health()["status"] == "ok"
        assert scenario(client) == expected


@pytest.mark.slow
def test_a_live_server_with_the_async_client_and_its_keys(served: HuiyiServe) -> None:
    async def run() -> None:
        async with AsyncClient(served.url, api_key=served.key) as client:
            await client.add(["我养了一只叫团子的猫"], agent="阿离", person="小七")
            hits = (await client.recall("猫叫什么", agent="阿离", person="小七")).hits
            assert hits and "团子" in hits[0].text
            assert hits[0].time is not None and hits[0].time.tzinfo is not None
        async with AsyncClient(served.url) as anonymous:
            with pytest.raises(RemoteError) as caught:
                await anonymous.recall("猫", agent="阿离", person="小七")
            assert caught.value.status == 401 and caught.value.code == "unauthorized"
        async with AsyncClient(served.url, api_key=served.narrow_key) as narrow:
            with pytest.raises(RemoteError) as caught:
                await narrow.memories(agent="阿离")
            assert caught.value.status == 403 and caught.value.code == "forbidden"
            assert await narrow.memories(agent="其他") == []

    asyncio.run(run())


def test_the_client_exports_a_users_data_as_huiyi_export_writes_it(in_process: Client) -> None:
    in_process.add([{"text": "我住在杭州", "time": SAID}, {"text": "我养了一只猫", "time": SAID}], agent=A, person=P)
    lines = in_process.export(agent=A, person=P)
    assert lines[0]["type"] == "export" and lines[0]["person"] == P
    assert [line["text"] for line in lines if line["type"] == "message"] == ["我住在杭州", "我养了一只猫"]
    with pytest.raises(InvalidInput):  # refused as the library refuses it
        in_process.export(agent=A, person="")


def test_one_async_client_serves_one_event_loop_after_another() -> None:
    """Used from a second asyncio.run, the client sent on the first loop's connections: every call failed
    with RuntimeError('Event loop is closed') instead of reaching the server."""
    from fake_openai import FakeOpenAI  # any HTTP server: its answer to /v1/recall is an error either way

    with FakeOpenAI(embed_dim=8) as server:
        client = AsyncClient(server.base_url.rsplit("/v1", 1)[0])

        async def ask() -> None:
            with pytest.raises(RemoteError, match="no route"):
                await client.recall("猫", agent="阿离", person="小七")

        asyncio.run(ask())  # the loop ends without close, as asyncio.run does

        async def again() -> None:
            try:
                await ask()
            finally:
                await client.close()

        asyncio.run(again())
