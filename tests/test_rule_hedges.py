"""What a speaker hedges is kept by what it is. A guess or a boast about who one is, where one lives or works
(I might be a nurse, I'm basically a chef, 我可能是护士, 我好像算是个程序员吧) and an intention with no day
(maybe I'll move to Paris, 我大概要搬去上海) are no facts; a possible allergy (我好像对猫毛过敏, I think I'm
allergic to peanuts) and a plan with its day said unsure (我可能下周一飞大阪, 我大概下个月搬去上海) are kept as
tentative facts: their text says the hedge and their confidence (a fact's importance) is below any plain
one's. Plain statements are as before."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.flows.extract.rules.patterns import TENTATIVE
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2024, 11, 15, 20, 0)  # a Friday


def facts_of(path: Path, *lines: str) -> dict[str, float | None]:
    """Each line its own fold: the facts stored (text -> confidence)."""
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(path, embedder=HashEmbedder(64), config=config, clock=lambda: T0 + timedelta(hours=1)) as memory:
        for i, line in enumerate(lines):
            memory.add([{"id": f"m{i}", "text": line, "time": T0 + timedelta(minutes=i)}], agent="祈煜", person="木木")
            memory.flush(agent="祈煜", person="木木")
        return {f.text: f.fact.confidence for f in memory.memories(agent="祈煜", person="木木", kinds=["fact"])}


@pytest.mark.parametrize(
    "line",
    [
        "I might be a nurse",
        "I guess I'm a genius lol",
        "maybe I'll move to Paris",
        "I'm basically a chef",
        "我可能是护士",
        "我好像算是个程序员吧",
        "我大概要搬去上海",
        "我可能喜欢猫",
        "我应该在阿里上班",
    ],
)
def test_a_guess_or_a_boast_about_oneself_is_no_fact(tmp_path: Path, line: str) -> None:
    assert facts_of(tmp_path, line) == {}


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        ("我好像对猫毛过敏", "木木好像对猫毛过敏"),
        ("我可能对芒果过敏", "木木可能对芒果过敏"),
        ("I think I'm allergic to peanuts", "木木 may be allergic to peanuts"),
        ("I might be allergic to cats", "木木 may be allergic to cats"),
        ("我可能下周一飞大阪", "木木可能下周一（2024-11-18）飞大阪"),
        ("我大概下个月搬去上海", "木木大概下个月（2024-12-01～2024-12-31）搬去上海"),
        ("我也许明天去北京", "木木也许明天（2024-11-16）去北京"),
    ],
)
def test_a_hedged_allergy_or_dated_plan_is_tentative(tmp_path: Path, line: str, fact: str) -> None:
    assert facts_of(tmp_path, line) == {fact: TENTATIVE}


@pytest.mark.parametrize(
    ("line", "fact", "confidence"),
    [
        ("I'm a nurse", "木木 is a nurse", 0.7),
        ("我是护士", "木木是护士", 0.7),
        ("我对猫毛过敏", "木木对猫毛过敏", 0.8),
        ("I'm allergic to peanuts", "木木 is allergic to peanuts", 0.8),
        ("我下周一飞大阪", "木木下周一（2024-11-18）飞大阪", 0.6),
    ],
)
def test_a_plain_statement_is_as_before(tmp_path: Path, line: str, fact: str, confidence: float) -> None:
    assert facts_of(tmp_path, line) == {fact: confidence}
