"""Hostile arguments to ``Memory`` itself (the HTTP face's guard does not stand before it): each is an
``InvalidInput`` naming what is wrong, and nothing is written, on both stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import STORE_FACTORIES
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.memory import Memory
from huiyi.providers.embed import HashEmbedder


@pytest.fixture(params=sorted(STORE_FACTORIES))
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    store = STORE_FACTORIES[request.param](tmp_path / "store")
    config = Config(worker={"enabled": False})
    with Memory(tmp_path, store=store, embedder=HashEmbedder(16), config=config) as memory:
        memory.add(["我家的猫叫团子"], agent="A", person="p", index=True)
        yield memory


@pytest.mark.parametrize("limit", [2**63, 10**30])
def test_a_limit_past_64_bits_is_refused_not_an_overflow(memory: Memory, limit: int) -> None:
    with pytest.raises(InvalidInput, match="limit"):
        memory.recall("猫", agent="A", person="p", limit=limit)
    with pytest.raises(InvalidInput, match="limit"):
        memory.context(agent="A", person="p", message="猫", limit=limit)
