"""A pet given a new name (我家猫改名叫年糕了, We renamed Max to Bean) is known by it: the facts that gave the old
name are closed, the new name is a fact that keeps the old one, and a later death finds the pet by either way
of naming it. Only a pet the person named before; a question, a person or someone else's words rename nothing."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pet_chat import T0, pet_chat


def chat(path: Path, lines: list[str], *, folds: bool = True) -> tuple[dict[str, datetime | None], str]:
    return pet_chat(path, lines, "我家猫现在叫什么", folds=folds)


@pytest.mark.parametrize("folds", [False, True])
@pytest.mark.parametrize(
    "rename",
    [
        "我家猫改名叫年糕了",
        "团子改名叫年糕了",
        "我给团子改了个名字，叫年糕",
        "我把团子改名为年糕",
        "我家的猫现在叫年糕了",
    ],
)
def test_a_renamed_pet_is_known_by_its_new_name(tmp_path: Path, rename: str, folds: bool) -> None:
    facts, context = chat(tmp_path, ["我养了一只猫，叫团子", "今天天气不错", rename], folds=folds)
    renamed = T0 + timedelta(days=2)
    assert facts["木木养了一只猫，叫团子"] == renamed and facts["团子是木木的猫"] == renamed
    assert facts["年糕是木木的猫，原来叫团子"] is None and facts["木木养了一只猫，叫年糕"] is None
    assert "年糕是木木的猫" in context and "团子是木木的猫" not in context


def test_a_renamed_pet_that_died_is_found_by_its_kind(tmp_path: Path) -> None:
    facts, _ = chat(tmp_path, ["我养了一只猫，叫团子", "我家猫改名叫年糕了", "我家猫昨天走了"])
    died = T0 + timedelta(days=2)
    assert facts["年糕是木木的猫，原来叫团子"] == died and facts["木木养了一只猫，叫年糕"] == died
    assert facts["木木的猫年糕去世了"] is None


def test_an_english_pet_renamed(tmp_path: Path) -> None:
    facts, _ = chat(tmp_path, ["I have a dog named Max", "We renamed Max to Bean"])
    assert facts["Max is 木木's dog"] == T0 + timedelta(days=1)
    assert facts["Bean is 木木's dog, formerly Max"] is None


@pytest.mark.parametrize(
    "later", ["团子改名叫什么好？", "小王改名叫王大锤了", "他说团子改名叫年糕了", "花花改名叫年糕了", "它改名叫年糕了"]
)
def test_no_rename_without_a_known_pet_and_a_new_name(tmp_path: Path, later: str) -> None:
    facts, _ = chat(tmp_path, ["我养了一只猫，叫团子", later])
    assert facts["木木养了一只猫，叫团子"] is None and facts["团子是木木的猫"] is None
    assert not any("年糕" in text or "王大锤" in text for text in facts)


@pytest.mark.parametrize(
    "later",
    ["团子现在叫得很大声", "团子现在叫声很大", "我家的猫现在叫我起床了", "我家猫现在叫个不停", "团子现在叫醒我了"],
)
def test_a_pet_that_cries_now_is_not_renamed(tmp_path: Path, later: str) -> None:
    """现在叫 is how a cat cries too: 团子现在叫得很大声 named the cat 得很大声 and closed 团子."""
    facts, _ = chat(tmp_path, ["我养了一只猫，叫团子", later])
    assert facts["木木养了一只猫，叫团子"] is None and facts["团子是木木的猫"] is None
    assert set(facts) == {"木木养了一只猫，叫团子", "团子是木木的猫"}


def test_a_second_pet_is_known_and_renamed_alone(tmp_path: Path) -> None:
    """我又养了一只猫 told of no pet (又 before 养), so the second cat could be neither known nor renamed."""
    facts, _ = chat(tmp_path, ["我养了一只猫，叫团子", "我又养了一只猫，叫花花", "花花改名叫年糕了"])
    renamed = T0 + timedelta(days=2)
    assert facts["花花是木木的猫"] == renamed and facts["木木养了一只猫，叫花花"] == renamed
    assert facts["年糕是木木的猫，原来叫花花"] is None and facts["团子是木木的猫"] is None
