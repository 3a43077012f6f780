"""The HTTP client against servers that answer wrongly: every wrong answer is a RemoteError, never a
success, a raw parse error or a wait without end."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from huiyi.client import Client, RemoteError
from huiyi.errors import InvalidInput
from huiyi.model import Person

Answer = Callable[[httpx.Request], httpx.Response]


def client_of(answer: Answer) -> Client:
    return Client("http://huiyi.test", transport=httpx.MockTransport(answer), timeout=2)


WRONG = {
    "html page": lambda _: httpx.Response(200, text="<html>proxy login</html>", headers={"content-type": "text/html"}),
    "truncated json": lambda _: httpx.Response(200, text='{"messages": [{"id": "x"'),
    "wrong types": lambda _: httpx.Response(200, json={"messages": "nope", "items": 3, "deleted": "many", "text": 1}),
    "a list": lambda _: httpx.Response(200, json=[1, 2, 3]),
    "null": lambda _: httpx.Response(200, json=None),
    "empty 200": lambda _: httpx.Response(200),
}


@pytest.mark.parametrize("answer", WRONG.values(), ids=WRONG.keys())
def test_a_wrong_answer_is_a_remote_error(answer: Answer) -> None:
    with client_of(answer) as client:
        calls: list[Callable[[], object]] = [
            lambda: client.add(["我下周三要考驾照"], agent="a", person="p"),
            lambda: client.recall("考试", agent="a", person="p"),
            lambda: client.memories(agent="a", person="p"),
            lambda: client.context(agent="a", person="p"),
            lambda: client.delete_entity("ent_1", agent="a"),
            lambda: client.core_blocks_for(agent="a"),
        ]
        for call in calls:
            with pytest.raises(RemoteError) as caught:
                call()
            assert caught.value.code == "bad_answer"


def test_a_redirect_is_not_a_success() -> None:
    # a proxy sending http to https: nothing was deleted or stored, so the caller must be told
    def redirect(_: httpx.Request) -> httpx.Response:
        return httpx.Response(301, headers={"location": "https://huiyi.test/"})

    with client_of(redirect) as client:
        for call in (
            lambda: client.delete("mem_1", agent="a"),
            lambda: client.set_person(Person(id="p", name="P"), agent="a"),
            lambda: client.add(["hi"], agent="a", person="p"),
        ):
            with pytest.raises(RemoteError) as caught:
                call()
            assert caught.value.status == 301


@pytest.fixture
def trickling() -> Iterator[str]:
    """A server that sends one byte of its answer every 0.2 s for 3 s: httpx's read timeout never trips."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(3)
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
            for _ in range(15):
                if stop.is_set():
                    return
                try:
                    conn.sendall(b" ")
                except OSError:
                    return
                time.sleep(0.2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    listener.close()
    thread.join(timeout=5)


def test_the_timeout_bounds_the_whole_call(trickling: str) -> None:
    with Client(trickling, timeout=0.5) as client:
        started = time.monotonic()
        with pytest.raises(RemoteError) as caught:
            client.add(["hi"], agent="a", person="p")
        assert time.monotonic() - started < 2
        assert caught.value.code == "unreachable"


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_a_timeout_that_is_no_time_is_refused(timeout: float) -> None:
    with pytest.raises(InvalidInput, match="timeout"):
        Client("http://127.0.0.1:8765", timeout=timeout)


@pytest.mark.parametrize("url", ["127.0.0.1:8765", "", "ftp://huiyi.test", "http://[::1"])
def test_a_base_url_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(InvalidInput, match="base_url"):
        Client(url)


@pytest.mark.parametrize("key", ["…", "密钥", "sk-1 2", "sk-1\n"])
def test_an_api_key_no_header_can_carry_is_refused(key: str) -> None:
    # the README's placeholder "…" once failed deep in httpx with a UnicodeEncodeError at the first call
    with pytest.raises(InvalidInput, match="api_key"):
        Client("http://127.0.0.1:8765", api_key=key)


def test_a_closed_client_says_so() -> None:
    client = client_of(lambda _: httpx.Response(200, json={"status": "ok"}))
    client.close()
    with pytest.raises(RemoteError, match="closed"):
        client.health()
