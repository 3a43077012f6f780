"""An English home said near a place is said as near: I live near our school was "Mia lives in Mia's school",
next to a bakery and by the sea were no home. The fact is still the one home a move ends (predicate lives in)."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.flows.extract import Extraction
from huiyi.model import Scope, ScopeKind
from rule_lines import extract_private

SCOPE = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
MONDAY = datetime(2024, 11, 4, 10, 0)


def extract(*texts: str) -> Extraction:
    return extract_private(SCOPE, texts, MONDAY, "en")


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I live near our school", "Mia lives near Mia's school"),
        ("I live close to the park", "Mia lives close to the park"),
        ("I live next to a bakery", "Mia lives next to a bakery"),
        ("I live by the sea", "Mia lives by the sea"),
        ("I live at the end of the street", "Mia lives at the end of the street"),
        ("I live in Paris", "Mia lives in Paris"),
    ],
)
def test_a_home_is_said_with_its_own_preposition_and_is_the_one_home(text: str, described: str) -> None:
    homes = [fact for fact in extract(text).facts if fact.keyword == "home"]
    assert [fact.description for fact in homes] == [described]
    assert homes[0].predicate == "lives in"  # a move still ends it (closes.ONE_AT_A_TIME)


@pytest.mark.parametrize(
    "text",
    ["I live by myself", "I live by the rules", "I live for the weekends", "I live near here", "I live in there"],
)
def test_living_by_oneself_or_a_rule_or_near_here_is_no_home(text: str) -> None:
    assert not any(fact.keyword == "home" for fact in extract(text).facts)
