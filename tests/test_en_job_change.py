"""A new job said in English ends the old one, however it is said: "I work as a teacher" then "I'm a lawyer
now" leaves the teacher fact closed and the lawyer answers "What is my job now?". Who one is otherwise (a
vegetarian) ends no job."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2026, 3, 2, 10, 0)


def _facts(tmp_path: Path, lines: list[str]) -> tuple[dict[str, bool], str]:
    """Each fact's text -> whether it is still open, and the first hit for "What is my job now?"."""
    now = [T0]
    config = Config(language="en", worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: now[0]) as memory:
        for at, text in enumerate(lines):
            memory.add([{"id": f"m{at}", "text": text, "time": now[0]}], agent="Ava", person="Liz", index=True)
            memory.flush(agent="Ava", person="Liz")
            now[0] += timedelta(days=5)
        facts = memory.memories(agent="Ava", person="Liz", kinds=["fact"])
        job = memory.recall("What is my job now?", agent="Ava", person="Liz", limit=1).hits[0].text
    return {fact.text: fact.valid_to is None for fact in facts}, job


@pytest.mark.parametrize(
    ("lines", "old", "new"),
    [
        (["I work as a teacher.", "I'm a lawyer now."], "Liz works as a teacher", "Liz is a lawyer"),
        (["I'm a teacher.", "Now I'm a lawyer."], "Liz is a teacher", "Liz is a lawyer"),
        (["I'm a nurse.", "I work as a paramedic."], "Liz is a nurse", "Liz works as a paramedic"),
    ],
)
def test_a_new_job_closes_the_old(tmp_path: Path, lines: list[str], old: str, new: str) -> None:
    facts, job = _facts(tmp_path, lines)
    assert facts.get(old) is False and facts.get(new) is True, facts
    assert job == new


def test_what_one_is_besides_a_job_ends_no_job(tmp_path: Path) -> None:
    facts, _ = _facts(tmp_path, ["I work as a teacher.", "I'm a vegetarian now."])
    assert facts == {"Liz works as a teacher": True, "Liz is a vegetarian": True}


@pytest.mark.parametrize(
    "line",
    [
        "I'm a terrible cook.",  # how well one does a thing, not one's work
        "I'm a good driver.",
        "I'm a former teacher.",  # a job one left, or has not yet
        "I'm a retired nurse.",
        "I'm an aspiring writer.",
        "I'm a big fan of the writer.",  # the job is someone else's
        "I'm a friend of a lawyer.",
    ],
)
def test_a_job_word_that_is_not_ones_job_ends_no_job(tmp_path: Path, line: str) -> None:
    """Said after "I work as a teacher", "I'm a terrible cook" closed it: a job noun last was taken for a new job
    even when said of how one cooks, of a job left or wished for, or of someone else ("a fan of the writer")."""
    facts, _ = _facts(tmp_path, ["I work as a teacher.", line])
    assert facts.get("Liz works as a teacher") is True, facts
