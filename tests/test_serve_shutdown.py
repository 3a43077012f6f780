"""``huiyi serve`` stopped while a request waits on an LLM that does not answer: it ends within its bounds.

uvicorn waited for requests under way before the shutdown that closes the store, so a ``POST /v1/flush``
waiting on the LLM held SIGTERM for the LLM's timeout times its retries (330 s seen), past any supervisor's
kill, which then left the fold running under a dead process with its claim counted as abandoned.
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
from huiyi_serve import SRC, free_port

pytestmark = pytest.mark.slow


def test_sigterm_cuts_a_flush_waiting_on_the_llm_and_gives_its_fold_back(tmp_path: Path) -> None:
    with FakeOpenAI() as llm:
        for _ in range(8):
            llm.script_delay(300)
        config = tmp_path / "huiyi.toml"
        config.write_text(
            f'[worker]\nenabled = false\n\n[llm]\nbase_url = "{llm.base_url}"\napi_key = "k"\nmodel = "fake"\n'
            "timeout_s = 200\nmax_retries = 0\n",
            encoding="utf-8",
        )
        port = free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "huiyi.faces.cli", "serve", "--store", str(tmp_path / "store")]
        command += ["--config", str(config), "--port", str(port), "--workers", "0", "--index-for", "1"]
        log = (tmp_path / "serve.log").open("wb")
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
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
            deadline = time.monotonic() + 60
            while not llm.chat_requests:  # the flush's fold waits on the LLM now
                assert time.monotonic() < deadline
                time.sleep(0.05)
            server.send_signal(signal.SIGTERM)
            server.wait(60)  # a bound against the hang only: the LLM would answer after 300 s
            flushing.join(60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
            log.close()
    assert answers and answers[0] != 200  # cut, not answered as if flushed
    db = sqlite3.connect(tmp_path / "store" / "huiyi.sqlite")
    jobs = db.execute("SELECT state, claims, worker FROM jobs").fetchall()
    db.close()
    assert jobs and all(state == "pending" and claims == 0 and worker == "" for state, claims, worker in jobs), jobs
