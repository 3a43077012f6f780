"""An English pet named in quotes (My cat is called 'Milo', “Milo”, ‘Rex’) is named as one named bare; a pet
named right after its kind (Our dog Rex loves the beach) is the speaker's, as 我家猫团子在催我喂饭了 is."""

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


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("My dog Rex loves the beach", NAMED_REX),
        ("Our dog Rex loves the beach", NAMED_REX),
        ("our cat Milo is sick again", NAMED_MILO),
        ("My cat Milo, who is 3, sleeps all day", NAMED_MILO),
    ],
)
def test_a_pet_named_right_after_its_kind_is_the_speakers(text: str, described: set[str]) -> None:
    assert facts(text) == described


@pytest.mark.parametrize(
    "text",
    [
        "My dog I think is sick",
        "My cat The Great Gatsby",
        "My dog Sunday morning woke me up",
        "My sister's dog Rex loves the beach",
        "My dog Rex?",
        "Does my dog Rex need a bath?",
    ],
)
def test_no_pet_name_from_a_word_that_names_none_or_someone_elses_pet(text: str) -> None:
    assert not any(fact.keyword == "pet" and "named" in fact.description for fact in extract(text).facts)


@pytest.mark.parametrize(
    "text",
    [
        "My dog Max died last year",
        "My dog Buddy passed away, I miss him",
        "My dog Rex ran away",
        "My old dog Rex used to love walks",
        "My dog Mom says is too fat",
        "My dog Please stop barking",
    ],
)
def test_a_pet_gone_or_a_word_of_kin_after_its_kind_is_no_pet_had(text: str) -> None:
    """Since 6291530 My dog Max died last year was Liz has a dog named Max, open, and My dog Mom says is too fat a
    dog named Mom: a pet told gone is not one had now (as 我家狗狗走了), and Mom, Please are no names."""
    assert not any(fact.keyword == "pet" and "named" in fact.description for fact in extract(text).facts)
