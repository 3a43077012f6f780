"""A pet that died (豆豆今天走了, 豆豆去世了, our dog passed away) is no longer spoken of as alive: the facts
that it is the person's pet are closed and its death is a fact. 走了 alone is no death (豆豆走丢了 is lost,
我先走了 is leaving): only a pet the person named before, with a word of death."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pet_chat import T0, pet_chat


def chat(path: Path, lines: list[str], *, folds: bool = False) -> tuple[dict[str, datetime | None], str]:
    return pet_chat(path, lines, "我的狗怎么样了", folds=folds)


@pytest.mark.parametrize("folds", [False, True])
@pytest.mark.parametrize("death", ["豆豆今天走了", "豆豆去世了", "我家狗狗昨天走了"])
def test_a_named_pet_that_died_is_no_longer_kept(tmp_path: Path, death: str, folds: bool) -> None:
    facts, context = chat(tmp_path, ["我养了一只狗叫豆豆", "今天天气不错", death], folds=folds)
    gone = T0 + timedelta(days=2)
    assert facts["木木养了一只狗，叫豆豆"] == gone and facts["豆豆是木木的狗"] == gone
    assert facts["木木的狗豆豆去世了"] is None
    assert "豆豆是木木的狗" not in context and "木木的狗豆豆去世了" in context


def test_an_english_pet_that_passed_away(tmp_path: Path) -> None:
    facts, _ = chat(tmp_path, ["I have a dog named Max", "Nice weather", "Our dog passed away"], folds=True)
    gone = T0 + timedelta(days=2)
    assert facts["木木 has a dog named Max"] == gone and facts["Max is 木木's dog"] == gone
    assert facts["木木's dog Max died"] is None


@pytest.mark.parametrize(
    "later", ["豆豆走丢了", "我先走了", "豆豆走了两步就不走了", "花花去世了", "豆豆去世了吗", "他说豆豆死了"]
)
def test_no_death_without_a_named_pet_and_a_word_of_death(tmp_path: Path, later: str) -> None:
    facts, _ = chat(tmp_path, ["我养了一只狗叫豆豆", later])
    assert facts["木木养了一只狗，叫豆豆"] is None and facts["豆豆是木木的狗"] is None
    assert not any("去世" in text for text in facts)


@pytest.mark.parametrize(
    ("told", "pet", "name"),
    [
        ("我养了一只狗，叫豆豆", "狗", "豆豆"),
        ("我养了一只狗，它叫豆豆", "狗", "豆豆"),
        ("我家有只猫，名字叫团子", "猫", "团子"),
        ("我家有只猫，它叫团子", "猫", "团子"),
        ("我家有只猫叫团子", "猫", "团子"),
    ],
)
def test_a_pet_named_after_a_comma_keeps_its_name_and_its_death_closes_it(
    tmp_path: Path, told: str, pet: str, name: str
) -> None:
    facts, _ = chat(tmp_path, [told, "今天天气不错", f"{name}今天走了"], folds=True)
    gone = T0 + timedelta(days=2)
    assert facts[f"木木养了一只{pet}，叫{name}"] == gone and facts[f"{name}是木木的{pet}"] == gone
    assert facts[f"木木的{pet}{name}去世了"] is None


@pytest.mark.parametrize(
    "said", ["我有一个问题，叫我怎么办", "我家有只猫吗，叫团子", "我有个朋友，叫阿哲", "我有一只狗"]
)
def test_no_pet_name_from_a_clause_that_names_no_pet(tmp_path: Path, said: str) -> None:
    facts, _ = chat(tmp_path, [said])
    assert not any("团子是" in text or "阿哲是" in text or "养了一个" in text for text in facts)
    assert all("叫" not in text for text in facts if "养了" in text)
