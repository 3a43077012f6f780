"""A page of another origin that the operator opens, in a real browser (headless Chromium): its form posts
reach huiyi on 127.0.0.1 with no preflight and, with no API keys set, nothing else to stop them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from huiyi.config import Config
from huiyi.faces.demo import AGENT, seed_demo
from huiyi.faces.http import create_app
from huiyi.faces.http_hosts import guard_hosts
from huiyi.memory import AsyncMemory, Memory
from test_console_browser import ARGS, CHROMIUM, playwright_api, pytestmark, running  # noqa: F401

EVIL = "http://evil.test/"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The demo served as ``huiyi demo --serve`` serves it, and the id of its wrong merge."""
    directory: Path = tmp_path_factory.mktemp("demo")
    config = Config.load(None, worker={"enabled": False})
    seed_demo(directory, config)
    with Memory(directory, config=config) as memory:
        merge = memory.merges(agent=AGENT)[0].id
    app = guard_hosts(create_app(AsyncMemory(directory, config=config), close_on_shutdown=True), None)
    with running(app) as url:
        yield url, merge


def _merges(base_url: str) -> list[dict[str, Any]]:
    merges: list[dict[str, Any]] = httpx.get(base_url + "/v1/merges", params={"agent": AGENT}).json()
    return merges


def test_a_form_on_another_site_cannot_undo_a_merge(served: tuple[str, str]) -> None:
    base_url, merge = served
    attack = f'<form method="post" action="{base_url}/v1/merges/{merge}/undo?agent={AGENT}"></form>'
    html = f"<!doctype html><body>{attack}<script>document.forms[0].submit()</script></body>"
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page()
        page.route(EVIL, lambda route: route.fulfill(body=html, content_type="text/html"))
        with page.expect_response(lambda r: "/undo" in r.url) as answer:
            page.goto(EVIL)
        status = answer.value.status
        browser.close()
    assert status == 403
    assert [m["undone"] for m in _merges(base_url) if m["id"] == merge] == [False]
