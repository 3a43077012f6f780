"""Recall recipes: named ones, a user's own in TOML, one per call, and the config floor they sit on."""

from __future__ import annotations

import ast
from datetime import datetime
from pathlib import Path

import pytest

import huiyi.config
from huiyi import Memory
from huiyi.config import Config, RecallRecipe
from huiyi.config.recall import SEED001_WEIGHTS, SEED004_WEIGHTS
from huiyi.errors import ConfigError, InvalidInput
from huiyi.model import LinkKind, MemoryKind
from huiyi.providers.embed import HashEmbedder
from huiyi.recall.recipes import SEED004, recipe_for

NOW = datetime(2024, 10, 1, 20, 0)

TOML = """
[recall]
recipe = "seed004"
limit = 3
[recipes.mine]
recipe = "seed001"
roulette = true
[recipes.theirs]
recipe = "mine"
limit = 7
"""


def test_a_section_starts_from_a_named_recipe_and_overrides_it(tmp_path: Path) -> None:
    path = tmp_path / "huiyi.toml"
    path.write_text(TOML, encoding="utf-8")
    config = Config.load(path)
    assert (config.recall.recipe, config.recall.limit) == ("seed004", 3)
    assert config.recall.score_weights == SEED004_WEIGHTS
    assert config.recipes["mine"].score_weights == SEED001_WEIGHTS and config.recipes["mine"].roulette
    assert config.recipes["theirs"].roulette and config.recipes["theirs"].limit == 7
    assert Config.load(path, recall={"limit": 9}).recall.score_weights == SEED004_WEIGHTS


def test_the_environment_names_a_recipe_of_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "huiyi.toml"
    path.write_text(TOML, encoding="utf-8")
    monkeypatch.setenv("HUIYI_RECALL__RECIPE", "mine")
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "5")
    config = Config.load(path)
    assert (config.recall.recipe, config.recall.limit, config.recall.roulette) == ("mine", 5, True)
    assert config.recall.score_weights == SEED001_WEIGHTS


@pytest.mark.parametrize(
    "data",
    [
        {"recall": {"recipe": "nobody"}},
        {"recipes": {"seed004": {"limit": 3}}},  # a built-in name
        {"recipes": {"a": {"recipe": "b"}, "b": {"recipe": "a"}}},
        {"recall": {"score_weights": {"relevance": 0.0}}},
        {"recall": {"score_weights": {"charm": 1.0}}},
    ],
)
def test_bad_recipes_are_refused(tmp_path: Path, data: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Config.load(None, **data)


def test_a_call_picks_its_recipe(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False, "entity_weight": 0.0, "graph_weight": 0.0})
    assert recipe_for("seed004", config) == SEED004
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: NOW) as memory:
        memory.remember("木木想学吉他", agent="a", person="p", importance=0.1, id="a-minor")
        memory.remember("木木想学吉他", agent="a", person="p", importance=1.0, id="z-major")
        plain = memory.recall("吉他", agent="a", person="p", limit=2)
        weighed = memory.recall("吉他", agent="a", person="p", limit=2, recipe="seed004")
        own = memory.recall("吉他", agent="a", person="p", recipe=RecallRecipe(limit=1))
        with pytest.raises(InvalidInput, match="no recipe named"):
            memory.recall("吉他", agent="a", person="p", recipe="nobody")
    assert [h.id for h in plain.hits] == ["a-minor", "z-major"]
    assert [h.id for h in weighed.hits] == ["z-major", "a-minor"]
    assert len(own.hits) == 1


def test_seed_004_modes_decide_whether_links_are_followed(tmp_path: Path) -> None:
    recall = {"reinforce": False, "graph_weight": 1.0, "graph_seeds": 1, "graph_auto_below": 0.0}  # hash vectors
    config = Config(worker={"enabled": False}, recall=recall)
    with Memory(tmp_path, embedder=HashEmbedder(64), config=config, clock=lambda: NOW) as memory:
        cause = memory.remember("木木的猫团子生病住院了", agent="a", person="p", kind=MemoryKind.EVENT)
        effect = memory.remember("木木这几天心情很低落", agent="a", person="p", kind=MemoryKind.EVENT)
        memory.link(cause.id, effect.id, agent="a", person="p", kind=LinkKind.CAUSE)

        def walked(query: str, **fields: object) -> int | None:
            recipe = config.recall.model_copy(update=fields)
            found = memory.recall(query, agent="a", person="p", limit=3, recipe=recipe)
            return found.info.get("expand_depth")  # type: ignore[return-value]

        assert walked("木木心情低落") is None  # auto: no causal or relation word
        assert walked("木木为什么心情低落") == 2
        assert walked("木木为什么心情低落", graph_mode="fast") is None
        assert walked("木木心情低落", graph_mode="deep") == 1
        assert walked("木木心情低落", graph_depth=2) == 2  # asked for, as the tools' expand_depth
        assert walked("木木为什么心情低落", graph_depth=0) is None


def test_config_imports_nothing_above_the_model() -> None:
    allowed = ("huiyi.config", "huiyi.model", "huiyi.errors")
    for path in Path(huiyi.config.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("huiyi"):
                assert node.module.startswith(allowed), f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                assert not [a.name for a in node.names if a.name.startswith("huiyi")], path.name


def test_the_built_in_recipes_made_without_validation_equal_their_validated_twins() -> None:
    """recall.recipes makes its constants without building a validator at import (issue 15)."""
    from huiyi.config.recall import expand_recipe
    from huiyi.recall import recipes

    twins = {
        "RELEVANCE": RecallRecipe(),
        "SEED004": RecallRecipe.model_validate(expand_recipe({"recipe": "seed004"}, {})),
        "SEED001": RecallRecipe.model_validate(expand_recipe({"recipe": "seed001"}, {})),
    }
    for name, twin in twins.items():
        made = getattr(recipes, name)
        assert made == twin and made.model_fields_set == twin.model_fields_set, name
        assert made.model_dump() == twin.model_dump() and made.scores == twin.scores, name
        assert made.score_weights is not twin.score_weights
    assert recipes.SEED004.score_weights is not SEED004_WEIGHTS and recipes.SEED001.score_weights is not SEED001_WEIGHTS
