"""The HTTP client against servers that answer wrongly: every wrong answer is a RemoteError, never a
success, a raw parse error or a wait without end."""

from __future__ import annotations

import asyncio
import http.server
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime

import httpx
import pytest

from huiyi.client import AsyncClient, Client, RemoteError
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


# the caller's own mistakes: Memory's InvalidInput, in words that name them ------------------------------
def test_a_refusal_names_the_field_and_the_rule() -> None:
    # the server's 422 says only "the request is not valid"; its details say what to fix
    details = [{"loc": ["body", "limit"], "msg": "Input should be less than or equal to 100"}]
    details += [{"loc": ["body", "keywords"], "msg": f"rule {i}"} for i in range(6)]
    refused = {"error": {"code": "invalid_input", "message": "the request is not valid", "details": details}}
    with client_of(lambda _: httpx.Response(422, json=refused)) as client, pytest.raises(InvalidInput) as caught:
        client.recall("考试", agent="a", person="p", limit=1000)
    assert str(caught.value).startswith("the request is not valid (limit: Input should be less than or equal to 100;")
    assert str(caught.value).endswith("keywords: rule 3; and 2 more)")


def _never(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"nothing should be sent: {request.method} {request.url}")


def test_what_no_json_or_url_carries_is_invalid_input_before_anything_is_sent() -> None:
    # httpx raised a bare ValueError, TypeError or UnicodeEncodeError, or sent a string as its characters
    with client_of(_never) as client:
        for call, said in (
            (lambda: client.feedback("n1", float("nan"), agent="a"), "value is nan, not a finite number"),
            (lambda: client.update("n1", {"importance": float("inf")}, agent="a"), "importance is inf"),
            (lambda: client.remember("x", agent="a", data={"at": datetime(2024, 1, 1)}), "data.at holds a datetime"),
            (lambda: client.recall("考\ud800", agent="a", person="p"), "query contains a lone surrogate"),
            (lambda: client.get("m\ud800", agent="a"), "memory id contains a lone surrogate"),
            (lambda: client.memories(agent="a\ud800"), "agent contains a lone surrogate"),
            (lambda: client.get_person("p\x00", agent="a"), "person id contains a NUL"),
            (lambda: client.remember("x", agent="a", keywords="生日"), "keywords are a list, not one string"),
            (lambda: client.create_entity("豆包", agent="a", aliases="包包"), "aliases are a list"),
            (lambda: client.remember("x", agent="a", kind="notes"), "not a valid MemoryKind; the choices are"),
            (lambda: client.link("m1", "m2", agent="a", kind="causes"), "not a valid LinkKind"),
            (lambda: client.recall("考试", agent="a", now="2024-05-01"), "a time is a datetime, not str"),
            # read as the call's scope beside the changes, where Memory refuses them as no field it edits
            (lambda: client.update("n1", {"text": "改", "person": "p"}, agent="a"), "cannot be edited: ['person']"),
            (
                lambda: client.update_entity("e1", {"agent": "b"}, agent="a"),
                "entity fields cannot be edited: ['agent']",
            ),
        ):
            with pytest.raises(InvalidInput, match=re.escape(said)):
                call()


def test_a_bad_request_is_invalid_input_and_a_remote_error() -> None:
    # a 400 (an integer past 64 bits in data) is what Memory refuses as InvalidInput
    refused = {"error": {"code": "bad_request", "message": "the request is malformed"}}
    with client_of(lambda _: httpx.Response(400, json=refused)) as client, pytest.raises(InvalidInput) as caught:
        client.remember("x", agent="a", data={"n": 2**62})
    assert isinstance(caught.value, RemoteError) and caught.value.status == 400


def test_arguments_memory_refuses_the_client_refuses_alike() -> None:
    with client_of(_never) as client:
        with pytest.raises(InvalidInput, match="the kinds are chunk, event, fact"):
            client.recall("考试", agent="a", person="p", kinds=["notes"])
        with pytest.raises(InvalidInput, match="the kinds are"):
            client.memories(agent="a", person="p", kinds=["nope"])
        for limit, offset in ((0, 0), (-1, 0), (1_000_001, 0), (10, -1), (True, 0)):
            with pytest.raises(InvalidInput, match="limit is a whole number from 1 to 1000000"):
                client.memories(agent="a", person="p", limit=limit, offset=offset)
        with pytest.raises(InvalidInput) as caught:
            client.add([{"text": ""}], agent="a", person="p")
        assert str(caught.value) == "message 0: text: message text is empty"  # Memory.add's words, not pydantic's
        for ids in ("m1", b"m1"):
            with pytest.raises(InvalidInput, match="not one string"):
                client.forget_messages(ids, agent="a")  # type: ignore[arg-type]
            with pytest.raises(InvalidInput, match="not one string"):
                client.messages(ids, agent="a")  # type: ignore[arg-type]
        assert client.forget_messages([], agent="a").purged  # Memory forgets nothing and says so


def test_forgetting_more_messages_than_one_call_takes() -> None:
    # the server takes 1000 ids a call, Memory any number: a user's 2500 messages went as one 422
    sent: list[list[str]] = []

    def forget(request: httpx.Request) -> httpx.Response:
        ids = json.loads(request.content)["ids"]
        assert len(ids) <= 1000
        sent.append(ids)
        return httpx.Response(200, json={"messages": len(ids), "memories": 1, "purged": len(sent) != 2})

    with client_of(forget) as client:
        erased = client.forget_messages([f"m{i}" for i in range(2500)], agent="a")
    assert [len(part) for part in sent] == [1000, 1000, 500] and sent[2][-1] == "m2499"
    assert (erased.messages, erased.memories, erased.purged) == (2500, 3, False)


class _Health(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the client pools the connection, as with huiyi serve

    def do_GET(self) -> None:
        body = b'{"status": "ok"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


def test_an_async_client_serves_one_event_loop_after_another() -> None:
    # AsyncMemory does; the client's pooled connection belonged to the first loop: "Event loop is closed"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = AsyncClient(f"http://127.0.0.1:{server.server_address[1]}", timeout=5)
        for _ in range(2):
            assert asyncio.run(client.health()) == {"status": "ok"}
        asyncio.run(client.close())
        with pytest.raises(RemoteError, match="closed"):  # not httpx's RuntimeError
            asyncio.run(client.health())
    finally:
        server.shutdown()
        server.server_close()


def test_an_export_line_may_hold_a_line_separator() -> None:
    # the server writes U+2028 and U+0085 inside a text as they are; str.splitlines ended the line there
    rows = [{"type": "export", "agent": "a"}, {"type": "message", "text": "第一行\u2028第二行\x85第三行\r"}]
    body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    with client_of(lambda _: httpx.Response(200, text=body)) as client:
        assert client.export(agent="a", person="p") == rows
