"""A real ``huiyi serve`` in a child process on 127.0.0.1, for the clients' live tests.

    with HuiyiServe(tmp_path) as server:
        Client(server.url, api_key=server.key)

Its config sets two API keys: ``server.key`` for every agent, ``server.narrow_key`` for agent ``其他``
only, so the clients' tests see a 401 and a 403 as a caller would.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"
KEY, NARROW_KEY = "test-key-all", "test-key-narrow"
CONFIG = f"""
timezone = "Asia/Shanghai"

[worker]
enabled = false

[http]
api_keys = {{ "{KEY}" = ["*"], "{NARROW_KEY}" = ["其他"] }}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class HuiyiServe:
    def __init__(self, folder: Path, startup_s: float = 60.0) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.key, self.narrow_key = KEY, NARROW_KEY
        self.startup_s = startup_s
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> HuiyiServe:
        self.folder.mkdir(parents=True, exist_ok=True)
        config = self.folder / "huiyi.toml"
        config.write_text(CONFIG, encoding="utf-8")
        log = (self.folder / "serve.log").open("wb")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "huiyi.faces.cli", "serve", "--store", str(self.folder / "store")]
        command += ["--config", str(config), "--port", str(self.port), "--workers", "0"]
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + self.startup_s
        while True:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"huiyi serve did not start: {(self.folder / 'serve.log').read_text()}")
            time.sleep(0.1)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
