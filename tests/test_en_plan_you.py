"""A plan said to the agent in a private chat keeps no "you": "I'm going to see you tomorrow" is stored as
"Liz is going to see Ava tomorrow", since in the agent's prompt "you" reads as whoever it is talking to. In a
group nobody can tell who "you" is, and "you know", "you guys" and a title in quotes stay as said."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

MONDAY = datetime(2026, 3, 2, 10, 0)


def _plans(tmp_path: Path, line: str, group: bool = False) -> list[str]:
    config = Config(language="en", worker={"enabled": False}, recall={"reinforce": False})
    where = {"space": "g1"} if group else {"person": "Liz"}
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: MONDAY) as memory:
        said = [{"id": "m0", "text": line, "time": MONDAY, "speaker": "Liz"}]
        if group:
            said.append({"id": "m1", "text": "ok", "time": MONDAY, "speaker": "Bob"})
        memory.add(said, agent="Ava", index=True, **where)
        memory.flush(agent="Ava", **where)
        facts = memory.memories(agent="Ava", kinds=["fact"], **where)
    return [fact.text for fact in facts if fact.data.get("keyword") == "plan"]


@pytest.mark.parametrize(
    ("line", "plan"),
    [
        ("I'm going to see you tomorrow", "Liz is going to see Ava tomorrow (2026-03-03)"),
        ("Jake is going to see you tomorrow", "Jake is going to see Ava tomorrow (2026-03-03)"),
        ("I'm meeting your sister tomorrow", "Liz is meeting Ava's sister tomorrow (2026-03-03)"),
        # not the agent: a phrase, a crowd, a title
        ("I'm going to see you know who tomorrow", "Liz is going to see you know who tomorrow (2026-03-03)"),
        ("I will call you guys tomorrow", "Liz will call you guys tomorrow (2026-03-03)"),
        ('I\'m watching "Thank You" tomorrow', 'Liz is watching "Thank You" tomorrow (2026-03-03)'),
    ],
)
def test_you_in_a_private_plan_is_the_agent(tmp_path: Path, line: str, plan: str) -> None:
    assert _plans(tmp_path, line) == [plan]


def test_you_in_a_group_plan_stays(tmp_path: Path) -> None:
    assert _plans(tmp_path, "I'm going to see you tomorrow", group=True) == [
        "Liz is going to see you tomorrow (2026-03-03)"
    ]


@pytest.mark.parametrize(
    ("line", "plan"),
    [
        (
            "I'm going to the gym tomorrow, see you later!",
            "Liz is going to the gym tomorrow (2026-03-03), see you later",
        ),
        ("I'll call you tomorrow, love you", "Liz will call Ava tomorrow (2026-03-03), love you"),
        (
            "I'm going to the zoo tomorrow, thank you for asking",
            "Liz is going to the zoo tomorrow (2026-03-03), thank you for asking",
        ),
    ],
)
def test_a_goodbye_or_thanks_after_a_plan_keeps_its_you(tmp_path: Path, line: str, plan: str) -> None:
    """A sign-off after the plan was named too: "see Ava later" reads as a second plan, to meet the agent, and
    "love Ava", "thank Ava for asking" as things said of the agent; "see you", "love you" opening a clause and
    "thank you" are said to the one who hears them."""
    assert _plans(tmp_path, line) == [plan]


def test_you_and_i_is_the_agent_and_the_speaker(tmp_path: Path) -> None:
    """ "You and I are going…" read "Liz and You are going…", You taken for someone's name (helper's review)."""
    line = "You and I are going to the movies tomorrow"
    assert _plans(tmp_path, line) == ["Liz and Ava are going to the movies tomorrow (2026-03-03)"]
    assert _plans(tmp_path / "he", "He and I are going to the movies tomorrow") == []  # with whom?


@pytest.mark.parametrize(
    ("line", "plan"),
    [
        (
            "Tomorrow I'm going to a place where you can see the whole city",
            "Liz is going to a place where you can see the whole city tomorrow (2026-03-03)",
        ),
        (
            "I'm going to a cafe tomorrow where you get free refills",
            "Liz is going to a cafe tomorrow (2026-03-03) where you get free refills",
        ),
        (
            "Tomorrow I'll go somewhere you can see stars",
            "Liz will go somewhere you can see stars tomorrow (2026-03-03)",
        ),
        ("I'm going hiking with you tomorrow", "Liz is going hiking with Ava tomorrow (2026-03-03)"),
    ],
)
def test_a_generic_you_is_not_the_agent(tmp_path: Path, line: str, plan: str) -> None:
    """ "where you can see the whole city" read "where Ava can see…": anyone who goes there, not the agent; the
    one the plan is with or for still is."""
    assert _plans(tmp_path, line) == [plan]


@pytest.mark.parametrize(
    ("line", "plan"),
    [
        (
            "Tomorrow I'm going to the spot that you recommended",
            "Liz is going to the spot that Ava recommended tomorrow (2026-03-03)",
        ),
        (
            "I'm going to cook the pasta you will love tomorrow",
            "Liz is going to cook the pasta Ava will love tomorrow (2026-03-03)",
        ),
        (
            "I'm going to make sure you get the package tomorrow",
            "Liz is going to make sure Ava get the package tomorrow (2026-03-03)",
        ),
        (
            "I'm going to visit the cafe you can see from your window tomorrow",
            "Liz is going to visit the cafe Ava can see from Ava's window tomorrow (2026-03-03)",
        ),
        (
            "I'll show you the pictures tomorrow once you have time",
            "Liz will show Ava the pictures tomorrow (2026-03-03) once Ava has time",
        ),
        (
            "I'll pick up the cake tomorrow, make sure you are home",
            "Liz will pick up the cake tomorrow (2026-03-03), make sure Ava is home",
        ),
        (
            "I'm going to tell you tomorrow whether you can come",
            "Liz is going to tell Ava tomorrow (2026-03-03) whether Ava can come",
        ),
    ],
)
def test_a_you_addressed_in_a_plan_is_the_agent(tmp_path: Path, line: str, plan: str) -> None:
    """Since bc76b68 any you after that/once/if… or before will/get/can was kept as you, though in a chat it is
    mostly the agent: "the spot that you recommended" read, in the prompt, as recommended by the user."""
    assert _plans(tmp_path, line) == [plan]
