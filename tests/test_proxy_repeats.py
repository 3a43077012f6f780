"""A stateless bot sends each user line alone: the same words said again later are a new message, while a
client retrying the same request stores nothing twice (by its Idempotency-Key, else a retry window)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from huiyi.config import Config
from huiyi.faces.proxy import MemoryProxy, read_turn
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder

AGENT = "祈煜"
EVENING = datetime(2025, 3, 1, 21, 0)


def _said(tmp_path: Path, requests: list[tuple[timedelta, dict[str, Any], dict[str, str]]], **where: str) -> list[Any]:
    """Each (time after the first evening, body, headers) sent through the proxy's storing of user lines;
    working memory after them."""
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 32})
    clock = [EVENING]

    async def run() -> list[Any]:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=config, clock=lambda: clock[0])
        proxy = MemoryProxy(memory, config.proxy, "http://127.0.0.1:9", "")
        try:
            for after, body, headers in requests:
                clock[0] = EVENING + after
                turn = await proxy._dated(read_turn(body, {"x-huiyi-agent": quote(AGENT), **headers}, config.proxy))
                await proxy._store_user_lines(turn)
            return await memory.working_memory(agent=AGENT, **where)
        finally:
            await proxy.aclose()
            await memory.close()

    return asyncio.run(run())


def _alone(text: str, name: str | None = None) -> dict[str, Any]:
    line = {"role": "user", "content": text, **({"name": name} if name else {})}
    return {"model": "deepseek-chat", "messages": [{"role": "system", "content": "你是祈煜。"}, line]}


PRIVATE = {"x-huiyi-person": quote("木木")}
GROUP = {"x-huiyi-space": "g1"}


def test_the_same_words_on_another_evening_are_kept(tmp_path: Path) -> None:
    stored = _said(
        tmp_path, [(timedelta(0), _alone("晚安"), PRIVATE), (timedelta(days=1), _alone("晚安"), PRIVATE)], person="木木"
    )
    assert [m.text for m in stored] == ["晚安", "晚安"]


def test_a_retry_within_the_window_is_stored_once(tmp_path: Path) -> None:
    retries = [(timedelta(seconds=s), _alone("记住我明天考试"), PRIVATE) for s in (0, 5, 130)]
    assert [m.text for m in _said(tmp_path / "a", retries, person="木木")] == ["记住我明天考试"]
    # the windows are slices of the clock (180 s from 21:00): a retry across a slice's edge is found too
    across = [(timedelta(seconds=s), _alone("记住我明天考试"), PRIVATE) for s in (170, 200)]
    assert [m.text for m in _said(tmp_path / "b", across, person="木木")] == ["记住我明天考试"]


def test_an_idempotency_key_decides_alone(tmp_path: Path) -> None:
    """The same key is the same request however late; another key is another message however soon."""
    stored = _said(
        tmp_path,
        [
            (timedelta(0), _alone("好"), {**PRIVATE, "idempotency-key": "k1"}),
            (timedelta(hours=2), _alone("好"), {**PRIVATE, "idempotency-key": "k1"}),
            (timedelta(hours=2, seconds=1), _alone("好"), {**PRIVATE, "idempotency-key": "k2"}),
        ],
        person="木木",
    )
    assert [m.text for m in stored] == ["好", "好"]


def test_group_members_saying_the_same_are_each_kept(tmp_path: Path) -> None:
    stored = _said(
        tmp_path,
        [
            (timedelta(0), _alone("哈哈", "alice"), GROUP),
            (timedelta(seconds=2), _alone("哈哈", "bob"), GROUP),
            (timedelta(seconds=4), _alone("哈哈", "bob"), GROUP),  # bob's request retried
            (timedelta(minutes=30), _alone("哈哈", "alice"), GROUP),  # alice laughs again later
        ],
        space="g1",
    )
    assert [(m.speaker, m.text) for m in stored] == [("alice", "哈哈"), ("bob", "哈哈"), ("alice", "哈哈")]


# the window runs on UTC: New York's clocks fall back from 02:00 EDT to 01:00 EST at 06:00 UTC on 2025-11-02
FALL_BACK = datetime(2025, 11, 2, 6, 0, tzinfo=UTC)


def _said_in_new_york(tmp_path: Path, requests: list[tuple[datetime, dict[str, Any]]]) -> list[Any]:
    """Each (UTC moment, body) sent by 木木 through the proxy of a New York bot; working memory after them."""
    config = Config(timezone="America/New_York", worker={"enabled": False}, embed={"provider": "hash", "dim": 32})
    clock = [FALL_BACK]

    async def run() -> list[Any]:
        memory = AsyncMemory(tmp_path, embedder=HashEmbedder(32), config=config, clock=lambda: clock[0])
        proxy = MemoryProxy(memory, config.proxy, "http://127.0.0.1:9", "")
        try:
            for moment, body in requests:
                clock[0] = moment
                turn = await proxy._dated(read_turn(body, {"x-huiyi-agent": quote(AGENT), **PRIVATE}, config.proxy))
                await proxy._store_user_lines(turn)
            return await memory.working_memory(agent=AGENT, person="木木")
        finally:
            await proxy.aclose()
            await memory.close()

    return asyncio.run(run())


def test_a_retry_across_a_fall_back_is_stored_once(tmp_path: Path) -> None:
    """01:59 EDT, then the retry two minutes later at 01:01 EST: the wall clock went back an hour."""
    retries = [
        (FALL_BACK - timedelta(minutes=1), _alone("记住我明天考试")),
        (FALL_BACK + timedelta(minutes=1), _alone("记住我明天考试")),
    ]
    assert [m.text for m in _said_in_new_york(tmp_path, retries)] == ["记住我明天考试"]


def test_the_same_words_an_hour_later_in_the_repeated_hour_are_kept(tmp_path: Path) -> None:
    """01:30 EDT and 01:30 EST are an hour apart, though the wall clock reads the same."""
    said = [(FALL_BACK - timedelta(minutes=30), _alone("晚安")), (FALL_BACK + timedelta(minutes=30), _alone("晚安"))]
    assert [m.text for m in _said_in_new_york(tmp_path, said)] == ["晚安", "晚安"]
    # a retry a minute into the second 01:30 is still the second one's
    said.append((FALL_BACK + timedelta(minutes=31), _alone("晚安")))
    assert [m.text for m in _said_in_new_york(tmp_path / "again", said)] == ["晚安", "晚安"]
