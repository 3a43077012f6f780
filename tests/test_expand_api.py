"""联想词 through the Python API, the HTTP face and the CLI (Cilin only: no neighbour table is built)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from huiyi import Memory
from huiyi.config import Config
from huiyi.faces.cli import app
from huiyi.faces.http import create_app
from huiyi.memory import AsyncMemory
from huiyi.providers.embed import HashEmbedder

CILIN_ONLY = Config(expand={"neighbours": "off"}, worker={"enabled": False})


def test_expand_drops_the_names_and_levels_each_word(tmp_path: Path) -> None:
    with Memory(tmp_path, embedder=HashEmbedder(16), config=CILIN_ONLY) as memory:
        found = memory.expand("祈煜陪木木去看红色的枫叶", agent="祈煜", person="木木", max_words=20)
    assert "祈煜" not in found.base_words and "木木" not in found.base_words
    assert "红色" in found.base_words
    assert found.expanded and all(isinstance(level, int) for _, level in found.expanded)
    assert len(found.expanded) <= 20


def test_expand_words_over_http_accepts_the_seed_names(tmp_path: Path) -> None:
    memory = AsyncMemory(tmp_path, embedder=HashEmbedder(16), config=CILIN_ONLY)
    with TestClient(create_app(memory, close_on_shutdown=True)) as client:
        seed_style = {"sentence": "红色", "chinese_rd_count": 5, "logic_type": "second", "filter_values": [0]}
        body = client.post("/expand_words", json=seed_style).json()
        assert body["input_words"] == ["红色"]
        assert 1 <= len(body["expanded_words"]) <= 5
        assert all(len(pair) == 1 for pair in body["expanded_words"])
        first = client.post("/expand_words", json={"sentence": "红色 高兴", "strategy": 0, "max_words": 4}).json()
        assert len(first["expanded_words"]) == 4


def test_huiyi_expand_prints_words_and_levels(tmp_path: Path, monkeypatch: object) -> None:
    config = tmp_path / "huiyi.toml"
    config.write_text('[expand]\nneighbours = "off"\n[embed]\nprovider = "hash"\ndim = 16\n', encoding="utf-8")
    result = CliRunner().invoke(
        app, ["expand", "红色", "--max-words", "3", "--store", str(tmp_path / "s"), "-c", str(config)]
    )
    assert result.exit_code == 0, result.output
    assert "base words: ['红色']" in result.output
    assert len(result.output.splitlines()[2].split()) == 3
