"""A move said in English (I moved to Chicago today) is where the speaker lives now and closes the old
home, as 搬到上海了 does: the old one is not shown as current. A move still ahead (I'm moving to…) is not."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 4, 20, 0)


def chat(path: Path, later: str) -> tuple[dict[str, datetime | None], str]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=7)) as memory:
        lines = ["I live in Boston", "The weather is nice", later]
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(days=2 * i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="Kai", person="Mia", index=True)
        memory.flush(agent="Kai", person="Mia")
        facts = memory.memories(agent="Kai", person="Mia", kinds=["fact"])
        homes = {f.data["object"]: f.valid_to for f in facts if f.data.get("predicate") == "lives in"}
        context = memory.context(agent="Kai", person="Mia", message="Where do I live now?").text
    return homes, context


def test_a_move_done_closes_the_old_home(tmp_path: Path) -> None:
    homes, context = chat(tmp_path, "I moved to Chicago today")
    assert homes == {"Boston": T0 + timedelta(days=4), "Chicago": None}
    assert "Mia lives in Boston" not in context and "Chicago" in context


def test_a_move_ahead_changes_no_home(tmp_path: Path) -> None:
    homes, _ = chat(tmp_path, "I'm moving to Chicago next month")
    assert homes == {"Boston": None}


def test_a_home_ends_where_a_second_verb_begins(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        text = "I live in Boston and work at a small design agency"
        memory.add([{"text": text, "time": T0}], agent="Kai", person="Mia", index=True)
        memory.flush(agent="Kai", person="Mia")
        facts = memory.memories(agent="Kai", person="Mia", kinds=["fact"])
    assert [f.text for f in facts if f.data.get("predicate") == "lives in"] == ["Mia lives in Boston"]


def test_now_after_a_home_or_job_is_not_part_of_it(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        lines = ["I live in Chicago now", "I work at Lumen Games these days"]
        memory.add([{"text": t, "time": T0} for t in lines], agent="Kai", person="Mia", index=True)
        memory.flush(agent="Kai", person="Mia")
        facts = sorted(f.text for f in memory.memories(agent="Kai", person="Mia", kinds=["fact"]))
    assert facts == ["Mia lives in Chicago", "Mia works at Lumen Games"]


def test_a_second_verb_after_and_is_a_fact_of_its_own(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(days=1)) as memory:
        lines = [
            "I live in Boston and work at a small design agency",
            "I'm a nurse and work at the city hospital",
            "My sister lives in Paris and works at a bank",
        ]
        memory.add([{"text": t, "time": T0} for t in lines], agent="Kai", person="Mia", index=True)
        memory.flush(agent="Kai", person="Mia")
        facts = sorted(f.text for f in memory.memories(agent="Kai", person="Mia", kinds=["fact"]))
    assert facts == [
        "Mia is a nurse",
        "Mia lives in Boston",
        "Mia works at a small design agency",
        "Mia works at the city hospital",
    ]
