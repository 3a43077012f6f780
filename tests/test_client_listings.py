"""The client pages jobs, reports, entities and a search by the server's cursors (``*_page`` and ``iter_*``),
lists past the server's largest page, and falls back cleanly against a server older than cursors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from huiyi.client import AsyncClient, Client
from huiyi.config import Config
from huiyi.faces import http_browse
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder
from huiyi_serve import HuiyiServe

A = "祈煜"
PERSONS = ["木木", "阿哲", "小七", "阿离", "苏苏"]


def _core(folder: Path) -> AsyncMemory:
    return AsyncMemory(folder, embedder=HashEmbedder(16), config=Config(worker={"enabled": False}))


def fill(memory: Client) -> None:
    """Five jobs, three reports, five entities and five memories a search for 设定 finds (of seven)."""
    for person in PERSONS:
        memory.add([f"{person}说我家的猫叫团子"], agent=A, person=person)
        memory.flush(agent=A, person=person, wait=False)
    for _ in range(3):
        memory.consolidate(agent=A, person="木木", dry_run=True)
    for name in ["团子", "豆包", "年糕", "汤圆", "麻薯"]:
        memory.create_entity(name, agent=A, person="木木")
    for day in range(1, 6):
        memory.remember(f"设定{day}", agent=A, person="木木", time=datetime(2024, 5, day, 9))
    memory.remember("别的事", agent=A, person="木木", time=datetime(2024, 5, 6, 9))


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[Client]:
    core = _core(tmp_path / "served")
    with Client("http://huiyi.test", transport=httpx.ASGITransport(app=create_app(core))) as client:
        fill(client)
        yield client
    asyncio.run(core.close())


def test_jobs_reports_and_entities_walk_by_the_cursor_header(remote: Client) -> None:
    jobs = remote.jobs(agent=A)
    assert len(jobs) >= 5
    first = remote.jobs_page(agent=A, limit=2)
    assert [job.id for job in first.items] == [job.id for job in jobs[:2]] and first.next_cursor
    second = remote.jobs_page(agent=A, limit=2, cursor=first.next_cursor)
    assert [job.id for job in second.items] == [job.id for job in jobs[2:4]]
    assert [job.id for job in remote.iter_jobs(agent=A, per_page=2)] == [job.id for job in jobs]
    pending = remote.jobs(agent=A, states="pending")
    assert [job.id for job in remote.iter_jobs(agent=A, states=["pending"], per_page=1)] == [j.id for j in pending]

    reports = remote.reports(agent=A)
    assert len(reports) == 3 and remote.reports_page(agent=A, limit=2).next_cursor
    assert [report.id for report in remote.iter_reports(agent=A, per_page=2)] == [report.id for report in reports]
    assert list(remote.iter_reports(agent=A, scope="person:阿哲", per_page=1)) == []

    names = [entity.name for entity in remote.entities(agent=A, person="木木")]
    assert {"团子", "豆包", "年糕", "汤圆", "麻薯"} <= set(names)
    page = remote.entities_page(agent=A, person="木木", limit=2)
    assert [entity.name for entity in page.items] == names[:2] and page.next_cursor
    assert [entity.name for entity in remote.iter_entities(agent=A, person="木木", per_page=2)] == names
    last = remote.entities_page(agent=A, person="木木", limit=len(names))
    assert len(last.items) == len(names) and last.next_cursor is None


def test_a_search_pages_by_its_cursor(remote: Client) -> None:
    first = remote.search_page("设定", agent=A, person="木木", limit=2)
    assert [item.text for item in first.items] == ["设定5", "设定4"] and first.total == 5 and first.next_cursor
    found = [item.text for item in remote.iter_search("设定", agent=A, person="木木", per_page=2)]
    assert found == [f"设定{day}" for day in range(5, 0, -1)]
    since = remote.iter_search("设定", agent=A, person="木木", since=datetime(2024, 5, 4), per_page=1)
    assert [item.text for item in since] == ["设定5", "设定4"]
    assert [item.text for item in remote.iter_search("别的", agent=A, person="木木")] == ["别的事"]


def test_a_search_goes_on_past_a_scan_that_matched_none(remote: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    # the server scans its newest memories a batch at a time; a batch without a match answers an empty
    # page that names the next (here the newest, 别的事, is a batch of its own)
    monkeypatch.setattr(http_browse, "SCAN", 1)
    assert remote.search_page("设定", agent=A, person="木木", limit=2).items == []
    found = [item.text for item in remote.iter_search("设定", agent=A, person="木木", per_page=2)]
    assert found == [f"设定{day}" for day in range(5, 0, -1)]


def test_a_list_longer_than_the_servers_largest_page_is_read_in_pages(remote: Client) -> None:
    # the server answers at most 200 reports and 1000 jobs at once; Memory's limits are far larger
    assert len(remote.reports(agent=A, limit=500)) == 3
    assert len(remote.jobs(agent=A, limit=5000)) == len(remote.jobs(agent=A))


def test_leaving_a_walk_early_leaves_the_client_usable(remote: Client) -> None:
    walk = remote.iter_jobs(agent=A, per_page=1)
    assert next(walk).id == remote.jobs(agent=A)[0].id
    walk.close()
    assert len(list(remote.iter_entities(agent=A, person="木木", per_page=2))) >= 5


class OlderServer(httpx.AsyncBaseTransport):
    """The app as a server older than cursors answered: it reads no cursor (nor a limit of entities, which
    it listed whole) and names no next page, in a header or a body."""

    def __init__(self, core: AsyncMemory) -> None:
        self.app = httpx.ASGITransport(app=create_app(core))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url.copy_remove_param("cursor")
        if url.path == "/v1/entities" and request.method == "GET":
            url = url.copy_remove_param("limit")
        answer = await self.app.handle_async_request(
            httpx.Request(request.method, url, headers=request.headers, content=await request.aread())
        )
        body = await answer.aread()
        if url.path in ("/v1/memories", "/v1/search") and answer.status_code == 200:
            found = json.loads(body)
            found.pop("next_cursor", None)
            body = json.dumps(found).encode()
        headers = [
            (k, v) for k, v in answer.headers.items() if k.lower() not in ("huiyi-next-cursor", "content-length")
        ]
        return httpx.Response(answer.status_code, headers=headers, content=body)


def test_an_older_server_is_walked_as_far_as_it_pages(tmp_path: Path) -> None:
    core = _core(tmp_path / "served")
    with Client("http://huiyi.test", transport=httpx.ASGITransport(app=create_app(core))) as current:
        fill(current)
        jobs = current.jobs(agent=A)
        memories = current.memories(agent=A, person="木木")
    with Client("http://huiyi.test", transport=OlderServer(core)) as older:
        # by offset, as it paged memories and a search
        found = [item.text for item in older.iter_search("设定", agent=A, person="木木", per_page=2)]
        assert found == [f"设定{day}" for day in range(5, 0, -1)]
        walked = older.iter_memories(agent=A, person="木木", per_page=2)
        assert [item.id for item in walked] == [item.id for item in memories] and len(memories) > 2
        # every entity at once; jobs and reports a page with no next: the last, read once
        assert len(list(older.iter_entities(agent=A, person="木木", per_page=2))) >= 5
        assert [job.id for job in older.iter_jobs(agent=A, per_page=2)] == [job.id for job in jobs[:2]]
        assert older.jobs_page(agent=A, limit=2).next_cursor is None
        assert len(older.reports(agent=A, limit=2)) == 2
    asyncio.run(core.close())


class SameCursorAgain(httpx.AsyncBaseTransport):
    """A wrong server: every page of jobs names the same next page."""

    def __init__(self, core: AsyncMemory) -> None:
        self.app = httpx.ASGITransport(app=create_app(core))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url.copy_remove_param("cursor")
        answer = await self.app.handle_async_request(
            httpx.Request(request.method, url, headers=request.headers, content=await request.aread())
        )
        body = await answer.aread()
        headers = [(k, v) for k, v in answer.headers.items() if k.lower() != "content-length"]
        return httpx.Response(answer.status_code, headers=[*headers, ("Huiyi-Next-Cursor", "again")], content=body)


def test_a_server_naming_the_same_page_again_ends_the_walk(tmp_path: Path) -> None:
    core = _core(tmp_path / "served")
    with Client("http://huiyi.test", transport=SameCursorAgain(core)) as remote:
        fill(remote)
        assert len(list(remote.iter_jobs(agent=A, per_page=2))) == 4  # the first page, and it once again
        every = len(remote.jobs_page(agent=A, limit=1000).items)
        assert len(remote.jobs(agent=A, limit=10 * every)) == 2 * every
    asyncio.run(core.close())


@pytest.mark.slow
def test_a_live_server_is_walked_by_the_async_client(tmp_path: Path) -> None:
    with HuiyiServe(tmp_path / "serve") as served:
        with Client(served.url, api_key=served.key) as client:
            fill(client)
            jobs = [job.id for job in client.jobs(agent=A)]

        async def run() -> None:
            async with AsyncClient(served.url, api_key=served.key) as remote:
                assert [job.id async for job in remote.iter_jobs(agent=A, per_page=2)] == jobs
                assert len([report async for report in remote.iter_reports(agent=A, per_page=2)]) == 3
                names = [entity.name async for entity in remote.iter_entities(agent=A, person="木木", per_page=2)]
                assert {"团子", "豆包", "年糕", "汤圆", "麻薯"} <= set(names)
                found = [item.text async for item in remote.iter_search("设定", agent=A, person="木木", per_page=2)]
                assert found == [f"设定{day}" for day in range(5, 0, -1)]
                page = await remote.jobs_page(agent=A, limit=1)
                assert page.next_cursor and len(page.items) == 1

        asyncio.run(run())
