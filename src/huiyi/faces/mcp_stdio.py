"""The MCP stdio transport, stopped by the client closing stdin, by SIGTERM or by Ctrl-C.

The SDK's ``stdio_server`` with a stdin of our own: the SDK reads stdin in an anyio worker thread, which a
cancel cannot end and the exit waits for, so a stop while stdin stayed open hung (Ctrl-C) or had to kill
the process before the store closed (SIGTERM's default). Its end reaches the SDK only once every request
read has been answered (or ``ANSWER_AT_END_S`` has passed): at the end the SDK closes its output with the
calls still running, so a host that sent 30 saves and then closed stdin read 3 answers. The answers go out
through a wire of our own (``_Wire``): a host that closed its end of stdout made the SDK's writer raise
BrokenPipeError, which ended the server with code 1 and dropped the requests it had sent and not yet read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
from mcp import types
from mcp.server import Server
from mcp.server.stdio import stdio_server

__all__ = ["serve_stdio"]

log = logging.getLogger(__name__)

ANSWER_AT_END_S = 30.0  # how long stdin's end waits for the answers to the requests read before it


async def serve_stdio(server: Server[Any]) -> None:
    """Serve over stdin and stdout until the client closes stdin, or SIGTERM or Ctrl-C asks to stop.

    A stop cancels the serving only, so the caller still closes the store (SIGTERM's default killed the process
    first, losing what recall had noted; Ctrl-C waited for stdin to close).
    """
    asked = _Asked()
    async with anyio.create_task_group() as group:
        # only the main thread may take signals, and Windows' event loop takes none
        if sys.platform != "win32" and threading.current_thread() is threading.main_thread():
            group.start_soon(_stop_on_signal, group.cancel_scope)
        with _Wire.claimed() as wire:
            async with stdio_server(stdin=_Stdin(asked, wire), stdout=cast(Any, wire)) as (read_stream, write_stream):
                answers = _Answers(write_stream, asked)
                await server.run(read_stream, answers, server.create_initialization_options())
        group.cancel_scope.cancel()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


class _Asked:
    """How many of the client's requests read are not yet answered, by id. An id is a number or a string, and
    1 and "1" are two ids; a client that sends one id twice is owed two answers."""

    def __init__(self) -> None:
        self._open: Counter[tuple[type, object]] = Counter()
        self._changed = asyncio.Event()

    def read(self, line: str) -> bool:
        """Note the request ``line`` is, read as the SDK reads it (a line it cannot read, or reads as a
        notification, gets no answer to wait for), and drop one a ``notifications/cancelled`` gives up on;
        whether the SDK can read the line."""
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:  # pydantic's ValidationError is one
            return False
        if isinstance(message, types.JSONRPCRequest):
            self._open[_key(message.id)] += 1
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            params = message.params or {}
            if isinstance(params, dict):  # a cancelled request is owed no answer
                self._open.pop(_key(params.get("requestId")), None)
                self._changed.set()
        return True

    def answered(self, request_id: object) -> None:
        key = _key(request_id)
        if self._open[key] > 1:
            self._open[key] -= 1
        else:
            self._open.pop(key, None)
        self._changed.set()

    async def all_answered(self, seconds: float) -> None:
        """Return once every request read is answered, or after ``seconds``."""
        deadline = time.monotonic() + seconds
        while self._open and (left := deadline - time.monotonic()) > 0:
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)


def _key(request_id: object) -> tuple[type, object]:
    return type(request_id), request_id


class _Answers:
    """The SDK's write stream, noting each answer it carries (a result or an error with the request's id)."""

    def __init__(self, inner: Any, asked: _Asked) -> None:
        self._inner = inner
        self._asked = asked

    async def send(self, item: Any) -> None:
        await self._inner.send(item)
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._asked.answered(message.id)

    async def __aenter__(self) -> _Answers:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Stdin(anyio.AsyncFile[str]):
    """stdin's lines, read by a daemon thread: a stop leaves its read of a line that may never come behind
    (the SDK reads in an anyio worker thread, which the exit waits for, and which a cancel cannot end).
    Its end comes once the requests read before it are answered."""

    def __init__(self, asked: _Asked, wire: _Wire) -> None:
        super().__init__(sys.stdin)
        self._asked = asked
        self._wire = wire
        self._lines: asyncio.Queue[str] | None = None

    async def readline(self) -> str:
        if self._lines is None:
            self._lines = asyncio.Queue()
            reader = threading.Thread(
                target=_read_lines,
                args=(_own_stdin(), asyncio.get_running_loop(), self._lines),
                name="huiyi-mcp-stdin",
                daemon=True,
            )
            reader.start()
        line = await self._lines.get()
        if line:
            if not self._asked.read(line) and (refused := _refusal(line)) is not None:
                await self._wire.write(refused)
        else:
            await self._asked.all_answered(ANSWER_AT_END_S)
        return line


def _refusal(line: str) -> str | None:
    """The error answer owed to a line the SDK cannot read when it is a request with an id, or None. A line of
    valid JSON with an id that holds a 5,000-digit number or arrays nested 100,000 deep failed the SDK's reader,
    which drops it unanswered: the host waited for ever. Its id is read from the top level alone, without
    parsing the values."""
    request_id = _top_level_id(line)
    if request_id is None or '"method"' not in line:
        return None
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": _why(line)}, ensure_ascii=False) + "\n"


def _why(line: str) -> dict[str, object]:
    """The JSON-RPC error of a request the SDK could not read, saying what is wrong with it: every one was told
    "a number too long or nesting too deep", a line cut short and a wrong "jsonrpc" too (helper)."""
    try:
        json.loads(line)
    except json.JSONDecodeError as exc:
        return {"code": types.PARSE_ERROR, "message": f"the line is not JSON: {exc.msg} at character {exc.pos}"}
    except RecursionError:
        return {"code": types.INVALID_REQUEST, "message": "the request is nested too deep to read"}
    except ValueError as exc:  # an integer past Python's digit limit
        return {"code": types.INVALID_REQUEST, "message": f"the request cannot be read: {exc}"[:200]}
    return {"code": types.INVALID_REQUEST, "message": "the request is not a JSON-RPC 2.0 request this server reads"}


_TOKEN = re.compile(r'["{}\[\],]')  # what moves the top level's place: a string, a bracket, a comma
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_ID_VALUE = re.compile(r'\s*:\s*(?:("(?:[^"\\]|\\.)*")|(-?\d{1,18})(?![\d.eE]))')


def _top_level_id(line: str) -> str | int | None:
    r"""The ``id`` of a JSON object's top level when it is a string or an integer, found by its tokens alone.

    >>> _top_level_id('{"jsonrpc": "2.0", "params": {"id": 1, "x": [[["]"]]]}, "id": "a\\"b", "method": "m"}')
    'a"b'
    >>> _top_level_id('{"id": 7, "params": [' + "[" * 5 + "]" * 5 + "]}"), _top_level_id('{"id": true}')
    (7, None)
    """
    depth, at, key_next = 0, 0, False
    while (found := _TOKEN.search(line, at)) is not None:
        at = found.start()
        char = line[at]
        if char == '"':
            string = _STRING.match(line, at)
            if string is None:
                return None
            if depth == 1 and key_next and string.group() == '"id"':
                value = _ID_VALUE.match(line, string.end())
                if value is None:
                    return None
                return str(json.loads(value.group(1))) if value.group(1) else int(value.group(2))
            at, key_next = string.end(), False
            continue
        if char in "{[":
            depth += 1
            key_next = char == "{" and depth == 1
        elif char in "}]":
            depth -= 1
        else:
            key_next = depth == 1
        at += 1
    return None


def _own_stdin() -> BinaryIO:
    """A reader of its own on stdin's descriptor: a thread left blocked in ``sys.stdin``'s reader would hold
    the lock the interpreter takes on it at exit (a fatal error)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):  # no descriptor: a stdin replaced in-process
        return open(os.dup(sys.stdin.fileno()), "rb")  # the reading thread keeps it to the end
    return sys.stdin.buffer


def _read_lines(source: BinaryIO, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str]) -> None:
    """Each line of ``source`` (UTF-8, as the SDK reads it), then "" for its end."""
    with contextlib.suppress(RuntimeError):  # the loop closed: no one is reading any more
        try:
            for raw in iter(source.readline, b""):
                loop.call_soon_threadsafe(lines.put_nowait, raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):  # stdin closed under the read: its end
            pass
        loop.call_soon_threadsafe(lines.put_nowait, "")


class _Wire:
    """stdout as the SDK writes its answers to it, each line whole, unbuffered; once the host has closed its
    end (BrokenPipeError) the rest are dropped, and the requests it sent are still carried out."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self.gone = False
        self._lock = threading.Lock()  # the SDK's answers and ours (``_refusal``), each line whole

    @classmethod
    @contextlib.contextmanager
    def claimed(cls) -> Iterator[_Wire]:
        """The wire on a copy of stdout's descriptor, with the descriptor itself on stderr while serving, as
        the SDK's own claim had it: what a library prints misses the wire. Restored at the end."""
        try:
            sys.stdout.flush()
            wire = os.dup(sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):  # no descriptor: a stdout replaced in-process
            yield cls(None)
            return
        os.dup2(sys.stderr.fileno(), 1)
        try:
            yield cls(wire)
        finally:
            os.dup2(wire, 1)
            os.close(wire)

    async def write(self, text: str) -> int:
        if not self.gone:
            await anyio.to_thread.run_sync(self._write, text.encode("utf-8"))
        return len(text)

    async def flush(self) -> None:  # each write went out whole
        return

    def _write(self, data: bytes) -> None:
        if self._fd is None:
            sys.stdout.write(data.decode("utf-8"))
            sys.stdout.flush()
            return
        view = memoryview(data)
        try:
            with self._lock:
                while view:
                    view = view[os.write(self._fd, view) :]
        except (BrokenPipeError, ConnectionResetError):
            self.gone = True
            log.warning("the host closed its end of stdout: the requests it sent are carried out unanswered")
