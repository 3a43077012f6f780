"""Config from the environment without pydantic-settings: the rules it had, kept (issue 15)."""

from __future__ import annotations

import pytest

from huiyi.config import Config
from huiyi.config.env import SettingError, deep_update, from_environment
from huiyi.errors import ConfigError


@pytest.fixture(autouse=True)
def _no_huiyi_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.lower().startswith("huiyi_"):
            monkeypatch.delenv(name)


def test_names_match_case_insensitively_and_nest_with_double_underscores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("huiyi_language", "en")
    monkeypatch.setenv("HUIYI_Embed__Provider", "hash")
    monkeypatch.setenv("HUIYI_EMBED__DIM", "32")
    monkeypatch.setenv("HUIYI_CONSOLIDATE__FORGET__STRENGTH__INITIAL", "2.5")
    config = Config()
    assert config.language == "en"
    assert (config.embed.provider, config.embed.dim) == ("hash", 32)
    assert config.consolidate.forget.strength.initial == 2.5


def test_a_table_takes_json_and_a_nested_variable_wins_over_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_RECALL", '{"limit": 3, "score_threshold": 0.25}')
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "7")
    config = Config()
    assert (config.recall.limit, config.recall.score_threshold) == (7, 0.25)


def test_a_list_inside_a_table_takes_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_RECALL__VIEWS", '["latest"]')
    assert Config().recall.views == ["latest"]
    monkeypatch.setenv("HUIYI_RECALL__VIEWS", "latest")
    with pytest.raises(SettingError, match="HUIYI_RECALL__VIEWS should hold JSON"):
        Config()
    with pytest.raises(ConfigError, match="HUIYI_RECALL__VIEWS"):
        Config.load()


def test_a_named_recipe_from_the_environment_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_RECIPES__MINE__RECIPE", "seed004")
    monkeypatch.setenv("HUIYI_RECIPES__MINE__LIMIT", "5")
    monkeypatch.setenv("HUIYI_RECALL__RECIPE", "mine")
    config = Config()
    assert config.recall.limit == 5 and config.recall.score_weights["relevance"] == 0.4
    assert "mine" in config.recipes


def test_keyword_arguments_are_laid_over_the_environment_table_by_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_WORKER__MAX_ATTEMPTS", "1")
    monkeypatch.setenv("HUIYI_LANGUAGE", "en")
    config = Config(worker={"enabled": False}, LANGUAGE="zh")
    assert (config.worker.enabled, config.worker.max_attempts, config.language) == (False, 1, "zh")


def test_unknown_and_invalid_values_are_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_WORKER__BOGUS", "1")
    with pytest.raises(ValueError, match="bogus"):
        Config()
    monkeypatch.delenv("HUIYI_WORKER__BOGUS")
    monkeypatch.setenv("HUIYI_LANGUAGE", "fr")
    with pytest.raises(ConfigError, match="language"):
        Config.load()
    monkeypatch.setenv("HUIYI_LANGUAGE", "zh")
    monkeypatch.setenv("HUIYI_RECALL", "not json")
    with pytest.raises(SettingError, match="HUIYI_RECALL should hold JSON"):
        Config()


def test_a_variable_that_names_no_field_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_URL", "http://127.0.0.1:1")  # the client's, not the config's
    assert Config().language == "zh"


def test_the_file_yields_to_the_environment_and_arguments_to_both(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pytest.TempPathFactory
) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "huiyi.toml"
    path.write_text('language = "en"\n[recall]\nlimit = 4\nscore_threshold = 0.5\n', encoding="utf-8")
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "6")
    config = Config.load(path, window={"fold_at": 9})
    assert (config.language, config.recall.limit, config.recall.score_threshold) == ("en", 6, 0.5)
    assert config.window.fold_at == 9
    # as with pydantic-settings, validating a dict runs __init__, so it reads the environment too
    assert Config.model_validate({}).recall.limit == 6


def test_from_environment_reads_only_what_is_given() -> None:
    env = {"HUIYI_EMBED__DIM": "64", "HUIYI_RECALL__SCORE_WEIGHTS__RELEVANCE": "0.5", "OTHER": "x"}
    assert from_environment(Config, env) == {"embed": {"dim": "64"}, "recall": {"score_weights": {"relevance": "0.5"}}}
    assert from_environment(Config, {}) == {}


def test_deep_update_merges_tables_and_replaces_the_rest() -> None:
    base = {"a": {"b": 1, "c": 2}, "d": [1]}
    assert deep_update(base, {"a": {"c": 3}, "d": [2]}, {"e": 4}) == {"a": {"b": 1, "c": 3}, "d": [2], "e": 4}
    assert base == {"a": {"b": 1, "c": 2}, "d": [1]}
