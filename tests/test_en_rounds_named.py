"""A round one has on a day is ahead (I have work Monday, see test_rule_en_weekdays), but a round's word that
names a thing one has (I have school stuff from Monday, I've got class notes from Wednesday) says no time to
come: said on a Saturday, those read the day gone and store no plan, as before the rounds were read."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import Scope
from rule_lines import extract_private

SATURDAY = datetime(2024, 11, 9, 12, 0)


def read(text: str) -> tuple[list[str], list[str]]:
    drafts = extract_private(Scope.of_person("bot", "Mumu"), (text,), SATURDAY, "en")
    return [f.object for f in drafts.facts if f.predicate == "plans"], [e.about for e in drafts.events]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I have school stuff from Monday", "2024-11-04"),
        ("I have practice pics from Tuesday", "2024-11-05"),
        ("I've got class notes from Wednesday", "2024-11-06"),
        ("I have work photos from Monday", "2024-11-04"),
    ],
)
def test_a_thing_named_by_a_round_is_no_plan(text: str, day: str) -> None:
    assert read(text) == ([], [day])


@pytest.mark.parametrize(
    ("text", "planned"),
    [
        ("I have work Monday", "has work"),
        ("I have class on Monday", "has class"),
        ("I've got practice early Tuesday", "has got practice early"),
        ("I have school Monday and Tuesday", "has school"),
    ],
)
def test_a_round_is_still_ahead(text: str, planned: str) -> None:
    plans, _ = read(text)
    assert plans == [planned]
