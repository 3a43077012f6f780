"""A plan called off or moved, said in English (rules.cancels_en): it closes its owner's open plan facts that
hold its words, a new time named for it is a plan of its own, and a question, a doubt, someone else's plan or
a thing moved with no time to come closes nothing."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.model import MemoryKind, Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder
from rule_lines import extract_private

SCOPE = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
THURSDAY = datetime(2024, 11, 14, 10, 0)  # next Saturday is 11-23, Friday 11-15


def closes(text: str) -> list[tuple[str, str]]:
    return [(c.subject, c.word) for c in extract_private(SCOPE, (text,), THURSDAY, "en").closes]


def plans(text: str) -> list[str]:
    found = extract_private(SCOPE, (text,), THURSDAY, "en").facts
    return [f.description for f in found if f.predicate == "plans"]


@pytest.mark.parametrize(
    ("said", "closed"),
    [
        ("My dentist appointment got cancelled.", [("Mia", "dentist"), ("Mia", "appointment")]),
        ("I had to cancel my trip to Osaka", [("Mia", "trip")]),
        ("The party's been called off", [("", "party")]),  # a chat of two: whoever's party was told of
        ("We called off our camping trip.", [("Mia", "camping"), ("Mia", "trip")]),
        ("Emma's wedding got moved to next Saturday.", [("Emma", "wedding"), ("Emma", "married")]),
        ("Ugh, my flight was postponed.", [("Mia", "flight"), ("Mia", "flying"), ("Mia", "fly")]),
        ("Monday's meeting got cancelled.", [("Mia", "meeting")]),  # a day's, not a person's
        ("Dinner with Jake got cancelled.", [("", "dinner"), ("", "Jake")]),  # no owner said: anyone's
        ("Ugh, practice got moved to Friday", [("", "practice")]),
        # the speaker's going is off, not the party itself
        ("I'm not going to the party anymore.", [("Mia", "party")]),
        ("I can't make it to Jake's dinner on Friday", [("Mia", "dinner")]),
    ],
)
def test_a_plan_called_off_closes_its_owners_plans_by_its_words(said: str, closed: list[tuple[str, str]]) -> None:
    assert closes(said) == closed


@pytest.mark.parametrize(
    "said",
    [
        "Is the party cancelled?",
        "My flight didn't get cancelled.",
        "If the party is cancelled I'll cry",
        "I think the trip might be cancelled",
        "His flight got cancelled",
        "I moved the couch to the bedroom.",  # no time still to come: no plan moved
        "My mom was moved to a new ward",
        "My trip got cancelled lol jk",
        "It got cancelled",
        "Jake said dinner got cancelled",
        "The weather is now colder",
        "If I can't make it to the party I'll tell you",
        "I'm not going to lie",
    ],
)
def test_questions_doubts_others_and_things_moved_close_nothing(said: str) -> None:
    assert closes(said) == []


def test_a_new_time_is_one_plan_in_the_plans_own_words() -> None:
    # the plan rules read "Mia moved my dentist appointment to Friday": this one replaces it
    assert plans("I moved my dentist appointment to Friday.") == [
        "Mia's dentist appointment moved to Friday (2024-11-15)"
    ]
    assert plans("The wedding is now on December 7th, not the 12th.") == ["Mia says the wedding is now on December 7th"]


def test_the_worker_closes_a_plan_said_before_and_keeps_the_new_one(tmp_path: Path) -> None:
    config = Config(language="en", worker={"enabled": False}, window={"fold_at": 4, "keep_min": 1})
    with Memory(tmp_path / "m", embedder=HashEmbedder(32), config=config) as memory:
        add = {"agent": "Kai", "person": "Mia"}
        memory.add([{"speaker": "Mia", "text": "I'm flying to Osaka next Monday!", "time": THURSDAY}], **add)
        memory.add(
            [{"speaker": "Mia", "text": "My sister Emma is getting married next Saturday", "time": THURSDAY}], **add
        )
        memory.flush(**add)
        later = THURSDAY + timedelta(hours=5)
        memory.add([{"speaker": "Mia", "text": "Bad news, my flight got cancelled.", "time": later}], **add)
        memory.add([{"speaker": "Mia", "text": "And the wedding is now on December 7th.", "time": later}], **add)
        memory.flush(**add)
        facts = {f.text: f for f in memory.memories(agent="Kai", person="Mia", kinds=[MemoryKind.FACT])}
        assert facts["Mia is flying to Osaka next Monday (2024-11-18)"].valid_to == later
        assert facts["Emma is getting married next Saturday (2024-11-23)"].valid_to == later
        assert facts["Mia says the wedding is now on December 7th"].valid_to is None


def test_in_a_group_a_plan_said_without_its_owner_is_told_by_the_speaker_and_closes_only_theirs() -> None:
    from huiyi.flows.extract import Fold
    from huiyi.flows.extract.rules.extractor import RuleExtractor
    from huiyi.model import Message

    group = Scope.of_space("Bot", "friends")
    said = [("Nora", "Let's all meet at the park Saturday at 3pm!"), ("Sam", "I'm in"), ("Leo", "ok")]
    said += [
        ("Leo", "Picnic got moved to Sunday because of rain"),
        ("Sam", "my dentist appointment got moved to Monday"),
    ]
    messages = [
        Message(
            id=f"g{i}",
            agent="Bot",
            space=group.space_id,
            scope=group,
            speaker=who,
            role="user",
            text=text,
            time=THURSDAY + timedelta(minutes=i),
            seq=i + 1,
        )
        for i, (who, text) in enumerate(said)
    ]
    found = RuleExtractor().extract_sync(Fold(agent="Bot", space=group.space_id, scope=group, messages=messages))
    plans = [f.description for f in found.facts if f.predicate == "plans"]
    assert plans == [
        "Leo says the picnic moved to Sunday (2024-11-17) because of rain",
        "Sam's dentist appointment moved to Monday (2024-11-18)",  # this week's Monday is over: the coming one
    ]
    assert {(c.subject, c.word) for c in found.closes} == {
        ("Leo", "picnic"),
        ("Sam", "dentist"),
        ("Sam", "appointment"),
    }


@pytest.mark.parametrize(
    "text",
    [
        "Jake says the Montreal trip has to move to December 21st because of his work.",
        "The Montreal trip needs to be moved to December 21st",
        "the Montreal trip will be pushed back to December 21st",
    ],
)
def test_a_plan_that_has_to_move_is_moved(text: str) -> None:
    """Only the past (got moved) read as a move: "has to move to December 21st" left the December 14th
    plan open, and the prompt gave the old date."""
    extraction = extract_private(SCOPE, [text], THURSDAY, "en")
    assert {c.word for c in extraction.closes} >= {"Montreal", "trip"}
    [moved] = [f for f in extraction.facts if f.predicate == "plans"]
    assert moved.description.startswith("Mia says the Montreal trip moved to December 21st")
    assert moved.time == datetime(2024, 12, 21)


def test_something_else_that_has_to_move_is_no_plan() -> None:
    assert closes("the movers have to move the boxes to Sunday's truck") == []
