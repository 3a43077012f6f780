"""Smoke tests of ``huiyi bench`` at tiny sizes: the report's structure and the generator's determinism.

Speed is never asserted: these run on shared machines. The hash embedder keeps them fast.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import io
import json
import os
import resource
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from huiyi.evaluation import synthetic
from huiyi.evaluation.bench import (
    BenchOptions,
    Pool,
    VectorCache,
    build_store,
    parse_size,
    parse_sizes,
    probe_plan,
    render,
    run_bench,
    store_names,
    summary,
)
from huiyi.evaluation.probes import ProbeSet
from huiyi.faces.cli import app
from huiyi.model import Scope
from huiyi.providers.embed import HashEmbedder
from huiyi.store.sqlite import SQLiteStore


@pytest.mark.parametrize(
    "name",
    [
        "huiyi.evaluation.synthetic",
        "huiyi.evaluation.bench.run",
        "huiyi.evaluation.bench.build",
        "huiyi.evaluation.bench.stats",
        "huiyi.evaluation.bench.pg",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


# generator ----------------------------------------------------------------------------------------


def test_persons_are_deterministic_and_independent_of_count() -> None:
    assert synthetic.persons(5, seed=1) == synthetic.persons(5, seed=1)
    assert synthetic.persons(50, seed=1)[:5] == synthetic.persons(5, seed=1)
    assert synthetic.persons(5, seed=1) != synthetic.persons(5, seed=2)
    people = synthetic.persons(60, seed=0)
    assert len({p.id for p in people}) == 60
    assert {p.language for p in people} == {"zh", "en"}


def test_chat_is_deterministic_and_plants_its_probes() -> None:
    who = synthetic.person(3, seed=7)
    chat = synthetic.person_chat(who, 60, seed=7, facts=5)
    assert chat == synthetic.person_chat(who, 60, seed=7, facts=5)
    assert chat != synthetic.person_chat(who, 60, seed=8, facts=5)
    assert len(chat.messages) == 60
    assert [m.role for m in chat.messages[:4]] == ["user", "assistant", "user", "assistant"]
    times = [m.time for m in chat.messages]
    assert times == sorted(times) and times[-1] < synthetic.REFERENCE_TIME
    assert len({m.id for m in chat.messages}) == 60
    by_id = {m.id: m for m in chat.messages}
    assert len(chat.probes) == 5
    assert len({p.group for p in chat.probes}) == 5
    for probe in chat.probes:
        assert by_id[probe.gold].text == probe.fact
        assert by_id[probe.gold].role == "user"
        assert probe.query and probe.query != probe.fact


def test_planted_fact_and_query_agree() -> None:
    zh = next(p for p in synthetic.persons(20) if p.language == "zh")
    en = next(p for p in synthetic.persons(20) if p.language == "en")
    for who in (zh, en):
        for index, group in enumerate(synthetic.FACT_GROUPS):
            got_group, fact, query = synthetic.planted_fact(who, index)
            assert got_group == group
            assert "{" not in fact and "{" not in query
            assert synthetic.planted_fact(who, index) == (got_group, fact, query)


def test_line_pool_covers_every_pattern_deterministically() -> None:
    pool = synthetic.line_pool(4, seed=0)
    assert pool == synthetic.line_pool(4, seed=0)
    assert {line.template for line in pool} == set(range(len(synthetic.templates())))
    assert all("{" not in line.text for line in pool)


def test_probe_file_is_valid_probe_format(tmp_path: Path) -> None:
    chats = list(synthetic.chats(4, 20, seed=0, facts=2))
    data = synthetic.probe_file(chats)
    probe_set = ProbeSet.model_validate(data)
    case = probe_set.cases[0]
    assert len(case.messages) == 80 and len(case.probes) == 8
    ids = {m.id for m in case.messages}
    assert all(p.gold[0] in ids for p in case.probes)
    # one human speaker per space, so the eval runner sees private chats
    speakers: dict[str, set[str]] = {}
    for m in case.messages:
        if m.role == "user":
            speakers.setdefault(m.space, set()).add(m.speaker)
    assert all(len(names) == 1 for names in speakers.values())


# building -----------------------------------------------------------------------------------------


def test_probe_plan_spreads_over_persons_first() -> None:
    assert probe_plan(3, 5) == [(0, 0), (1, 1), (2, 2), (0, 1), (1, 2)]
    plan = probe_plan(2, 1000)
    assert len(plan) == len(set(plan)) == 2 * len(synthetic.FACT_GROUPS)
    assert len({group for _, group in probe_plan(200, 200)}) == len(synthetic.FACT_GROUPS)


def test_build_store_is_deterministic(tmp_path: Path) -> None:
    embedder = HashEmbedder(32)
    texts = []
    for run in ("a", "b"):
        cache = VectorCache(embedder, tmp_path / "cache")
        pool = Pool.build(cache, 2, seed=0)
        store = SQLiteStore(tmp_path / run)
        try:
            store.set_embedding_model(embedder.name, embedder.dim)
            stats = build_store(
                store, size=300, scope_size=100, pool=pool, cache=cache, n_probes=4, official=5, batch=128
            )
            assert stats.memories == 305 and stats.persons == 3
            assert store.count_memories(scopes=[Scope.of_person(synthetic.AGENT, "p00001")]) == 100
            golds = store.get_memories(synthetic.AGENT, [p.gold for p in stats.probes])
            assert len(golds) == 4
            wanted = ["syn_p00000_00007", "syn_p00002_00042", *(p.gold for p in stats.probes)]
            texts.append([m.text for m in store.get_memories(synthetic.AGENT, wanted)])
            cache.save()
        finally:
            store.close()
    assert texts[0] == texts[1]
    assert (tmp_path / "cache").exists()


def test_vector_cache_survives_a_damaged_file(tmp_path: Path) -> None:
    embedder = HashEmbedder(16)
    cache = VectorCache(embedder, tmp_path)
    first = cache.passages(["我家的猫叫豆包", "I grew up in Oslo"])
    cache.save()
    again = VectorCache(embedder, tmp_path)
    assert (again.passages(["我家的猫叫豆包", "I grew up in Oslo"]) == first).all()
    assert again.embedded == 0
    assert cache.path is not None
    cache.path.write_bytes(b"not an npz file")
    broken = VectorCache(embedder, tmp_path)
    assert (broken.passages(["我家的猫叫豆包"]) == first[:1]).all()
    assert broken.embedded == 1


# the whole run -------------------------------------------------------------------------------------

TINY = {
    "sizes": [200],
    "scope": 100,
    "queries": 6,
    "cold": 1,
    "startup_runs": 0,
    "ingest_messages": 20,
    "ingest_batch": 10,
    "load_queries": 0,
    "import_runs": 0,  # tests/test_startup.py times imports
    "embedder": "hash",
    "cache_dir": None,
}


def _check_summary(value: dict[str, Any]) -> None:
    assert set(value) >= {"n", "p50", "p95", "p99"}
    assert value["n"] > 0
    assert value["p50"] <= value["p95"] <= value["p99"]


@pytest.fixture(scope="module")
def tiny_report() -> dict[str, Any]:
    return run_bench(BenchOptions(**TINY))  # type: ignore[arg-type]


def test_report_structure(tiny_report: dict[str, Any]) -> None:
    report = tiny_report
    assert report["bench"] == "huiyi"
    assert report["embedder"]["name"] == "hash-384"
    assert report["pool"]["lines"] > 0
    [size] = report["recall"]
    assert size["size"] == 200 and size["label"] == "200" and size["persons"] == 2
    assert size["build"]["memories"] == 220  # 200 + the agent's official notes
    latency = size["latency"]
    for key in ("with_embed", "without_embed", "cold_without_embed", "baseline_embed_query", "baseline_numpy_scan"):
        _check_summary(latency[key])
    assert latency["with_embed"]["n"] == 6
    assert {"dense", "keyword", "total"} <= set(latency["stages_p50_without_embed"])
    assert set(latency["ratios"]) == {"with_embed_p50_over_bare_embed_p50", "without_embed_p50_over_numpy_scan_p50"}
    assert 0.0 <= latency["hit_at_10"]["with_embed"] <= 1.0
    assert latency["hit_at_10"]["n"] == 6
    assert size["disk"]["bytes"] > 0 and size["disk"]["bytes_per_memory"] > 0
    assert size["peak_rss_mb"] > 0
    assert set(size["context"]) == {"chat", "group"}  # Memory.context beside recall, in the same loop
    for figures in size["context"].values():
        assert set(figures) == {"context", "context_cpu", "recall", "recall_cpu"}
        for value in figures.values():
            _check_summary(value)
            assert value["n"] == 6
    assert "first_recall" not in size
    assert report["scaling"]["with_embed"] == {"200": 1.0}
    ingest = report["ingest"]
    assert ingest["messages"] == 20
    assert ingest["accepted_per_s"] > 0 and ingest["indexed_per_s"] > 0
    assert ingest["raw_embedder_passages_per_s"] > 0 and ingest["indexing_over_raw_embedder"] > 0
    assert ingest["memory_add_messages"] > 0
    assert report["peak_rss_mb"] > 0 and report["seconds"] > 0
    json.dumps(report)  # all of it serialisable


def test_report_renders(tiny_report: dict[str, Any]) -> None:
    out = io.StringIO()
    render(tiny_report, Console(file=out, width=160))
    text = out.getvalue()
    for title in ("recall with the query embedding", "recall without the embedding", "engine stages", "ingest"):
        assert title in text
    assert "context of a turn" in text


def test_the_context_part_gives_a_turn_every_block_of_its_prompt(tmp_path: Path) -> None:
    """What context() is timed on: the chat's working memory, its overview, the core blocks, the group's own."""
    from huiyi.config import Config, EmbedConfig
    from huiyi.evaluation.bench.build import Probe
    from huiyi.evaluation.bench.context import GROUP, seed_chats, with_core_blocks
    from huiyi.memory import Memory

    embedder = HashEmbedder(384)
    config = with_core_blocks(Config(embed=EmbedConfig(provider="hash", dim=384)), tmp_path / "blocks")
    pool = Pool.build(VectorCache(embedder, None), 1, 0)
    who = synthetic.person(0)
    with Memory(tmp_path / "store", config=config, embedder=embedder) as memory:
        assert seed_chats(memory, [Probe(who, "我妹妹叫什么", "syn", "family")], pool) == 2
        chat = memory.context(agent=synthetic.AGENT, person=who.id, message="我妹妹叫什么")
        group = memory.context(agent=synthetic.AGENT, person=who.id, space=GROUP, message="我妹妹叫什么")
    for context in (chat, group):
        assert len(context.working) == 24 and len(context.overview) == 10
        assert "温柔的画家" in context.text and context.overview[0].text in context.text
    assert f"{who.name}，说" in chat.text  # the person's own human block
    assert {m.space for m in chat.working} != {m.space for m in group.working}


def test_the_context_part_seeds_its_chats_after_the_opens_look_for_leftovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine the open's look for messages left unindexed ran between the seeding's direct writes,
    took the chat's log over and planned its folds: the working memory held 26 messages, not 24 (CI)."""
    import time

    from huiyi.config import Config, EmbedConfig
    from huiyi.evaluation.bench.build import Probe
    from huiyi.evaluation.bench.context import seed_chats
    from huiyi.memory import Memory
    from huiyi.memory.indexing import Indexing

    seen: list[int] = []
    look = Indexing._index_leftovers

    def a_late_look(self: Indexing) -> int:
        time.sleep(0.3)  # as a loaded machine starts it
        seen.append(len(self.store.unindexed_messages(1000)))
        return look(self)

    monkeypatch.setattr(Indexing, "_index_leftovers", a_late_look)
    embedder = HashEmbedder(384)
    pool = Pool.build(VectorCache(embedder, None), 1, 0)
    config = Config(embed=EmbedConfig(provider="hash", dim=384), worker={"enabled": False})
    with Memory(tmp_path / "store", config=config, embedder=embedder) as memory:
        seed_chats(memory, [Probe(synthetic.person(0), "我妹妹叫什么", "syn", "family")], pool)
        assert seen == [0]  # the look was over before the first write


def test_first_recall_in_a_fresh_process(tmp_path: Path) -> None:
    report = run_bench(BenchOptions(**{**TINY, "startup_runs": 1, "ingest_messages": 0, "queries": 2}))  # type: ignore[arg-type]
    first = report["recall"][0]["first_recall"]
    [run] = first["runs"]
    assert "error" not in run, run
    assert run["hits"] > 0
    assert run["wall_ms"] >= run["import_ms"] + run["open_ms"] + run["recall_ms"]
    assert run["exit_ms"] >= run["wall_ms"]  # the answer arrives before the child has closed and exited
    assert first["exit_ms_median"] == run["exit_ms"]
    paused = first["after_pause"]
    [later] = paused["runs"]
    assert later["hits"] == run["hits"] and later["open_ms"] >= paused["pause_s"] * 1e3
    assert paused["recall_ms_median"] == later["recall_ms"]
    assert "ingest" not in report


def test_a_first_add_in_a_fresh_process_is_timed_beside_the_second_and_its_goal() -> None:
    from huiyi.evaluation.bench.goals import run_goals
    from huiyi.evaluation.bench.startup import first_add, render_startup

    env = {k: v for k, v in os.environ.items() if not k.startswith("HUIYI_")}
    env["HUIYI_EMBED__PROVIDER"] = "hash"  # what is timed is the add, not the embedder's start
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    added = first_add(1, env, pause=0.0)
    assert added["runs"] == 1 and added["first_ms_median"] > 0 and added["second_ms_median"] > 0
    # the machine's own first step after the same wait, from the same process, and the add over it
    assert added["baseline_insert_ms_median"] > 0
    # the ratio is of the unrounded medians: within what rounding the two figures (to 0.01 and 0.0001) allows
    first, baseline = added["first_ms_median"], added["baseline_insert_ms_median"]
    low, high = max(first - 0.005, 0.0) / (baseline + 0.00005), (first + 0.005) / max(baseline - 0.00005, 1e-9)
    assert low - 0.005 <= added["first_over_baseline"] <= high + 0.005
    rows = run_goals({"startup": {"first_add": added}})
    assert [(r["goal"], r["target"]) for r in rows] == [("first add in a fresh process, median ms", 2.0)]
    out = io.StringIO()
    render_startup({"first_add": added}, Console(file=out, width=160))
    assert "first add in a fresh process" in out.getvalue()
    assert "a bare SQLite insert after the same wait" in out.getvalue()


def test_cli_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "run",
            "--sizes",
            "100",
            "--scope",
            "50",
            "--queries",
            "2",
            "--cold",
            "1",
            "--startup-runs",
            "0",
            "--ingest",
            "0",
            "--load",
            "0",
            "--embedder",
            "hash",
            "--no-cache",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["recall"][0]["persons"] == 2


# PostgreSQL beside the embedded store ----------------------------------------------------------------


def _check_side_by_side(report: dict[str, Any], pg_name: str) -> None:
    assert report["side_by_side"]["stores"] == ["sqlite", pg_name]
    rows = report["side_by_side"]["recall"]
    assert [(r["size"], r["store"]) for r in rows] == [("100", "sqlite"), ("100", pg_name)]
    for row in rows:
        for path in ("with_embed", "without_embed"):
            assert 0 < row[path]["p50"] <= row[path]["p95"] <= row[path]["p99"]
        assert row["bytes_per_memory"] > 0 and row["hit_at_10"] is not None
    assert [r["store"] for r in report["side_by_side"]["ingest"]] == ["sqlite", pg_name]
    for row in report["side_by_side"]["ingest"]:
        assert row["accepted_per_s"] > 0 and row["indexing_over_raw_embedder"] > 0
    section = report["postgres"][pg_name]
    assert section["recall"][0]["backend"] == pg_name and section["recall"][0]["build"]["memories"] == 120
    assert section["recall"][0]["disk"]["per_memory_by_part"]["vectors"] > 0
    assert report["recall"][0]["backend"] == "sqlite"  # the embedded store's figures stay where they were
    out = io.StringIO()
    render(report, Console(file=out, width=160))
    assert "side by side" in out.getvalue()


def test_cli_throwaway_postgres_side_by_side(monkeypatch: pytest.MonkeyPatch) -> None:
    import pg_server
    from huiyi.evaluation.pg_throwaway import find_binaries

    try:
        find_binaries()
    except RuntimeError as exc:
        pg_server.unavailable(str(exc))
    # a folder of this test's own for the server: another test session's bench on the machine makes its own
    own = Path(tempfile.mkdtemp(prefix="huiyi-bench-test-"))
    own.chmod(0o755)  # the server may run as nobody
    monkeypatch.setattr(tempfile, "tempdir", str(own))
    try:
        _run_throwaway_side_by_side(own)
    finally:
        shutil.rmtree(own, ignore_errors=True)


def _run_throwaway_side_by_side(own: Path) -> None:
    args = ["bench", "run", "--sizes", "100", "--scope", "50", "--queries", "3", "--cold", "1", "--startup-runs", "0"]
    args += ["--ingest", "10", "--ingest-batch", "5", "--embedder", "hash", "--no-cache", "--json", "--store", "pg"]
    args += ["--load", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    _check_side_by_side(json.loads(result.stdout.strip().splitlines()[-1]), "pg")
    assert not list(own.glob("huiyi-bench-pg-*"))  # the server stopped and is gone


def test_postgres_url_side_by_side_leaves_no_schema() -> None:
    import psycopg

    import pg_server

    try:
        server = pg_server.shared()
    except pg_server.ServerUnavailable as exc:
        pg_server.unavailable(str(exc))
    dsn: str = getattr(server, "schemas", server).dsn  # the test database, not a schema of it
    options = {**TINY, "sizes": [100], "scope": 50, "queries": 3, "ingest_messages": 10, "ingest_batch": 5}
    report = run_bench(BenchOptions(**options, stores=["sqlite", dsn]))  # type: ignore[arg-type]
    [name] = report["postgres"]
    assert name.startswith("pg:")
    _check_side_by_side(report, name)
    with psycopg.connect(dsn) as conn:
        left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'huiyi_bench_%'").fetchone()
    assert left == (0,)


def test_load_part_tiny() -> None:
    """Recall idle and under writers, one store, a few recalls: the report's shape, never its speed."""
    options = {**TINY, "sizes": [], "parts": ("load",), "load_queries": 6, "load_readers": 2, "load_writers": 2}
    report = run_bench(BenchOptions(**options, load_history=1, load_seconds=30))  # type: ignore[arg-type]
    load = report["load"]
    assert load["queries"] == 6 and load["readers"] == 2 and load["writers"] == 2
    _check_summary(load["idle_ms"])
    assert load["idle_ms"]["n"] == 6
    assert load["under_load_ms"]["n"] + load["skipped_at_deadline"] == 6
    assert load["ratio_p95"] is None or load["ratio_p95"] > 0
    assert {"embed", "total", "waiting"} <= set(load["stages_p50_idle"])
    assert load["adds_during_recalls"] >= 2  # every writer added before the timed recalls began
    assert "recall" not in report and "ingest" not in report
    out = io.StringIO()
    render(report, Console(file=out, width=160))
    assert "recall under load" in out.getvalue()


def test_store_names() -> None:
    assert store_names([]) == [("sqlite", "sqlite")]
    assert [n for n, _ in store_names(["pg", "postgres", "host=/tmp dbname=a", "dbname=a host=/tmp"])] == [
        "sqlite",
        "pg",
        "pg:/tmp/a",
        "pg:/tmp/a'",
    ]
    with pytest.raises(ValueError):
        store_names(["mysql://x"])


def test_cli_synth_writes_the_same_file_twice(tmp_path: Path) -> None:
    for name in ("a.json", "b.json"):
        result = CliRunner().invoke(
            app, ["bench", "synth", str(tmp_path / name), "--persons", "3", "--messages", "10", "--facts", "2"]
        )
        assert result.exit_code == 0, result.output
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_sizes_parse() -> None:
    assert parse_sizes("10k,100k, 1M") == [10_000, 100_000, 1_000_000]
    assert parse_size("250") == 250
    with pytest.raises(ValueError):
        parse_size("ten")
    assert summary([])["n"] == 0


# the peer comparison ---------------------------------------------------------------------------------


def test_peer_baseline_tiny(tmp_path: Path) -> None:
    from huiyi.config import Config
    from huiyi.evaluation.bench.peer import bench_peer

    report = bench_peer(
        "baseline",
        config=Config(),
        directory=tmp_path,
        threads=1,
        n_persons=2,
        n_messages=8,
        n_queries=3,
        server_samples=2,
    )
    assert report["peer"] == "baseline"
    assert set(report["systems"]) == {"huiyi_inprocess", "huiyi_http", "peer"}
    for system in report["systems"].values():
        assert system["messages"] == 16
        assert system["search_ms"]["n"] >= 3
        assert 0.0 <= system["hit_at_10"] <= 1.0
    assert set(report["ratios"]) == {"huiyi_inprocess", "huiyi_http"}
    assert report["server_one_query_ms"]["tcp_nodelay"] > 0


@pytest.mark.slow
def test_peer_mem0_tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("mem0") is None:  # not imported here: mem0 reads its settings on import
        pytest.skip("mem0ai is not installed")
    from huiyi.config import Config
    from huiyi.evaluation.bench.peer import bench_peer

    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0-home"))
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    report = bench_peer(
        "mem0", config=Config(), directory=tmp_path, threads=1, n_persons=2, n_messages=8, n_queries=3, server_samples=2
    )
    assert report["peer"] == "mem0", report.get("mem0_unavailable")
    assert report["systems"]["peer"]["messages"] == 16


def test_maintenance_merges_the_keyword_segments_once(tmp_path: Path) -> None:
    from huiyi import Config, Memory
    from huiyi.evaluation.bench.recall import _maintained

    quiet = Config(worker={"enabled": False})
    with Memory(tmp_path / "m", embedder=HashEmbedder(8), config=quiet) as memory:
        for n in range(12):  # each its own transaction: a keyword segment each
            memory.remember(f"第{n}条 note {n}", agent="a", person="p")
        first = _maintained(memory)
        assert first["steps"] > 0
        assert _maintained(memory)["steps"] == 0  # nothing left to merge
        assert len(memory.recall("note", agent="a", person="p").hits) > 0


def test_the_goal_table_holds_the_maintained_store_beside_the_built_one() -> None:
    from huiyi.evaluation.bench.goals import GOALS, goals

    built = {"p50": 3.8, "p95": 5.7}
    size = {
        "label": "1M",
        "latency": {"without_embed": built, "without_embed_cpu": built},
        "after_maintenance": {"steps": 24, "latency": {"without_embed": {"p50": 2.6, "p95": 4.6}}},
    }
    rows = {row["goal"]: row for row in goals([size])}
    assert rows["recall without embedding p50 ms, 1M"]["met"] is False
    later = rows["  same after maintenance p50 ms, 1M"]
    assert (later["value"], later["target"], later["met"]) == (2.6, GOALS["recall_without_embed_p50_ms"], True)
    assert rows["  same after maintenance p95 ms, 1M"]["value"] == 4.6
    del size["after_maintenance"]
    assert not any("maintenance" in goal for goal in {row["goal"] for row in goals([size])})


def test_a_store_maintenance_tidied_is_timed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import huiyi.evaluation.bench.recall as bench_recall

    tidy = bench_recall._maintained
    calls: list[dict[str, Any]] = []

    def tidied(memory: Any) -> dict[str, Any]:  # a tiny store has no segments to merge: say it had one
        calls.append(tidy(memory))
        return {**calls[-1], "steps": calls[-1]["steps"] + 1}

    monkeypatch.setattr(bench_recall, "_maintained", tidied)
    report = run_bench(BenchOptions(**{**TINY, "ingest_messages": 0}))  # type: ignore[arg-type]
    [size] = report["recall"]
    later = size["after_maintenance"]["latency"]
    assert len(calls) == 1 and size["after_maintenance"]["steps"] >= 1
    _check_summary(later["without_embed"])
    assert later["cold_without_embed"]["n"] == 0  # every scope was loaded by the first pass
    out = io.StringIO()
    render(report, Console(file=out, width=200))
    assert "200, maintained" in out.getvalue()


def test_embed_server_starts_when_the_process_holds_many_descriptors() -> None:
    # a long-lived bench or test process past 1023 open files: select() raised "filedescriptor out of range"
    from huiyi.evaluation.bench.server import EmbedServer

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this machine allows {hard} open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        server = EmbedServer(threads=1).start()
        server.stop()
    finally:
        for descriptor in held:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
