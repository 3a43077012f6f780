"""An entity edited by hand beside a fold or a merge keeps the names they gave meanwhile.

``update_entity`` read the entity, changed it in Python and wrote the whole row back: an alias a fold
(or a merge) added between the read and the write was written over and lost, and so were its sources.
The edit now goes to the store as a change (a name, a type, aliases to add and to drop), applied to the
row as it is at the write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from held import held_after_read
from huiyi import Memory
from huiyi.config import Config
from huiyi.errors import InvalidInput
from huiyi.faces.http import create_app
from huiyi.flows.extract.entities import entity_id, record_entities
from huiyi.memory import AsyncMemory
from huiyi.model import Entity, EntityType, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store
from huiyi.store.graph import EntityEdit

A, P = "qy", "mumu"
SCOPE = Scope.of_person(A, P)
EMB = HashEmbedder(64)
T0 = datetime(2024, 11, 14, 9, 30)
QUIET = Config(worker={"enabled": False})


def _person(name: str, *aliases: str, sources: tuple[str, ...] = ()) -> Entity:
    return Entity(
        id=entity_id(SCOPE, name),
        scope=SCOPE,
        name=name,
        type=EntityType.OBJECT,
        aliases=list(aliases),
        sources=list(sources),
    )


def _held_after_read(
    store: Store, monkeypatch: pytest.MonkeyPatch, edit: Callable[[], object], meanwhile: Callable[[], object]
) -> list[BaseException]:
    """Run ``edit`` held just after its read of the entity (on a worker thread of the memory's loop), and
    ``meanwhile`` in that gap; what the edit raised."""
    return held_after_read(store, "get_entities", monkeypatch, edit, meanwhile)


@pytest.fixture
def memory(store: Store, tmp_path: Path) -> Iterator[Memory]:
    record_entities(store, EMB, [_person("柯凯", "老K", sources=("m1",))])
    with Memory(tmp_path / "m", store=store, embedder=EMB, config=QUIET) as memory:
        yield memory


def _kekai(store: Store) -> Entity:
    (found,) = store.get_entities(A, [entity_id(SCOPE, "柯凯")])
    return found


def test_an_alias_added_by_hand_beside_a_fold_keeps_the_fold_s(
    memory: Memory, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    kekai = _kekai(store)
    assert not _held_after_read(
        store,
        monkeypatch,
        lambda: memory.update_entity(kekai.id, {"aliases": ["老K", "阿凯"]}, agent=A),
        lambda: record_entities(store, EMB, [_person("柯凯", "凯哥", sources=("m2",))]),
    )
    stored = _kekai(store)
    assert sorted(stored.aliases) == ["凯哥", "老K", "阿凯"]
    assert stored.sources == ["m1", "m2"]


def test_an_alias_dropped_by_hand_beside_a_fold_drops_only_that_one(
    memory: Memory, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    kekai = _kekai(store)
    assert not _held_after_read(
        store,
        monkeypatch,
        lambda: memory.update_entity(kekai.id, {"aliases": []}, agent=A),
        lambda: record_entities(store, EMB, [_person("柯凯", "凯哥")]),
    )
    assert _kekai(store).aliases == ["凯哥"]


def test_a_rename_beside_a_merge_keeps_the_merged_names(
    memory: Memory, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_entities(store, EMB, [_person("凯凯")])
    kekai, kaikai = _kekai(store), entity_id(SCOPE, "凯凯")
    assert not _held_after_read(
        store,
        monkeypatch,
        lambda: memory.update_entity(kekai.id, {"name": "柯小凯", "type": EntityType.SPECIFIC}, agent=A),
        lambda: store.merge_entities(A, kaikai, kekai.id, "名字相近", T0),
    )
    stored = _kekai(store)
    assert (stored.name, stored.type, sorted(stored.aliases)) == ("柯小凯", EntityType.SPECIFIC, ["凯凯", "老K"])


def test_an_entity_merged_away_while_it_is_edited_is_left_as_it_is(
    memory: Memory, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_entities(store, EMB, [_person("凯凯")])
    kekai, kaikai = _kekai(store), entity_id(SCOPE, "凯凯")
    (refused,) = _held_after_read(
        store,
        monkeypatch,
        lambda: memory.update_entity(kekai.id, {"name": "柯小凯"}, agent=A),
        lambda: store.merge_entities(A, kekai.id, kaikai, "名字相近", T0),
    )
    assert isinstance(refused, InvalidInput)  # its names are the other's now, and it is merged away
    assert (_kekai(store).name, _kekai(store).merged_into) == ("柯凯", kaikai)


def test_a_patch_over_http_beside_a_fold_keeps_the_fold_s_alias(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_entities(store, EMB, [_person("柯凯", "老K")])
    core = AsyncMemory(tmp_path / "h", store=store, embedder=EMB, config=QUIET)
    with TestClient(create_app(core)) as client:
        kekai = _kekai(store)
        path = f"/v1/entities/{kekai.id}"
        assert not _held_after_read(
            store,
            monkeypatch,
            lambda: client.patch(path, json={"agent": A, "aliases": ["阿凯"]}).raise_for_status(),
            lambda: record_entities(store, EMB, [_person("柯凯", "凯哥")]),
        )
    assert sorted(_kekai(store).aliases) == ["凯哥", "阿凯"]


def test_the_store_edits_only_the_agent_s_own_entity(store: Store) -> None:
    record_entities(store, EMB, [_person("柯凯", "老K")])
    kekai = _kekai(store)
    rename = EntityEdit(name="阿凯", aliases=("凯哥",), aliases_read=("老K",))
    assert store.edit_entity("别人", kekai.id, rename, None) is None  # another agent's id is not reached
    assert store.edit_entity(A, "ent_nope", rename, None) is None
    assert _kekai(store) == kekai
    stored = store.edit_entity(A, kekai.id, rename, EMB.embed_passages(["阿凯"])[0])
    assert stored == _kekai(store) == kekai.model_copy(update={"name": "阿凯", "aliases": ["凯哥"]})
