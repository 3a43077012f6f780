"""What the speaker is into lately, said in English (I've been watching Severance lately): stored nothing, so a
later "what am I watching these days" found only the event; now a preference of now, as 我最近在看《漫长的季节》."""

from __future__ import annotations

from datetime import datetime

import pytest

from huiyi.model import FactKind, Scope
from rule_lines import extract_private

SCOPE = Scope.of_person("bot", "Mumu")
START = datetime(2025, 9, 17, 10)


def facts(*texts: str) -> set[tuple[str, str, str, str]]:
    return {
        (fact.subject, fact.predicate, fact.object, fact.description)
        for fact in extract_private(SCOPE, texts, START, "en").facts
    }


@pytest.mark.parametrize(
    ("text", "verb", "obj"),
    [
        ("I've been watching Severance lately", "watching", "Severance"),
        ("Currently reading Dune", "reading", "Dune"),
        ("I'm really into bouldering these days", "into", "bouldering"),
        ("Been watching The Bear lately, so good", "watching", "The Bear"),
        ('Lately I\'ve been reading "The Three-Body Problem"', "reading", "The Three-Body Problem"),
        ("I'm playing Zelda again", "playing", "Zelda"),
        ("I'm obsessed with Severance rn", "obsessed with", "Severance"),
    ],
)
def test_what_the_speaker_is_into_now_is_a_fact(text: str, verb: str, obj: str) -> None:
    found = extract_private(SCOPE, (text,), START, "en").facts
    assert {(f.subject, f.predicate, f.object, f.description) for f in found} == {
        ("Mumu", f"currently {verb}", obj, f"Mumu is currently {verb} {obj}")
    }
    assert found[0].kind is FactKind.PREFERENCE


@pytest.mark.parametrize(
    "text",
    [
        "Have you watched Severance?",  # a question
        "My sister is reading Dune",  # someone else's
        "I'm reading a book",  # no title: what one does this minute
        "I'm watching TV",
        "Reading Dune",  # no subject and no word of now
        "I watched Severance",  # done
        "I'm not into it",
        "I'm watching Tom's kids",
        "I'm watching Grandma, mom's out",  # one of the family minded
        "I'm listening to Dad, he's right",
        "I'm into the finals",  # how far one is
        "I'm into the final round!",
        "I'm into my second year at uni",
        "I'm into week three of the program",
        "I'm into the idea",  # a thought
    ],
)
def test_no_interest_without_the_speaker_into_it_now(text: str) -> None:
    assert not any(fact[1].startswith("currently") for fact in facts(text))


def test_a_title_with_a_time_to_come_is_a_plan_still() -> None:
    assert {fact[1] for fact in facts("I'm watching Severance tonight")} == {"plans"}


def test_a_liking_stays_as_it_was() -> None:
    assert facts("I love watching Severance") == {
        ("Mumu", "loves", "watching Severance", "Mumu loves watching Severance")
    }
