"""``huiyi mcp`` over stdio as a host runs it: a subprocess that starts, is told to stop, and says why it cannot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_a_store_that_cannot_open_is_an_error_on_stderr_never_on_the_protocol_stream(tmp_path: Path) -> None:
    """The error line went to stdout, where the host reads JSON-RPC: it saw a parse error, not the reason."""
    not_a_folder = tmp_path / "memories"
    not_a_folder.write_text("a file", encoding="utf-8")
    server = start(not_a_folder)
    out, err = server.communicate(timeout=60)
    assert server.returncode == 2
    assert out == b""
    assert "is a file, not a folder" in err.decode()
