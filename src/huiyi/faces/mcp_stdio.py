"""The MCP stdio transport, stopped by the client closing stdin, by SIGTERM or by Ctrl-C.

The SDK's ``stdio_server`` with a stdin of our own: the SDK reads stdin in an anyio worker thread, which a
cancel cannot end and the exit waits for, so a stop while stdin stayed open hung (Ctrl-C) or had to kill
the process before the store closed (SIGTERM's default).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from typing import Any, BinaryIO

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server

__all__ = ["serve_stdio"]


async def serve_stdio(server: Server[Any]) -> None:
    """Serve over stdin and stdout until the client closes stdin, or SIGTERM or Ctrl-C asks to stop.

    A stop cancels the serving only, so the caller still closes the store (SIGTERM's default killed the process
    first, losing what recall had noted; Ctrl-C waited for stdin to close).
    """
    async with anyio.create_task_group() as group:
        # only the main thread may take signals, and Windows' event loop takes none
        if sys.platform != "win32" and threading.current_thread() is threading.main_thread():
            group.start_soon(_stop_on_signal, group.cancel_scope)
        async with stdio_server(stdin=_Stdin()) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


class _Stdin(anyio.AsyncFile[str]):
    """stdin's lines, read by a daemon thread: a stop leaves its read of a line that may never come behind
    (the SDK reads in an anyio worker thread, which the exit waits for, and which a cancel cannot end)."""

    def __init__(self) -> None:
        super().__init__(sys.stdin)
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
        return await self._lines.get()


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
