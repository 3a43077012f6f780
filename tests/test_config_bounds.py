"""A number a setting cannot work with is a ConfigError at load (file, environment or argument), not a
crash or a quiet misbehaviour in a later call."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from huiyi.config import Config
from huiyi.errors import ConfigError

REFUSED = {
    "window keep_min above fold_at (every add's fold planning raised IndexError)": {
        "window": {"keep_min": 30, "fold_at": 5}
    },
    "window keep_min equal to fold_at": {"window": {"keep_min": 20, "fold_at": 20}},
    "negative keep_min": {"window": {"keep_min": -1}},
    "recall limit 0 (every recall raised)": {"recall": {"limit": 0}},
    "recall limit beyond SQLite's integers": {"recall": {"limit": 10**30}},
    "a NaN weight": {"recall": {"dense_weight": math.nan}},
    "an infinite weight": {"recall": {"keyword_weight": math.inf}},
    "a NaN score threshold": {"recall": {"score_threshold": math.nan}},
    "a negative embedding dimension (numpy raised at the first add)": {"embed": {"dim": -5}},
    "a negative query cache (KeyError at the first recall)": {"embed": {"cache_size": -1}},
    "batches of no texts": {"embed": {"batch_size": 0}},
    "an LLM timeout of no time": {"llm": {"timeout_s": 0}},
    "a NaN LLM timeout": {"llm": {"timeout_s": math.nan}},
    "negative retries": {"llm": {"max_retries": -1}},
    "a worker polling without pause": {"worker": {"poll_seconds": 0}},
    "a NaN maintenance period": {"worker": {"maintenance_minutes": math.nan}},
    "a port beyond 65535": {"http": {"port": 70000}},
    "a negative body limit": {"http": {"max_body_bytes": -1}},
    "chunks of no turns": {"chunk": {"turns": 0}},
    "a store pool of no connections": {"store": {"pool_size": 0}},
    "messages of no characters": {"ingest": {"max_message_chars": 0}},
    "a negative overview": {"overview": {"size": -1}},
    "an expand strategy the code lacks": {"expand": {"strategy": 2}},
    "a proxy timeout of no time": {"proxy": {"timeout_s": -1}},
    "negative summary items": {"summary": {"daily_items": -3}},
}


@pytest.mark.parametrize("values", REFUSED.values(), ids=REFUSED.keys())
def test_an_unworkable_number_is_refused_at_load(values: dict[str, dict[str, object]]) -> None:
    with pytest.raises(ConfigError, match="invalid config"):
        Config.load(**values)


def test_the_environment_and_a_file_are_bounded_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HUIYI_WORKER__POLL_SECONDS", "nan")
    with pytest.raises(ConfigError, match="poll_seconds"):
        Config.load()
    monkeypatch.delenv("HUIYI_WORKER__POLL_SECONDS")
    path = tmp_path / "huiyi.toml"
    path.write_text("[window]\nfold_at = 5\n", encoding="utf-8")  # keep_min stays 10
    with pytest.raises(ConfigError, match="keep_min"):
        Config.load(path)


def test_the_edges_that_work_still_load() -> None:
    config = Config.load(
        window={"keep_min": 0, "fold_at": 1},
        http={"port": 0},
        embed={"dim": 0, "lanes": 0, "cache_size": 0},
        worker={"maintenance_minutes": 0, "backoff_seconds": 0, "switch_interval_ms": 0},
        expand={"strategy": 0, "max_words": 0},
        overview={"size": 0},
    )
    assert (config.window.fold_at, config.http.port, config.expand.strategy) == (1, 0, 0)


def test_a_memory_given_a_dict_for_its_config_says_what_it_wants(tmp_path: Path) -> None:
    from huiyi import Memory

    with pytest.raises(ConfigError, match="Config"):
        Memory(tmp_path / "store", config={"embed": {"provider": "hash", "dim": 32}})  # type: ignore[arg-type]
    assert not (tmp_path / "store").exists()  # nothing was made


KEYS = {
    "the README's placeholder as the LLM's key": {"llm": {"api_key": "…"}},
    "the proxy's upstream key (each chat answered 500 internal_error, nothing logged)": {"proxy": {"api_key": "密钥"}},
    "an embedder's key of two lines": {"embed": {"api_key": "sk-1\nsk-2"}},
    "a served key no client can send": {"http": {"api_keys": {"密钥": ["祈煜"]}}},
    "a served key of two words (the server reads one after Bearer)": {"http": {"api_keys": {"sk 1": ["祈煜"]}}},
}


@pytest.mark.parametrize("values", KEYS.values(), ids=KEYS.keys())
def test_a_key_no_http_header_can_carry_is_refused_at_load(values: dict[str, dict[str, object]]) -> None:
    with pytest.raises(ConfigError, match="api_key"):
        Config.load(**values)


@pytest.mark.parametrize("values", KEYS.values(), ids=KEYS.keys())
def test_a_refused_key_is_named_by_no_error(values: dict[str, dict[str, object]]) -> None:
    # Config(...) raises pydantic's own error, which showed the input (and a served key in its location)
    section = next(iter(values.values()))
    key = section.get("api_key") or next(iter(section["api_keys"]))  # type: ignore[call-overload]
    with pytest.raises(ValueError) as raised:
        Config(**values)
    assert str(key) not in str(raised.value)


def test_keys_a_header_carries_still_load() -> None:
    # a key pasted with its line break is the key (as the LLM client always read it)
    config = Config.load(llm={"api_key": "sk-abc.DEF_123\n"}, http={"api_keys": {"secret-key": ["*"]}})
    assert (config.llm.api_key, list(config.http.api_keys)) == ("sk-abc.DEF_123", ["secret-key"])
