"""An English fact keeps no "our", "us", "we" nor a "you" said to the agent: in the agent's prompt "Liz loves our
garden" reads as the agent's garden too, "Liz loves talking to you" as talk with whoever it now speaks to. "our"
is the speaker's (as "Our dog's name is Rex" already was), "you" the other party of a private chat, and a fact of
"us" or "we" is none (who they are, the text does not say). "I love you Kai": the name says whom "you" is to."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder
from test_rule_en_gaps import facts

MONDAY = datetime(2026, 3, 2, 10, 0)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love our garden", {"Mia loves Mia's garden"}),
        ("I work at our family's bakery", {"Mia works at Mia's family's bakery"}),
        ("I love our chats", {"Mia loves Mia and Kai's chats"}),
        ("I love our little talks", {"Mia loves Mia and Kai's little talks"}),
        ("I like us", set()),
        ("I love how we laugh together", set()),
        ("I love spending time with you", {"Mia loves spending time with Kai"}),
        ("I love talking to you", {"Mia loves talking to Kai"}),
        ("I love hearing you laugh", {"Mia loves hearing Kai laugh"}),
        ("I enjoy chatting with u", {"Mia enjoys chatting with Kai"}),
        ("I like yours", set()),
        # a "you" that does something may be anyone (as test_rule_en_objects keeps it), a title stays
        ("I love when you try something new", {"Mia loves when you try something new"}),
        ('I love the song "Our House"', {'Mia loves the song "Our House"'}),
        ("I love the US", {"Mia loves the US"}),
    ],
)
def test_we_and_you_in_a_private_fact_are_said_as_whose(text: str, described: set[str]) -> None:
    assert facts(text) == described


@pytest.mark.parametrize("text", ["I love you Kai", "I love you, Kai!", "I love you Leo", "I love you"])
def test_a_name_after_you_is_whom_you_is_said_to(text: str) -> None:
    """ "I love you" is "Mia loves Kai", a feeling for the agent; with the agent's name, or another name it is
    called by, after it, it was no fact at all ("you Kai" read as a pronoun)."""
    assert facts(text) == {"Mia loves Kai"}


@pytest.mark.parametrize("text", ["I love talking to you Kai", "I love talking to you, Leo!"])
def test_a_name_after_a_you_done_to_is_not_said_twice(text: str) -> None:
    # was "Mia loves talking to Kai Kai" (and "… Kai, Leo"): the name of address after the you made Kai
    assert facts(text) == {"Mia loves talking to Kai"}


def _group_facts(tmp_path: Path, line: str) -> set[str]:
    config = Config(language="en", worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: MONDAY) as memory:
        said = [
            {"id": "m0", "text": "hi all", "time": MONDAY, "speaker": "Bob"},
            {"id": "m1", "text": line, "time": MONDAY, "speaker": "Liz"},
        ]
        memory.add(said, agent="Ava", index=True, space="g1")
        memory.flush(agent="Ava", space="g1")
        return {fact.text for fact in memory.memories(agent="Ava", kinds=["fact"], space="g1")}


def test_a_name_after_you_in_a_group_is_the_member_it_names(tmp_path: Path) -> None:
    """In a group nobody can tell whom a bare "you" is said to, but "you Bob" names him; an unknown name, none."""
    assert "Liz loves Bob" in _group_facts(tmp_path / "bob", "I love you Bob")
    assert not any("love" in fact for fact in _group_facts(tmp_path / "leo", "I love you Leo"))


def _plans(tmp_path: Path, line: str) -> list[str]:
    config = Config(language="en", worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: MONDAY) as memory:
        memory.add([{"id": "m0", "text": line, "time": MONDAY, "speaker": "Liz"}], agent="Ava", person="Liz")
        memory.flush(agent="Ava", person="Liz")
        facts = memory.memories(agent="Ava", kinds=["fact"], person="Liz")
    return [fact.text for fact in facts if fact.data.get("keyword") == "plan"]


@pytest.mark.parametrize(
    ("line", "plan"),
    [
        ("I'm going to visit our parents tomorrow", ["Liz is going to visit Liz's parents tomorrow (2026-03-03)"]),
        ("I'm going to our cabin tomorrow", ["Liz is going to Liz's cabin tomorrow (2026-03-03)"]),
        ("I'm booking a table for us tomorrow", []),
        ("I'm going to see us play tomorrow", []),
    ],
)
def test_our_and_us_in_a_plan(tmp_path: Path, line: str, plan: list[str]) -> None:
    """ "Liz is going to visit our parents", "Liz is booking a table for us": read by the agent as its parents,
    and itself at the table."""
    assert _plans(tmp_path, line) == plan
