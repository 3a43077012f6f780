"""Two writers of one entity's names both land: a fold's names, a merge's, a release's.

A space's folds run one at a time, but its scope's entities have other writers: consolidation's merges,
the API's edits, a fold whose lease ran out beside the one that took its job over. ``record_entities`` and
``release_names`` read the entities, then wrote each one whole: a name another writer gave between the read
and the write was written over and lost (苏霓 lost 霓霓, merged into her meanwhile).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import pytest

from held import held_after_read
from huiyi.flows.extract import Fold
from huiyi.flows.extract.entities import entity_id, record_entities, release_names
from huiyi.model import Entity, EntityType, Message, Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.base import Store

T0 = datetime(2024, 11, 14, 9, 30)
SCOPE = Scope.of_person("qy", "mumu")
EMB = HashEmbedder(64)


def _person(name: str, *aliases: str) -> Entity:
    return Entity(id=entity_id(SCOPE, name), scope=SCOPE, name=name, type=EntityType.OBJECT, aliases=list(aliases))


def _aliases(store: Store, name: str) -> list[str]:
    (found,) = [e for e in store.list_entities([SCOPE]) if e.name == name]
    return found.aliases


def _held_after_read(
    store: Store, monkeypatch: pytest.MonkeyPatch, write: Callable[[], None], meanwhile: Callable[[], None]
) -> None:
    """Run ``write`` in a thread held just after it read the entities, and ``meanwhile`` in that gap."""
    failed = held_after_read(store, "list_entities", monkeypatch, write, meanwhile)
    assert not failed, failed


@pytest.fixture
def kekai(store: Store) -> Iterator[Store]:
    record_entities(store, EMB, [_person("柯凯")])
    yield store


def test_two_folds_naming_one_person_keep_both_aliases(kekai: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _held_after_read(
        kekai,
        monkeypatch,
        lambda: record_entities(kekai, EMB, [_person("柯凯", "老K")]),
        lambda: record_entities(kekai, EMB, [_person("柯凯", "凯哥")]),
    )
    assert sorted(_aliases(kekai, "柯凯")) == ["凯哥", "老K"]


def test_a_fold_beside_a_merge_keeps_the_merged_names(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    record_entities(store, EMB, [_person("苏霓"), _person("霓霓")])
    suni, nini = (e.id for e in sorted(store.list_entities([SCOPE]), key=lambda e: e.name != "苏霓"))
    _held_after_read(
        store,
        monkeypatch,
        lambda: record_entities(store, EMB, [_person("苏霓", "小霓")]),
        lambda: store.merge_entities("qy", nini, suni, "名字相同", T0),
    )
    assert sorted(_aliases(store, "苏霓")) == ["小霓", "霓霓"]


def test_a_release_beside_a_fold_keeps_the_fold_s_alias(kekai: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    record_entities(kekai, EMB, [_person("小黑", "苏霓")])  # learnt before 苏霓 spoke
    said = Message(
        agent="qy", id="m1", space=SCOPE.space_id, scope=SCOPE, speaker="苏霓", role="user", text="嗨", time=T0
    )
    fold = Fold("qy", SCOPE.space_id, SCOPE, [said], person="mumu", aliases={"苏霓": ["苏霓"]})
    _held_after_read(
        kekai,
        monkeypatch,
        lambda: release_names(kekai, fold),
        lambda: record_entities(kekai, EMB, [_person("小黑", "黑哥")]),
    )
    assert _aliases(kekai, "小黑") == ["黑哥"]  # 苏霓 released, 黑哥 kept


def test_a_fold_beside_an_undone_merge_gives_no_name_back(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    record_entities(store, EMB, [_person("苏霓"), _person("霓霓")])
    suni, nini = (e.id for e in sorted(store.list_entities([SCOPE]), key=lambda e: e.name != "苏霓"))
    merge = store.merge_entities("qy", nini, suni, "名字相同", T0)
    _held_after_read(
        store,
        monkeypatch,
        lambda: record_entities(store, EMB, [_person("苏霓", "小霓")]),
        lambda: store.undo_merge("qy", merge.id),
    )
    assert _aliases(store, "苏霓") == ["小霓"]  # 霓霓 is her own again, not 苏霓's
