"""Named recall recipes: ``relevance``, ``seed001``, ``seed004``, and those a user defines in TOML.

``[recipes.<name>]`` in the config defines one (it may start from another with ``recipe = "seed004"``);
a call picks one by name or passes its own :class:`RecallRecipe`.

    >>> SEED004.score_weights["graph"], RELEVANCE.scores
    (0.2, False)
"""

from __future__ import annotations

from huiyi.config import Config
from huiyi.config.recall import NAMED_RECIPES, RecallRecipe, expand_recipe
from huiyi.errors import InvalidInput

__all__ = ["RELEVANCE", "SEED001", "SEED004", "named", "recipe_for"]


def _built_in(name: str) -> RecallRecipe:
    """A built-in recipe, made without validation so that importing builds no validator (issue 15): valid
    as written, and tests/test_recipes.py checks each equals its validated twin."""
    fields = expand_recipe({"recipe": name}, {})
    if "score_weights" in fields:
        fields["score_weights"] = dict(fields["score_weights"])
    return RecallRecipe.model_construct(**fields)


RELEVANCE = RecallRecipe.model_construct()  # the fused relevance with its bonuses
SEED004 = _built_in("seed004")  # seed 004 §5.2 weights
SEED001 = _built_in("seed001")  # seed 001 §2.4.2 weights


def named(config: Config) -> list[str]:
    """The recipe names a call may use: the built-in ones, then the user's."""
    return [*NAMED_RECIPES, *config.recipes]


def recipe_for(choice: RecallRecipe | str | None, config: Config) -> RecallRecipe:
    """The recipe a call runs: its own, one named, or (None) the config's ``[recall]``."""
    if choice is None:
        return config.recall
    if isinstance(choice, RecallRecipe):
        return choice
    if choice in config.recipes:
        return config.recipes[choice]
    if choice in NAMED_RECIPES:
        return RecallRecipe.model_validate(expand_recipe({"recipe": choice}, {}))
    raise InvalidInput(f"no recipe named {choice!r}; known: {', '.join(named(config))}")
