"""A person read as a workplace or a title in English: "I'm starting at Sarah's next week" stored a new job at
Sarah's, "I've been watching Lily" and "I'm playing Tom" an interest in a show or a game called so, and a member
of the chat (I've been watching Ajie lately, I work for Ajie) fared alike. Now a person the chat knows is never an
employer nor a title, and neither is a common given name said bare (rules.persons_en, text.given_names);
Succession, Zelda, Google, Wendy's and McKinsey's London office still are."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from huiyi.flows.extract import Fold
from huiyi.flows.extract.rules.extractor import RuleExtractor
from huiyi.model import Message, Scope
from rule_lines import extract_private

SCOPE = Scope.of_person("bot", "Mumu")
START = datetime(2025, 9, 17, 10)  # a Wednesday
MONDAY = datetime(2025, 9, 22)
GROUP = Scope.of_space("Bot", "friends")


def facts(*texts: str) -> set[tuple[str, str, str]]:
    return {(f.predicate, f.object, f.description) for f in extract_private(SCOPE, texts, START, "en").facts}


def group_facts(speaker: str, text: str, silent: tuple[str, ...] = ()) -> set[tuple[str, str, str]]:
    """What the rules read of ``speaker``'s line in a group whose members ``silent`` said nothing in the fold."""
    said = [("Ajie", "hey all"), (speaker, text)]
    messages = [
        Message(
            id=f"g{i}",
            agent="Bot",
            space=GROUP.space_id,
            scope=GROUP,
            speaker=who,
            role="user",
            text=line,
            time=START + timedelta(minutes=i),
            seq=i + 1,
        )
        for i, (who, line) in enumerate(said)
    ]
    aliases = {member: [member] for member in silent}
    fold = Fold(agent="Bot", space=GROUP.space_id, scope=GROUP, messages=messages, aliases=aliases, language="en")
    return {(f.predicate, f.object, f.description) for f in RuleExtractor().extract_sync(fold).facts}


@pytest.mark.parametrize(
    "text",
    [
        "I've been watching Lily lately",  # babysitting
        "I'm watching Lily",
        "Currently watching Lily",
        "I'm playing Tom again",  # an opponent
        "I've been listening to Sarah lately",  # her advice
        "I'm watching Liam",  # a name of children born since 2000
    ],
)
def test_a_given_name_watched_played_or_listened_to_is_someone_not_a_title(text: str) -> None:
    assert not [fact for fact in facts(text) if fact[0].startswith("currently")]


@pytest.mark.parametrize(
    ("text", "predicate", "title"),
    [
        ("I've been watching Succession lately", "currently watching", "Succession"),
        ("I'm playing Zelda again", "currently playing", "Zelda"),
        ("I'm playing Mario again", "currently playing", "Mario"),  # a given name, more often the game
        ("I've been watching Dexter lately", "currently watching", "Dexter"),
        ("I'm reading Emma", "currently reading", "Emma"),  # one reads a book, not a child
        ('I\'ve been watching "Lily" lately', "currently watching", "Lily"),  # quoted: a title
        ("I've been watching The Bear lately", "currently watching", "The Bear"),
    ],
)
def test_titles_stay_titles(text: str, predicate: str, title: str) -> None:
    assert [fact[:2] for fact in facts(text)] == [(predicate, title)]


def test_the_chats_own_people_are_no_title_whatever_the_verb() -> None:
    for line in ("I've been watching Ajie lately", "I'm reading Ajie", "I'm playing Xiaolin again"):
        found = group_facts("Sam", line, silent=("Xiaolin",))
        assert not [fact for fact in found if fact[0].startswith("currently")], line
    assert ("currently watching", "Severance") in {fact[:2] for fact in group_facts("Sam", "I'm watching Severance")}


@pytest.mark.parametrize(
    "text",
    [
        "I'm starting at Sarah's next week",
        "I work at Sarah's",
        "I got a new job at Sarah's",
        "I'm starting at Dave's",
        "I work for Sarah",  # her boss
    ],
)
def test_a_given_names_house_is_no_employer(text: str) -> None:
    assert not [fact for fact in facts(text) if fact[0] == "works at"]


def test_starting_at_someones_house_is_a_plan_of_going_there_and_a_new_job_there_names_no_employer() -> None:
    assert facts("I'm starting at Sarah's next week") == {
        ("plans", "is starting at Sarah's", "Mumu is starting at Sarah's next week (2025-09-22～2025-09-28)")
    }
    assert facts("Starting my new job at Sarah's on Monday") == {
        ("plans", "starts a new job", "Mumu starts a new job on Monday (2025-09-22)")
    }


def test_the_chats_own_people_are_no_employer() -> None:
    for line in ("I'm starting at Ajie's on Monday", "I work for Ajie", "I work at Xiaolin's"):
        found = group_facts("Sam", line, silent=("Xiaolin",))
        assert not [fact for fact in found if fact[0] == "works at"], line


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("I'm starting at Google on Monday", "Google"),
        ("I'm starting at Wendy's next week", "Wendy's"),  # the chain, named after a given name
        ("I'm starting at McDonald's next week", "McDonald's"),
        ("I'm starting at Joe's Pizza next week", "Joe's Pizza"),
        ("I'm starting at McKinsey's London office next week", "McKinsey's London office"),
        ("I work at Google", "Google"),
        ("I work for Chase", "Chase"),  # the bank, named as a man may be
    ],
)
def test_employers_stay_employers(text: str, employer: str) -> None:
    assert [fact[1] for fact in facts(text) if fact[0] == "works at"] == [employer]
