"""``huiyi serve`` stopped while a request waits on an LLM that does not answer: it ends within its bounds.

uvicorn waited for requests under way before the shutdown that closes the store, so a ``POST /v1/flush``
waiting on the LLM held SIGTERM for the LLM's timeout times its retries (330 s seen), past any supervisor's
kill, which then left the fold running under a dead process with its claim counted as abandoned.
``huiyi worker`` died at SIGTERM with its fold held: another machine's worker waited out the lease.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from fake_openai import FakeOpenAI
from huiyi import Memory
from huiyi.config import Config
from huiyi_serve import SRC, free_port

pytestmark = pytest.mark.slow


def _hanging_llm_config(tmp_path: Path, llm: FakeOpenAI) -> Path:
    """A config whose LLM answers after 300 s, with no retry: each extraction waits on it."""
    for _ in range(8):
        llm.script_delay(300)
    config = tmp_path / "huiyi.toml"
    config.write_text(
        '[worker]\nenabled = false\n\n[embed]\nprovider = "hash"\ndim = 32\n\n'
        f'[llm]\nbase_url = "{llm.base_url}"\napi_key = "k"\nmodel = "fake"\n'
        "timeout_s = 200\nmax_retries = 0\n",
        encoding="utf-8",
    )
    return config


def _cli(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    log = (tmp_path / "cli.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "huiyi.faces.cli", *args], stdout=log, stderr=subprocess.STDOUT, env=env
    )


def _jobs(store: Path) -> list[tuple[str, int, str]]:
    db = sqlite3.connect(store / "huiyi.sqlite")
    jobs = db.execute("SELECT state, claims, worker FROM jobs").fetchall()
    db.close()
    return jobs


def _wait_for_a_request(llm: FakeOpenAI) -> None:
    deadline = time.monotonic() + 60
    while not llm.chat_requests:  # an extraction waits on the LLM now
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_sigterm_stops_huiyi_worker_and_gives_its_fold_back(tmp_path: Path) -> None:
    with FakeOpenAI() as llm:
        config = _hanging_llm_config(tmp_path, llm)
        store = tmp_path / "store"
        with Memory(store, config=Config.load(config)) as memory:
            memory.add([f"我周末去杭州西湖划船了，第{i}句" for i in range(40)], agent="a", person="p")
            assert memory.flush(agent="a", person="p", wait=False)
        worker = _cli(tmp_path, "worker", "--store", str(store), "--config", str(config))
        try:
            _wait_for_a_request(llm)
            worker.send_signal(signal.SIGTERM)
            worker.wait(60)  # a bound against the hang only
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert worker.returncode == 0, (tmp_path / "cli.log").read_text()
    jobs = _jobs(store)
    assert jobs and all(state == "pending" and claims == 0 and who == "" for state, claims, who in jobs), jobs


def test_sigterm_cuts_a_flush_waiting_on_the_llm_and_gives_its_fold_back(tmp_path: Path) -> None:
    with FakeOpenAI() as llm:
        config = _hanging_llm_config(tmp_path, llm)
        port = free_port()
        command = ["serve", "--store", str(tmp_path / "store"), "--config", str(config), "--port", str(port)]
        server = _cli(tmp_path, *command, "--workers", "0", "--index-for", "1")
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "cli.log").read_text()
                time.sleep(0.1)
            said = [{"id": f"m{i}", "text": f"我周末去杭州西湖划船了，第{i}句"} for i in range(40)]
            stored = httpx.post(f"{url}/v1/messages", json={"agent": "a", "person": "p", "messages": said}, timeout=30)
            assert stored.status_code == 200
            answers: list[int | str] = []

            def flush() -> None:
                try:
                    answer = httpx.post(f"{url}/v1/flush", json={"agent": "a", "person": "p"}, timeout=300)
                    answers.append(answer.status_code)
                except httpx.TransportError as exc:
                    answers.append(type(exc).__name__)

            flushing = threading.Thread(target=flush)
            flushing.start()
            _wait_for_a_request(llm)
            server.send_signal(signal.SIGTERM)
            server.wait(60)  # a bound against the hang only: the LLM would answer after 300 s
            flushing.join(60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert answers and answers[0] != 200  # cut, not answered as if flushed
    jobs = _jobs(tmp_path / "store")
    assert jobs and all(state == "pending" and claims == 0 and worker == "" for state, claims, worker in jobs), jobs
