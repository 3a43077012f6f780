"""``huiyi mcp`` over stdio as a host runs it: a subprocess that starts, is told to stop, and says why it cannot."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from huiyi.config import Config
from huiyi.memory import Memory

AGENT, PERSON = "祈煜", "木木"
ENVIRONMENT = {
    **os.environ,
    "HUIYI_EMBED__PROVIDER": "hash",
    "HUIYI_EMBED__DIM": "64",
    "HUIYI_WORKER__ENABLED": "false",
}


def start(store: Path | str, *scope: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "huiyi.faces.cli", "mcp", "-a", AGENT, *(scope or ("-p", PERSON))]
    return subprocess.Popen(
        [*command, "-s", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENVIRONMENT,
    )


class Session:
    """One host's side of the JSON-RPC over a server's pipes, initialized."""

    def __init__(self, server: subprocess.Popen[bytes]) -> None:
        self.server = server
        self.next_id = 0
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
        assert "result" in self.request("initialize", hello)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.server.stdin is not None
        self.server.stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
        self.server.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.server.stdout is not None
        answer: dict[str, Any] = json.loads(self.server.stdout.readline())
        assert answer["id"] == self.next_id, answer
        return answer

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.request("tools/call", {"name": tool, "arguments": arguments})["result"]
        assert not result["isError"], result
        return result["structuredContent"]  # type: ignore[no-any-return]


def stored(store: Path, memory_id: str) -> Any:
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 64})
    with Memory(store, config=config) as memory:
        return memory.get(memory_id, agent=AGENT)


def piped(calls: list[dict[str, Any]]) -> bytes:
    """A host's whole stdin at once: the handshake, ``calls``, then (as ``communicate`` sends it) its end."""
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *calls,
    ]
    return b"".join(json.dumps(message, ensure_ascii=False).encode() + b"\n" for message in messages)


def saves(count: int, ids: Callable[[int], object]) -> list[dict[str, Any]]:
    """``count`` create_memory calls, the n-th with id ``ids(n)``."""
    calls = []
    for number in range(count):
        arguments = {"subject": "我", "memory_type": "事实", "topic": "喜欢", "object": f"第{number}种茶"}
        call = {"name": "create_memory", "arguments": arguments}
        calls.append({"jsonrpc": "2.0", "id": ids(number), "method": "tools/call", "params": call})
    return calls


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_as_closing_stdin_does(tmp_path: Path, stop: signal.Signals) -> None:
    """SIGTERM killed the process before the store closed, dropping what recall had noted (a search's
    reinforcement is written once a second); Ctrl-C (SIGINT) left it hanging on stdin until the host closed it."""
    server = start(tmp_path / "store")
    try:
        session = Session(server)
        made = session.call(
            "create_memory", {"subject": "我", "memory_type": "事实", "topic": "喜欢", "object": "乌龙茶"}
        )
        found = session.call("search_memories", {"query": "乌龙茶"})
        assert found["memories"][0]["id"] == made["memory"]["id"]
        server.send_signal(stop)  # stdin stays open, as a host that signals before closing it leaves it
        assert server.wait(timeout=60) == 0
    finally:
        server.kill()
        server.communicate()
    kept = stored(tmp_path / "store", made["memory"]["id"])
    assert kept.text == "木木喜欢乌龙茶"
    assert kept.access_count == 1  # the search's reinforcement was written at close


def test_closing_stdin_stops_the_server_and_keeps_what_it_stored(tmp_path: Path) -> None:
    server = start(tmp_path / "store")
    try:
        made = Session(server).call(
            "create_memory", {"subject": "I", "memory_type": "fact", "topic": "likes", "object": "tea"}
        )
        out, _ = server.communicate(timeout=60)  # closes stdin, as a host does first
        assert server.returncode == 0 and out == b""
    finally:
        server.kill()
    assert stored(tmp_path / "store", made["memory"]["id"]).text == "木木 likes tea"


def test_what_the_client_asked_to_save_before_it_closed_stdin_is_saved(tmp_path: Path) -> None:
    """At stdin's end the SDK cancels the requests still running: saves the model had asked for were lost
    (here, most of five), though a host closes stdin as it quits, maybe right after a call."""
    server = start(tmp_path / "store")
    lines = piped(saves(5, lambda number: number + 1))
    server.communicate(lines, timeout=60)  # everything at once, then stdin's end
    assert server.returncode == 0
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 64})
    with Memory(tmp_path / "store", config=config) as memory:
        saved = {item.text for item in memory.memories(agent=AGENT, person=PERSON)}
    assert saved == {f"木木喜欢第{number}种茶" for number in range(5)}


def test_every_request_sent_before_stdin_closed_is_answered(tmp_path: Path) -> None:
    """At stdin's end the SDK closed its output with the calls still running: a host that sent 30 saves and
    closed stdin (as ``cat calls.jsonl | huiyi mcp`` does) read 3 answers, and a host that re-sends what
    went unanswered would save the rest twice. Each request gets its answer before the server exits."""
    server = start(tmp_path / "store")
    lines = piped([*saves(30, lambda number: f"save-{number}"), {"jsonrpc": "2.0", "id": 99, "method": "ping"}])
    out, _ = server.communicate(lines, timeout=60)
    assert server.returncode == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert sorted(map(str, (answer["id"] for answer in answers))) == sorted(
        ["0", "99", *(f"save-{number}" for number in range(30))]
    )
    assert all(not answer["result"].get("isError") for answer in answers if "save" in str(answer["id"]))


def test_a_host_that_stops_reading_first_still_has_what_it_sent_carried_out(tmp_path: Path) -> None:
    """A host that closed its end of our stdout and then sent calls and closed stdin: the SDK's writer raised
    BrokenPipeError, the server exited with code 1 and a traceback, and the saves it had not read were lost."""
    server = start(tmp_path / "store")
    assert server.stdout is not None and server.stdin is not None and server.stderr is not None
    server.stdout.close()
    with contextlib.suppress(BrokenPipeError):  # the server may be gone: the assertions say so
        server.stdin.write(piped(saves(40, lambda number: number + 1)))
        server.stdin.close()
    assert server.wait(timeout=60) == 0
    assert "Traceback" not in (errors := server.stderr.read().decode()) and "closed its end of stdout" in errors
    config = Config(worker={"enabled": False}, embed={"provider": "hash", "dim": 64})
    with Memory(tmp_path / "store", config=config) as memory:
        saved = {item.text for item in memory.memories(agent=AGENT, person=PERSON)}
    assert saved == {f"木木喜欢第{number}种茶" for number in range(40)}


def test_what_a_library_prints_while_serving_misses_the_protocol_stream(tmp_path: Path) -> None:
    """The answers go out on a descriptor of their own; stdout itself points at stderr meanwhile, as the SDK's
    own claim had it, so a stray print cannot break a host's JSON-RPC reading."""
    code = (  # a print on every line read, while the server runs
        "import runpy, sys\n"
        "from huiyi.faces import mcp_stdio\n"
        "plain = mcp_stdio._Asked.read\n"
        "def noisy(self, line):\n"
        "    print('stray line from a library', flush=True)\n"
        "    return plain(self, line)\n"
        "mcp_stdio._Asked.read = noisy\n"
        "sys.argv = ['huiyi', 'mcp', '-a', sys.argv[1], '-p', sys.argv[2], '-s', sys.argv[3]]\n"
        "runpy.run_module('huiyi.faces.cli', run_name='__main__')\n"
    )
    search = {"name": "search_memories", "arguments": {"query": "茶"}}
    calls = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": search}]
    server = subprocess.Popen(
        [sys.executable, "-c", code, AGENT, PERSON, str(tmp_path / "store")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENVIRONMENT,
    )
    out, errors = server.communicate(piped(calls), timeout=60)
    assert server.returncode == 0
    assert [json.loads(line)["id"] for line in out.splitlines()] == [0, 1]
    assert b"stray line from a library" in errors


def test_ids_alike_and_ids_repeated_each_get_their_answers(tmp_path: Path) -> None:
    """1 and "1" are two JSON-RPC ids, and a client that repeats an id is still owed an answer each time: the
    wait at stdin's end read them as one, so 20 saves (ids 0–19) answered none once 20 pings ("0"–"19") had
    been, and of 20 saves sent as id 7 one was answered."""
    pings = [{"jsonrpc": "2.0", "id": str(number), "method": "ping"} for number in range(20)]
    calls = [*saves(20, lambda number: number), *pings, *saves(5, lambda number: 7)]
    server = start(tmp_path / "store")
    out, _ = server.communicate(piped(calls), timeout=60)
    assert server.returncode == 0
    ids = [json.loads(line)["id"] for line in out.splitlines()]
    assert sorted(ids, key=repr) == sorted([0, *range(20), *(str(n) for n in range(20)), *[7] * 5], key=repr)


@pytest.mark.parametrize(
    ("line", "answered"),
    [
        ({"id": 5, "method": "ping"}, [0, 5]),  # no "jsonrpc": the SDK drops it; we answer it an error
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, [0]),  # a float id: read as a notification
        ({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "x"}, [0, 7]),
        ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12}}, [0]),
    ],
)
def test_a_line_the_sdk_answers_never_does_not_hold_the_end(
    tmp_path: Path, line: dict[str, Any], answered: list[int]
) -> None:
    """Stdin's end waits for answers only to what the SDK reads as a request: a line it drops unanswered
    held the exit for the whole wait (30 s), past the host's patience."""
    server = start(tmp_path / "store")
    lines = piped([line])
    try:
        out, _ = server.communicate(lines, timeout=20)  # well inside the 30 s a request would get
    finally:
        server.kill()
    assert server.returncode == 0
    assert sorted(json.loads(answer)["id"] for answer in out.splitlines()) == answered  # in any order


def test_a_request_the_sdk_cannot_read_is_answered_an_error_by_its_id(tmp_path: Path) -> None:
    """A request holding a 5,000-digit number or arrays nested 100,000 deep failed the SDK's reader, which
    dropped it with no answer and nothing on stderr: the host waited for it for ever (helper)."""
    huge = '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "x", "n": ' + "9" * 5000 + "}}\n"
    deep = (
        '{"jsonrpc": "2.0", "id": "deep", "method": "ping", "params": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}\n"
    )
    ping = json.dumps({"jsonrpc": "2.0", "id": 6, "method": "ping"}) + "\n"
    cut = '{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {\n'  # each told its own fault (helper)
    old = '{"jsonrpc": "1.0", "id": 9, "method": "ping"}\n'
    server = start(tmp_path / "store")
    out, _ = server.communicate(piped([]) + (huge + deep + ping + cut + old).encode(), timeout=60)
    answers = {answer["id"]: answer for answer in map(json.loads, out.splitlines())}
    assert server.returncode == 0 and sorted(answers, key=str) == [0, 5, 6, 8, 9, "deep"]
    assert answers[5]["error"]["code"] == answers["deep"]["error"]["code"] == -32600 and "result" in answers[6]
    said = {key: answers[key]["error"]["message"] for key in (5, "deep", 8, 9)}
    assert "digits" in said[5] and "nested too deep" in said["deep"] and "not a JSON-RPC 2.0 request" in said[9]
    assert answers[8]["error"]["code"] == -32700 and said[8].startswith("the line is not JSON")


def test_a_store_that_cannot_open_is_an_error_on_stderr_never_on_the_protocol_stream(tmp_path: Path) -> None:
    """The error line went to stdout, where the host reads JSON-RPC: it saw a parse error, not the reason."""
    not_a_folder = tmp_path / "memories"
    not_a_folder.write_text("a file", encoding="utf-8")
    server = start(not_a_folder)
    out, err = server.communicate(timeout=60)
    assert server.returncode == 2
    assert out == b""
    assert "is a file, not a folder" in err.decode()


def test_the_readmes_host_config_starts_servers_two_of_which_share_a_store(tmp_path: Path) -> None:
    """The README's ``mcpServers`` entry as Claude Desktop runs it: from another folder, with no PATH; two
    windows of it on one store see each other's memories."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"claude_desktop_config\.json.*?```json\n(.*?)```", readme, re.S)
    assert block is not None
    entry = json.loads(block.group(1))["mcpServers"]["huiyi"]
    command = entry["command"].replace("/path/to/huiyi/.venv/bin", str(Path(sys.executable).parent))
    args = [arg.replace("/path/to/memories", str(tmp_path / "memories")) for arg in entry["args"]]
    environment = {name: value for name, value in ENVIRONMENT.items() if name != "PATH"} | entry.get("env", {})
    host = StdioServerParameters(command=command, args=args, env=environment, cwd=tmp_path / "elsewhere")
    (tmp_path / "elsewhere").mkdir()

    async def main() -> None:
        async with Client(host) as first, Client(host) as second:
            saved = await first.call_tool("create_memory", {"subject": "我", "memory_type": "事件", "topic": "考驾照"})
            assert not saved.is_error
            found = await second.call_tool("archival_memory_search", {"query": "考驾照"})
            assert [m["text"] for m in found.structured_content["memories"]] == ["木木考驾照"]

    anyio.run(main)


def test_tool_arguments_sent_as_json_text_are_refused_by_name_and_store_nothing(tmp_path: Path) -> None:
    """Some hosts send ``arguments`` as the JSON text of the object; the SDK answered a bare "Invalid
    request parameters" that named neither the field nor the fix."""
    server = start(tmp_path / "store")
    try:
        session = Session(server)
        saving = {"subject": "我", "memory_type": "事实", "topic": "喜欢", "object": "茉莉花茶"}
        for arguments, problem in [
            (json.dumps(saving, ensure_ascii=False), "not a string holding one: send the object itself"),
            ("茉莉花茶", "not a string"),
            (7, "not a number"),
            (["茉莉花茶"], "not an array"),
        ]:
            answer = session.request("tools/call", {"name": "create_memory", "arguments": arguments})
            assert answer["error"]["code"] == -32602
            assert answer["error"]["message"] == f"the arguments of create_memory must be a JSON object, {problem}"
            assert answer["error"]["data"] == {"field": "arguments", "tool": "create_memory"}
        nameless = session.request("tools/call", {"arguments": saving})["error"]
        assert (nameless["message"], nameless["data"]) == (
            "tools/call needs the tool's name as a string",
            {"field": "name"},
        )
        assert session.call("archival_memory_search", {"query": "茉莉花茶"})["memories"] == []
    finally:
        server.communicate(timeout=60)
    assert server.returncode == 0
