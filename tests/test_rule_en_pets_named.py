"""An English pet named in quotes (My cat is called 'Milo', “Milo”, ‘Rex’) is named as one named bare."""

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


def facts(*texts: str) -> set[str]:
    return {fact.description for fact in extract(*texts).facts}


NAMED_MILO = {"Mia has a cat named Milo", "Milo is Mia's cat"}
NAMED_REX = {"Mia has a dog named Rex", "Rex is Mia's dog"}


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("My cat is called Milo", NAMED_MILO),
        ("My cat is called 'Milo'", NAMED_MILO),
        ("My cat is called “Milo”.", NAMED_MILO),
        ('my cat is named "Milo"!', NAMED_MILO),
        ("my dog’s name is ‘Rex’", NAMED_REX),
        ("I have a dog named 'Rex'", NAMED_REX),
        ("I got a dog today. His name is “Rex”", NAMED_REX),
    ],
)
def test_a_pet_named_in_quotes_is_named_as_one_named_bare(text: str, described: set[str]) -> None:
    assert facts(text) == described
