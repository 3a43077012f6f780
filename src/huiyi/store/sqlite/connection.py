"""The embedded store's file and connections: opening, migrating, writing in one transaction, closing.

Reads use one connection per thread; writes take a process-wide lock and ``BEGIN IMMEDIATE``, so two
threads (or two processes, through SQLite's own lock) never interleave a transaction. The store's
identity (schema version, embedding model) lives in the ``meta`` table read here too.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

from huiyi.errors import SchemaTooNew, StoreBusy, StoreError, StoreFull
from huiyi.store.base import RankRow
from huiyi.store.owncache import OwnVectorCache
from huiyi.store.postings import PostingCache
from huiyi.store.rankcache import RankCache
from huiyi.store.rows import Kept, now, wall_epoch
from huiyi.store.sqlite.fts import docsize_tokens, scoped_for_part
from huiyi.store.sqlite.schema import MIGRATIONS, statements
from huiyi.store.vectors import ExactIndex

log = logging.getLogger(__name__)

DB_NAME = "huiyi.sqlite"
PartRow = tuple[int, int, int]  # a partition's version, documents and keyword tokens (``partitions``)
SYNCHRONOUS = ("normal", "full")


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced: one a finished thread held closes with the thread."""

    owner: threading.Thread | None = None  # the thread it belongs to: only it, or its end, may close it


class SQLiteConnection:
    """The database file of one store directory, and the lifecycle of its connections."""

    # the cache of vectors per partition; set by the store once the schema is ready
    _vectors: ExactIndex
    _ranks: RankCache[RankRow]  # the rank rows recall read, per partition version
    _hit_rows: RankCache[Kept]  # the rows of the hits recall returned (``rows.kept``), the same way
    _own: OwnVectorCache  # the own-line vectors recall read
    _postings: PostingCache  # the keyword index's posting lists recall read, per partition versions

    def __init__(self, directory: str | Path, *, busy_timeout_ms: int = 10000, synchronous: str = "normal") -> None:
        if synchronous.lower() not in SYNCHRONOUS:
            raise StoreError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, not {synchronous!r}")
        self.directory = Path(directory)
        self.clock: Callable[[], datetime] = now  # when rows are written (the contract's ``clock``)
        self.zone = ZoneInfo("UTC")  # whose wall clock memories' times are (the contract's ``zone``)
        self._synchronous = synchronous.upper()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # mkdir's own words name neither the file nor the fix
            files = (p for p in (self.directory, *self.directory.parents) if p.exists() and not p.is_dir())
            file = next(files, self.directory)
            raise StoreError(f"{file} is a file, not a folder: a huiyi store is a folder ({DB_NAME} in it)") from None
        # absolute: a connection a thread opens after a chdir (a daemon's to /) opened another path, or none
        self.path = Path(os.path.abspath(self.directory / DB_NAME))
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        # a caller's own thread may write too (the synchronous add): its connection goes when the thread does
        self._connections: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()
        self._connections_lock = threading.Lock()
        self._write_lock = threading.RLock()
        self._closed = False
        self._file: tuple[int, int] | None = None  # the file opened: its device and inode, once the open made it
        try:
            self._migrate()
        except sqlite3.DatabaseError as exc:  # e.g. "file is not a database": someone else's file, or a broken one
            self._close_connections()  # the caches are not made yet
            raise StoreError(f"{self.path} cannot be opened as a huiyi store: {exc}") from exc
        self._file = _identity(self.path)

    # connections -----------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if self._closed:
            if conn is not None:  # left open by close() while this thread was using it
                self._local.conn = None
                conn.close()
            raise StoreError("the store is closed")
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, factory=_Connection)
            conn.owner = threading.current_thread()
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            # WAL with NORMAL: a commit is in the OS before add() returns, so it survives the process
            # dying; FULL also fsyncs each commit (config store.synchronous)
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA secure_delete = ON")  # what is deleted is zeroed, not left in free pages
            # the list key's created_at on the wall clock of the zone set now, not when the thread connected
            conn.create_function("huiyi_wall", 1, lambda written: wall_epoch(written, self.zone))
            self._local.conn = conn
            with self._connections_lock:
                self._connections.add(conn)
        return conn

    @contextmanager
    def reading(self, agent: str = "") -> Iterator[None]:
        """One read transaction for what this thread reads inside: each of a recall's dozen statements
        began and ended one of its own (~0.15M of ~17M instructions a recall at 100k), and inside one
        they all see the same moment. A write on the thread meanwhile ends it (:meth:`_write`)."""
        conn = self._conn()
        if conn.in_transaction:  # inside a snapshot or a write already: nothing to add
            yield
            return
        conn.execute("BEGIN")
        self._local.reading = True
        self._local.parts = {}  # the partitions' rows read in this snapshot (_part_rows)
        try:
            yield
        finally:
            self._local.reading = False
            self._local.parts = None
            if conn.in_transaction:
                conn.execute("COMMIT")

    def _part_rows(self, parts: Sequence[str]) -> dict[str, PartRow]:
        """Each partition's (version, documents, tokens) as the database has it now. In a snapshot of
        :meth:`reading` each is read once, as nothing can change it there: a recall's routes and caches
        asked for the same ones four times."""
        held: dict[str, PartRow | None] | None = getattr(self._local, "parts", None)
        wanted = [part for part in parts if held is None or part not in held]
        found: dict[str, PartRow] = {}
        if wanted:
            rows = self._conn().execute(
                f"SELECT part, version, docs, fts_total FROM partitions WHERE part IN ({marks(len(wanted))})", wanted
            )
            found = {str(part): (int(version), int(docs), int(tokens)) for part, version, docs, tokens in rows}
        if held is None:
            return {part: found[part] for part in parts if part in found}
        held.update((part, found.get(part)) for part in wanted)
        return {part: row for part in parts if (row := held[part]) is not None}

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        with self._write_lock, self._room():
            self._local.parts = None  # what the thread read may change now
            if conn.in_transaction and getattr(self._local, "reading", False):
                conn.execute("COMMIT")  # the thread's read snapshot ends here: a write needs the newest state
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _room(self) -> Iterator[None]:
        """A write the disk could not hold (SQLITE_FULL) as ``StoreFull``, one another program's lock kept out
        past the busy timeout (SQLITE_BUSY, SQLITE_LOCKED) as ``StoreBusy``: a bot's add sees a huiyi error it
        can act on, not SQLite's (over HTTP a 500 "internal_error" it could not tell from a crash)."""
        self._still_there()
        try:
            yield
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            if code is not None and code & 0xFF == sqlite3.SQLITE_FULL:
                raise StoreFull(f"{self.path}: the disk is full; nothing of this call was written") from exc
            if code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise StoreBusy(
                    f"{self.path}: another program holds the store's lock past the busy timeout"
                    f" ({self._busy_timeout_ms:g} ms); nothing of this call was written, retry"
                ) from exc
            raise

    def close(self) -> None:
        self._close_connections()
        self._vectors.clear()
        self._ranks.clear()
        self._hit_rows.clear()
        self._own.clear()
        self._postings.clear()

    def _close_connections(self) -> None:
        self._closed = True
        here = threading.current_thread()
        with self._connections_lock:
            for conn in list(self._connections):
                # closing a connection under a statement another thread runs crashes the process; that
                # thread closes its own at its next call, or the connection goes with the thread
                owner = getattr(conn, "owner", None)
                if owner is None or owner is here or not owner.is_alive():
                    conn.close()
            self._connections.clear()

    # schema -------------------------------------------------------------------------------------
    def _migrate(self) -> None:
        # the migration that prefixes keyword tokens (10) needs the same cutting as new writes
        self._conn().create_function("huiyi_scoped", 2, scoped_for_part, deterministic=True)
        self._conn().create_function("huiyi_docsize_tokens", 1, docsize_tokens, deterministic=True)  # 15 counts rows
        with self._write() as conn:
            has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
            current = 0
            if has_meta:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                current = int(row[0]) if row else 0
            if current > len(MIGRATIONS):
                raise SchemaTooNew(
                    f"{self.path} has schema version {current}, this huiyi knows {len(MIGRATIONS)}: upgrade huiyi"
                )
            for version in range(current + 1, len(MIGRATIONS) + 1):
                log.info("migrating %s to schema version %d", self.path, version)
                for statement in statements(MIGRATIONS[version - 1]):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(version),),
                )

    def _still_there(self) -> None:
        """Refuse to go on with a file deleted or replaced under this process: its connections wrote on to the
        unlinked file, each add answered as stored and lost at the restart, and /health said ok (helper)."""
        if self._file is not None and _identity(self.path) != self._file:
            raise StoreError(
                f"{self.path} was deleted or replaced while this process had it open: nothing of this call was"
                " written; restart on the store as it is now"
            )

    def schema_version(self) -> int:
        self._still_there()  # /health asks this
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def embedding_model(self) -> tuple[str, int] | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
        if row is None:
            return None
        name, dim = json.loads(row[0])
        return str(name), int(dim)

    def set_embedding_model(self, name: str, dim: int) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('embedding_model', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps([name, dim]),),
            )


T = TypeVar("T")


def chunks(values: Sequence[T], size: int) -> Iterator[list[T]]:
    """Values in lists of at most ``size``, to keep ``IN (...)`` under SQLite's parameter limit."""
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start : start + size]


def marks(count: int) -> str:
    """``?,?,…`` for ``count`` parameters."""
    return ",".join("?" * count)


def _identity(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` (device, inode), or None when there is none."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino
