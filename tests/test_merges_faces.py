"""Every automatic entity merge is listed and undoable: ``huiyi merges`` and ``/v1/merges`` (issue #13)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from huiyi.config import Config
from huiyi.faces.cli import app
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory, Memory
from huiyi.model import Entity, EntityType, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store

AGENT = "小助手"
SCOPE = Scope.of_space(AGENT, "g1")


def _wrong_merge(store: Store) -> str:
    """汪曾祺的散文 merged into 布偶猫汤圆, as consolidation once did."""
    vectors = HashEmbedder(64).embed_passages(["汪曾祺的散文", "布偶猫汤圆"])
    essays = Entity(id="ent_essays", scope=SCOPE, name="汪曾祺的散文", type=EntityType.SPECIFIC)
    cat = Entity(id="ent_cat", scope=SCOPE, name="布偶猫汤圆", type=EntityType.SPECIFIC, aliases=["汤圆"])
    store.upsert_entity(essays, vectors[0])
    store.upsert_entity(cat, vectors[1])
    merge = store.merge_entities(AGENT, "ent_essays", "ent_cat", "similarity 0.892, neighbours agree", datetime.now())
    return merge.id


def _apart(store: Store) -> bool:
    return all(e.merged_into is None for e in store.list_entities([SCOPE], include_merged=True))


@pytest.fixture(autouse=True)
def _hash_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "hash")
    monkeypatch.setenv("HUIYI_WORKER__ENABLED", "false")
    monkeypatch.setenv("COLUMNS", "200")


def test_the_cli_lists_and_undoes_a_merge(tmp_path: Path) -> None:
    with Memory(tmp_path, config=Config.load()) as memory:
        merge_id = _wrong_merge(memory.store)
    runner = CliRunner()
    listed = runner.invoke(app, ["merges", "list", "-a", AGENT, "-s", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    assert merge_id in listed.output and "neighbours agree" in listed.output
    undone = runner.invoke(app, ["merges", "undo", merge_id, "-a", AGENT, "-s", str(tmp_path)])
    assert undone.exit_code == 0, undone.output
    with Memory(tmp_path, config=Config.load()) as memory:
        assert _apart(memory.store)
        assert [m.undone for m in memory.merges(agent=AGENT)] == [True]
    again = runner.invoke(app, ["merges", "undo", merge_id, "-a", AGENT, "-s", str(tmp_path)])
    assert again.exit_code != 0


def test_http_lists_and_undoes_a_merge(tmp_path: Path) -> None:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(64), config=Config(worker={"enabled": False}))
    keys = {"key-bot": [AGENT], "key-other": ["别人"]}
    merge_id = _wrong_merge(memory.store)
    with TestClient(create_app(memory, api_keys=keys, close_on_shutdown=True)) as client:
        mine = {"Authorization": "Bearer key-bot"}
        listed = client.get("/v1/merges", params={"agent": AGENT}, headers=mine)
        assert listed.status_code == 200, listed.text
        assert [m["id"] for m in listed.json()] == [merge_id]
        other = client.get("/v1/merges", params={"agent": AGENT}, headers={"Authorization": "Bearer key-other"})
        assert other.status_code == 403
        undone = client.post(f"/v1/merges/{merge_id}/undo", params={"agent": AGENT}, headers=mine)
        assert undone.status_code == 200 and undone.json()["undone"] is True
        assert _apart(memory.store)
        unknown = client.post("/v1/merges/merge_nope/undo", params={"agent": AGENT}, headers=mine)
        assert unknown.status_code == 404


def test_undoing_a_merge_reopens_the_facts_it_closed(tmp_path: Path) -> None:
    """霓霓住在杭州 stayed closed, superseded by 苏霓住在上海, once the merge that made them one person was undone
    (helper); a fact closed by its own side's newer one stays closed."""
    now = [datetime(2024, 3, 1, 20, 0)]
    with Memory(tmp_path / "s", config=Config(), embedder=HashEmbedder(64), clock=lambda: now[0]) as memory:
        where = {"agent": AGENT, "person": "木木"}
        memory.add([{"text": "霓霓就是苏霓啦", "id": "m1", "time": now[0]}], index=True, **where)
        memory.flush(**where)
        memory.create_entity("苏霓", **where)
        memory.create_entity("霓霓", **where)

        def fact(subject: str, place: str) -> str:
            now[0] += timedelta(hours=1)
            said = f"{subject}住在{place}"
            return memory.remember(said, kind="fact", subject=subject, predicate="住在", object=place, **where).id

        hangzhou, suzhou, shanghai = fact("霓霓", "杭州"), fact("苏霓", "苏州"), fact("苏霓", "上海")
        now[0] += timedelta(days=1)
        memory.consolidate(**where)
        assert all(memory.get(i, agent=AGENT).valid_to is not None for i in (hangzhou, suzhou))
        (merge,) = memory.merges(agent=AGENT)
        memory.undo_merge(merge.id, agent=AGENT)
        reopened = memory.get(hangzhou, agent=AGENT)
        assert reopened.valid_to is None and "superseded_by" not in reopened.data
        assert memory.get(suzhou, agent=AGENT).valid_to is not None  # 苏霓 moved: her own newer fact
        assert memory.get(shanghai, agent=AGENT).valid_to is None
        # merged again by hand, 霓霓 moves on: 上海 is closed by her 北京; the undo reopens 上海, and 杭州 stays
        # closed, her own newer home taking its place (it was reopened: two homes; helper's review)
        memory.store.merge_entities(AGENT, merge.source, merge.target, "by hand", now[0])
        beijing = fact("霓霓", "北京")
        now[0] += timedelta(days=1)
        memory.consolidate(**where)
        assert memory.get(shanghai, agent=AGENT).valid_to is not None
        (again,) = [m for m in memory.merges(agent=AGENT) if not m.undone]
        memory.undo_merge(again.id, agent=AGENT)
        opened = {i for i in (hangzhou, suzhou, shanghai, beijing) if memory.get(i, agent=AGENT).valid_to is None}
        assert opened == {shanghai, beijing}
