"""Moving an agent between PostgreSQL databases (docs/scaling.md, stage 3): its rows copied, then deleted."""

from __future__ import annotations

from datetime import datetime

import pytest

import pg_server
from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.providers.embed import HashEmbedder
from huiyi.store.postgres import PostgresStore
from huiyi.store.postgres.move import copy_agent, delete_agent

NOW = datetime(2024, 10, 1, 12)


def memory_on(dsn: str) -> Memory:
    return Memory(
        store=PostgresStore(dsn, pool_size=2), embedder=HashEmbedder(16), config=Config(worker={"enabled": False})
    )


def fill(dsn: str, agent: str) -> None:
    with memory_on(dsn) as memory:
        memory.add(
            [
                {"text": "我家的猫叫团子", "id": f"{agent}-1", "time": datetime(2024, 9, 20, 20)},
                {"text": "团子真可爱", "role": "assistant", "id": f"{agent}-2", "time": datetime(2024, 9, 20, 20, 1)},
                {"text": "我下周三要考驾照科目二", "id": f"{agent}-3", "time": datetime(2024, 9, 26, 18)},
            ],
            agent=agent,
            person="木木",
            index=True,
        )
        memory.flush(agent=agent, person="木木")
        memory.run_jobs()
        memory.remember(f"{agent}是一位画家", agent=agent)


def recalled(dsn: str, agent: str) -> list[list[tuple[str, float]]]:
    with memory_on(dsn) as memory:
        return [
            [(hit.id, round(hit.score, 6)) for hit in memory.recall(query, agent=agent, person="木木", now=NOW).hits]
            for query in ("猫叫什么", "考试是哪天", "画家")
        ]


def test_an_agent_moved_to_a_database_with_rows_of_its_own_recalls_the_same() -> None:
    old, new = pg_server.fresh_dsn(), pg_server.fresh_dsn()
    fill(old, "stay")
    fill(old, "祈煜")
    fill(new, "here")  # the new database numbers its own rows from 1 too
    before = recalled(old, "祈煜")
    assert all(before)

    source, target = PostgresStore(old, pool_size=2), PostgresStore(new, pool_size=2)
    try:
        copied = copy_agent(source, target, "祈煜")
        assert copied["memories"] and copied["memory_vectors"] == copied["memories"] and copied["memory_own_vectors"]
        with pytest.raises(InvalidInput, match="holds rows of agent"):  # a second copy would double it
            copy_agent(source, target, "祈煜")
        delete_agent(source, "祈煜")
        assert source.count_memories("祈煜") == 0 and source.count_memories("stay") > 0
        assert target.count_memories("here") > 0
    finally:
        source.close()
        target.close()
    assert recalled(new, "祈煜") == before
    assert recalled(old, "祈煜") == [[], [], []]
