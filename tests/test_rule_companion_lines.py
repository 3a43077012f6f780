"""Lines of a companion month, in English and Chinese, that the rules misread into facts a user would notice:
a correction (I moved to Berlin, not Munich), a second subject after a comma (I'm allergic to cats, my
boyfriend isn't; 我对猫过敏，我男朋友不过敏), a negation (我不对任何东西过敏), a count that is no age (I'm 29
minutes late), a mood that is no identity (I'm a mess today), a hospital stay that is no home (我住院了), a
contrast (我喜欢爬山但讨厌跑步), a correction after a comma (I'm not a nurse, I'm a paramedic) and an
abbreviation's full stop (St. Mary's)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 15, 20, 0)


def facts_of(path: Path, line: str) -> set[str]:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(hours=1)) as memory:
        memory.add([{"id": "m0", "text": line, "time": T0}], agent="祈煜", person="木木")
        memory.flush(agent="祈煜", person="木木")
        return {f.text for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}


@pytest.mark.parametrize(
    ("line", "facts"),
    [
        ("Actually I moved to Berlin, not Munich.", {"木木 moved to Berlin"}),
        ("I'm allergic to cats, my boyfriend isn't.", {"木木 is allergic to cats"}),
        ("I'm 29 minutes late, sorry.", set()),
        ("I'm a mess today.", set()),
        ("I'm not a nurse, I'm a paramedic.", {"木木 is a paramedic"}),
        ("I work as a nurse at St. Mary's.", {"木木 works as a nurse", "木木 works at St. Mary's"}),
        # the object of "I'm a …" was cut at the title's or the initial's full stop ("a nurse at St")
        ("I'm a nurse at St. Mary's", {"木木 is a nurse at St. Mary's"}),
        ("I'm a banker at J.P. Morgan. I love it", {"木木 is a banker at J.P. Morgan"}),
        # …but a sentence that opens after the initials is not theirs ("a teacher in the U.S. I love it")
        ("I'm a teacher in the U.S. I love it", {"木木 is a teacher in the U.S"}),
        ("I'm a fan of Dr. Lee. She is great", {"木木 is a fan of Dr. Lee"}),
        ("我对猫过敏，我男朋友不过敏", {"木木对猫过敏"}),
        ("我男朋友对猫过敏", set()),
        ("我不对任何东西过敏", set()),
        ("我住院了", set()),
        ("我喜欢爬山但讨厌跑步", {"木木喜欢爬山"}),
    ],
)
def test_a_companion_line_gives_only_what_it_says(tmp_path: Path, line: str, facts: set[str]) -> None:
    assert facts_of(tmp_path, line) == facts


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        ("I'm 29.", "木木 is 29 years old"),
        ("I'm an only child.", "木木 is an only child"),
        ("I love hiking, biking and swimming.", "木木 loves hiking, biking and swimming"),
        ("我对猫毛过敏", "木木对猫毛过敏"),
        ("我住宿舍", "木木住在宿舍"),
        ("我喜欢但丁的诗", "木木喜欢但丁的诗"),
        ("我今年29岁", "木木今年29岁"),
    ],
)
def test_a_plain_line_still_gives_its_fact(tmp_path: Path, line: str, fact: str) -> None:
    assert fact in facts_of(tmp_path, line)
