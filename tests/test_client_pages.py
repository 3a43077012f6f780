"""The client pages a server's memories by cursor: ``memories`` past its first page, ``memories_page`` and
``iter_memories``, so memories written or forgotten between pages skip or repeat none."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from huiyi.client import Client
from huiyi.client import listings as client_listings
from huiyi.config import Config
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder
from test_pages import iterate_while_forgetting


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[Client]:
    core = AsyncMemory(tmp_path / "served", embedder=HashEmbedder(16), config=Config(worker={"enabled": False}))
    with Client("http://huiyi.test", transport=httpx.ASGITransport(app=create_app(core))) as client:
        yield client
    asyncio.run(core.close())


def test_iterating_while_forgetting_sees_each_memory_once(remote: Client) -> None:
    iterate_while_forgetting(remote)


def test_the_clients_list_follows_cursors_past_its_first_page(remote: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_listings, "PAGE", 2)  # a page of two, so five memories take three answers
    for day in range(1, 6):
        remote.remember(f"设定{day}", agent="祈煜", time=datetime(2024, 5, day, 9))
    assert [item.text for item in remote.memories(agent="祈煜")] == [f"设定{day}" for day in range(5, 0, -1)]
    assert [item.text for item in remote.memories(agent="祈煜", offset=1, limit=3)] == ["设定4", "设定3", "设定2"]


class ForgetsAfterFirstPage(httpx.AsyncBaseTransport):
    """The app, which forgets the newest memory once the first page of a listing has been answered:
    another caller forgetting what this one just read."""

    def __init__(self, core: AsyncMemory) -> None:
        self.core, self.app = core, httpx.ASGITransport(app=create_app(core))
        self.pages = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = await self.app.handle_async_request(request)
        if request.method == "GET" and request.url.path == "/v1/memories":
            self.pages += 1
            if self.pages == 1:
                newest = await self.core.memories(agent="祈煜", limit=1)
                await self.core.delete(newest[0].id, agent="祈煜")
        return answer


def test_a_memory_forgotten_mid_listing_skips_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_listings, "PAGE", 2)
    core = AsyncMemory(tmp_path / "served", embedder=HashEmbedder(16), config=Config(worker={"enabled": False}))
    with Client("http://huiyi.test", transport=ForgetsAfterFirstPage(core)) as remote:
        for day in range(1, 6):
            remote.remember(f"设定{day}", agent="祈煜", time=datetime(2024, 5, day, 9))
        assert [item.text for item in remote.memories(agent="祈煜")] == [f"设定{day}" for day in range(5, 0, -1)]
    asyncio.run(core.close())
