"""An English home said near a place is said as near: I live near our school was "Mia lives in Mia's school",
next to a bakery and by the sea were no home. A home in or at a place is the one home a move ends (lives in);
what it is near (lives near) no home in a city contradicts."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract import Extraction
from huiyi.model import MemoryKind, Scope, ScopeKind
from huiyi.providers.embed import HashEmbedder
from rule_lines import extract_private

SCOPE = Scope(agent="Kai", kind=ScopeKind.PERSON, key="Mia")
MONDAY = datetime(2024, 11, 4, 10, 0)


def extract(*texts: str) -> Extraction:
    return extract_private(SCOPE, texts, MONDAY, "en")


@pytest.mark.parametrize(
    ("text", "described", "predicate"),
    [
        ("I live near our school", "Mia lives near Mia's school", "lives near"),
        ("I live close to the park", "Mia lives close to the park", "lives near"),
        ("I live next to a bakery", "Mia lives next to a bakery", "lives near"),
        ("I live by the sea", "Mia lives by the sea", "lives near"),
        ("I live at the end of the street", "Mia lives at the end of the street", "lives in"),
        ("I live in Paris", "Mia lives in Paris", "lives in"),
        # near a place named is a home in its reach: it ends Boston, as before 2a7fa41 (a review's find)
        ("I live near Seattle now", "Mia lives near Seattle", "lives in"),
    ],
)
def test_a_home_is_said_with_its_own_preposition(text: str, described: str, predicate: str) -> None:
    homes = [fact for fact in extract(text).facts if fact.keyword == "home"]
    assert [(fact.description, fact.predicate) for fact in homes] == [(described, predicate)]


@pytest.mark.parametrize("near", ["I live close to work so I walk", "I live near the station"])
def test_what_a_home_is_near_ends_no_home_in_a_city(tmp_path: Path, near: str) -> None:
    # "lives in" for both ended Boston: the prompt lost where Mia lives for a walk to work
    with Memory(
        tmp_path / "m", embedder=HashEmbedder(32), config=Config(language="en", worker={"enabled": False})
    ) as m:
        for day, text in enumerate(["I live in Boston", near]):
            m.add([{"text": text, "time": MONDAY + timedelta(days=day)}], agent="Kai", person="Mia")
            m.flush(agent="Kai", person="Mia")
        homes = {f.text: f.valid_to for f in m.memories(agent="Kai", person="Mia", kinds=[MemoryKind.FACT])}
    assert homes["Mia lives in Boston"] is None, homes


@pytest.mark.parametrize(
    "text",
    ["I live by myself", "I live by the rules", "I live for the weekends", "I live near here", "I live in there"],
)
def test_living_by_oneself_or_a_rule_or_near_here_is_no_home(text: str) -> None:
    assert not any(fact.keyword == "home" for fact in extract(text).facts)


@pytest.mark.parametrize("near", ["我住在公司附近，走路上班", "我住在西湖边", "我家在学校旁边"])
def test_what_a_chinese_home_is_near_ends_no_home_in_a_city(tmp_path: Path, near: str) -> None:
    # 住在 for both: 我住在公司附近 ended 木木住在杭州
    with Memory(tmp_path / "m", embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as m:
        for day, text in enumerate(["我住在杭州", near]):
            m.add([{"text": text, "time": MONDAY + timedelta(days=day)}], agent="祈煜", person="木木")
            m.flush(agent="祈煜", person="木木")
        homes = {f.text: f.valid_to for f in m.memories(agent="祈煜", person="木木", kinds=[MemoryKind.FACT])}
    assert homes["木木住在杭州"] is None and len(homes) == 2, homes


def test_a_chinese_move_still_ends_a_home_in_a_city(tmp_path: Path) -> None:
    with Memory(tmp_path / "m", embedder=HashEmbedder(32), config=Config(worker={"enabled": False})) as m:
        for day, text in enumerate(["我住在杭州", "我搬到上海了"]):
            m.add([{"text": text, "time": MONDAY + timedelta(days=day)}], agent="祈煜", person="木木")
            m.flush(agent="祈煜", person="木木")
        homes = {f.text: f.valid_to for f in m.memories(agent="祈煜", person="木木", kinds=[MemoryKind.FACT])}
    assert homes["木木住在杭州"] is not None, homes
