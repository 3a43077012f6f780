"""Seed 001: the six ratios are configurable (checked), and the match tiers are priorities (§2.3)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from huiyi import Memory
from huiyi.config import Config
from huiyi.config.recall import SEED001_WEIGHTS
from huiyi.errors import ConfigError
from huiyi.providers.embed import HashEmbedder

NOW = datetime(2024, 10, 1, 20, 0)
MINE = {"importance": 0.5, "recency": 0.1, "access": 0.1, "recent_use": 0.1, "relevance": 0.1, "feedback": 0.1}


def test_custom_ratios_are_a_valid_preset(tmp_path: Path) -> None:
    path = tmp_path / "huiyi.toml"
    path.write_text(
        '[recipes.mine]\nrecipe = "seed001"\n[recipes.mine.score_weights]\n'
        + "".join(f"{name} = {weight}\n" for name, weight in MINE.items())
        + '[recall]\nrecipe = "mine"\n',
        encoding="utf-8",
    )
    config = Config.load(path)
    assert config.recall.score_weights == MINE and config.recall.tiers == "priority"
    # in seed 001's own words
    named = {
        "重要性权重": 0.5,
        "时间距离权重": 0.1,
        "使用次数权重": 0.1,
        "邻用权重": 0.1,
        "内容权重": 0.1,
        "反馈权重": 0.1,
    }
    assert Config(recall={"recipe": "seed001", "score_weights": named}).recall.score_weights == MINE
    assert Config(recall={"recipe": "seed001"}).recall.score_weights == SEED001_WEIGHTS


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({**MINE, "importance": -0.1, "relevance": 0.7}, "not negative"),
        ({**MINE, "importance": 0.9}, "must sum to 1"),
        ({"relevance": 0.0}, "at least one positive"),
        ({"charm": 1.0}, "no feature named 'charm'"),
        ({"relevance": 0.5, "内容权重": 0.5}, "a second time"),
        ({"relevance": "lots"}, "must be a number"),
        ({"relevance": float("nan")}, "finite"),
    ],
)
def test_bad_ratios_are_a_clear_error(weights: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config.load(None, recall={"recipe": "seed001", "score_weights": weights})


def test_the_tiers_are_a_priority_not_a_bonus(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False, "entity_weight": 0.0, "graph_weight": 0.0})
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: NOW) as memory:
        # important and fresh, but the query word is only inside one of its words (tier 1)
        memory.remember("木木买了一把电吉他", agent="a", person="p", importance=1.0, id="inside")
        # unimportant, but tagged with the very word asked for (tier 4)
        memory.remember("周末去琴行看看", agent="a", person="p", importance=0.0, keywords=["吉他"], id="tagged")
        bonus = Config(recall={"recipe": "seed001", "tiers": "bonus"}).recall
        priority = Config(recall={"recipe": "seed001"}).recall
        weighed = memory.recall("吉他", agent="a", person="p", limit=2, recipe=bonus)
        tiered = memory.recall("吉他", agent="a", person="p", limit=2, recipe=priority)
    assert [h.id for h in weighed.hits] == ["inside", "tagged"]  # the weights alone: importance wins
    assert [h.id for h in tiered.hits] == ["tagged", "inside"]  # seed 001 §2.3: an exact tag comes first
